/** A turn's status reads in one statement (SPEC 20); a document is sent only when this instance's copy is stale (xmin, version), so a poll parses none. */
import type postgres from 'postgres';
import { apiKeyHash } from '../domain/ids.js';
import type { Merchant } from '../domain/merchant.js';
import type { Payment } from '../domain/payment.js';
import { cannotBeStored, keep, type Run, type Sql } from './postgres-connection.js';
import { paymentOf } from './postgres-payments.js';
import { heldBytes, PAYMENTS, paymentSums } from './postgres-storage.js';
import type { KeyedPayment } from './store.js';

/** A copy's version, as a value or as a column of the statement's list of reads. */
type Value = string | number | null | postgres.Fragment;

interface MerchantRow {
  payee_id: string;
  merchant_xmin: string;
  merchant: string | null;
}

interface Row extends MerchantRow {
  payment_version: number | null;
  payment: string | null;
}

/** The key's merchant (its document only when the copy's payee and xmin are not current) and, for a status read, the payment's likewise by version. */
function columns(sql: Sql, payee: Value, xmin: Value, version?: Value) {
  const merchant = sql`k.payee_id, m.xmin::text AS merchant_xmin,
    CASE WHEN k.payee_id = ${payee} AND m.xmin::text = ${xmin} THEN NULL ELSE m.doc END AS merchant`;
  if (version === undefined) return merchant;
  return sql`${merchant}, p.version AS payment_version, CASE WHEN p.version = ${version} THEN NULL ELSE p.doc END AS payment`;
}

/** A status read waiting for the end of its turn. */
interface TurnRead {
  readonly hash: string;
  readonly id: string | null;
  readonly resolve: (read: KeyedPayment | undefined) => void;
  readonly reject: (err: unknown) => void;
}

/** A merchant as this instance last read it, with the row version (xmin) it was read at. */
type MerchantCopy = { readonly payeeId: string; readonly xmin: string; readonly merchant: Merchant };

/** At the turn's end, with the copies whose versions the statement sends, so that it sends documents only when they are not current. */
type CopiedRead = TurnRead & { readonly merchant: MerchantCopy | undefined; readonly payment: Payment | undefined };

export class PostgresKeyedReads {
  /** Per key hash. */
  private readonly merchants = new Map<string, MerchantCopy>();
  private readonly payments = new Map<string, Payment>();
  /** This turn's status reads, sent together at its end. */
  private turnReads: TurnRead[] = [];

  constructor(private readonly run: Run) {}

  /** Read in one statement with the other status reads of this event-loop turn. */
  read(apiKey: string, paymentId: string): Promise<KeyedPayment | undefined> {
    if (cannotBeStored(apiKey)) return Promise.resolve(undefined);
    const hash = apiKeyHash(apiKey);
    const id = cannotBeStored(paymentId) ? null : paymentId;
    return new Promise((resolve, reject) => {
      if (this.turnReads.length === 0) setImmediate(() => this.readTurn());
      this.turnReads.push({ hash, id, resolve, reject });
    });
  }

  private readTurn(): void {
    const reads = this.turnReads.splice(0).map((r) => ({ ...r, merchant: this.merchants.get(r.hash), payment: r.id === null ? undefined : this.payments.get(r.id) }));
    // One read alone takes the plain statement: unnest's costs more to the database when it has nothing to share.
    const statement = reads.length === 1 ? this.readOne(reads[0]!) : this.readMany(reads);
    statement.then(
      (rows) => {
        const byRead = new Map(rows.map((row) => [Number(row.n) - 1, row]));
        reads.forEach((r, n) => {
          const row = byRead.get(n);
          if (!row) {
            this.merchants.delete(r.hash);
            return r.resolve(undefined);
          }
          r.resolve({ merchant: this.merchantOf(r.hash, row, r.merchant?.merchant), payment: this.paymentOfRow(row, r.payment) });
        });
      },
      (err: unknown) => reads.forEach((r) => r.reject(err)),
    );
  }

  private readOne({ hash, id, merchant, payment }: CopiedRead) {
    return this.run(async (sql) => sql<(Row & { n: number })[]>`
      SELECT 1 AS n, ${columns(sql, merchant?.payeeId ?? null, merchant?.xmin ?? null, payment?.version ?? null)}
      FROM payreq_merchant_keys k JOIN payreq_merchants m USING (payee_id)
      LEFT JOIN payreq_payments p ON p.id = ${id} AND p.payee_id = k.payee_id
      WHERE k.key_hash = ${hash}`);
  }

  private readMany(reads: readonly CopiedRead[]) {
    const copies = reads.map((r) => ({ hash: r.hash, id: r.id, payee: r.merchant?.payeeId ?? null, xmin: r.merchant?.xmin ?? null, version: r.payment?.version ?? null }));
    return this.run(async (sql) => sql<(Row & { n: string })[]>`
      SELECT q.n, ${columns(sql, sql`q.copy_payee`, sql`q.copy_xmin`, sql`q.copy_version`)}
      FROM ROWS FROM (jsonb_to_recordset(${sql.json(copies)}) AS (hash text, id text, payee text, xmin text, version int))
           WITH ORDINALITY AS q(hash, id, copy_payee, copy_xmin, copy_version, n)
      JOIN payreq_merchant_keys k ON k.key_hash = q.hash JOIN payreq_merchants m USING (payee_id)
      LEFT JOIN payreq_payments p ON p.id = q.id AND p.payee_id = k.payee_id`);
  }

  /** The key's merchant, with its payment count and other records' bytes summed now when `wants` (given its last known payee) asks (else null): one round trip. */
  merchant(apiKey: string, wants: (payeeId: string | undefined) => { count: boolean; parts: boolean }) {
    const hash = apiKeyHash(apiKey);
    const merchant = this.merchants.get(hash);
    const want = wants(merchant?.payeeId);
    return this.run(async (sql) => {
      // Separate statements, not one with "CASE WHEN $n": PostgreSQL could plan that one afresh on every call.
      const count = want.count ? sql`${paymentSums(sql, sql`k.payee_id`).count}::float8` : sql`NULL::float8`;
      const sum = want.parts ? sql`${heldBytes(sql, sql`WHERE payee_id = k.payee_id`, [PAYMENTS])}::float8` : sql`NULL::float8`;
      const [row] = await sql<(MerchantRow & { payment_count: number | null; parts: number | null })[]>`
        SELECT ${columns(sql, merchant?.payeeId ?? null, merchant?.xmin ?? null)}, ${count} AS payment_count, ${sum} AS parts
        FROM payreq_merchant_keys k JOIN payreq_merchants m USING (payee_id)
        WHERE k.key_hash = ${hash}`;
      if (!row) {
        this.merchants.delete(hash);
        return undefined;
      }
      return { merchant: this.merchantOf(hash, row, merchant?.merchant), paymentCount: row.payment_count, partsBytes: row.parts };
    });
  }

  private merchantOf(hash: string, row: MerchantRow, copy: Merchant | undefined): Merchant {
    if (row.merchant === null) return copy!;
    const merchant = JSON.parse(row.merchant) as Merchant;
    keep(this.merchants, hash, { payeeId: row.payee_id, xmin: row.merchant_xmin, merchant });
    return merchant;
  }

  private paymentOfRow(row: Row, copy: Payment | undefined): Payment | undefined {
    if (row.payment_version === null) return undefined;
    if (row.payment === null) return copy!;
    const payment = paymentOf(row.payment);
    keep(this.payments, payment.id, payment);
    return payment;
  }
}
