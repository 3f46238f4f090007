/** The shared store: every instance on one database is one sandbox, so all a merchant sees lives there, and a 2xx means committed. */
import postgres from 'postgres';
import { type Logger, loggerOr } from '../logger.js';
import { afterReset, type Merchant } from '../domain/merchant.js';
import type { Payment } from '../domain/payment.js';
import type { Delivery } from './delivery-log.js';
import type { JournalLog } from './journal-log.js';
import { PostgresDeliveryLog } from './postgres-deliveries.js';
import { PostgresIdempotencyKeys } from './postgres-idempotency.js';
import { PostgresKeyedReads } from './postgres-keyed-read.js';
import { PostgresJournalLog, trimJournal } from './postgres-journal.js';
import { PostgresRateWindows } from './postgres-rate-windows.js';
import { PostgresReadinessLog, trimEvidence } from './postgres-readiness.js';
import { PostgresTrims, type TrimCounter } from './postgres-trims.js';
import { PostgresRoom } from './postgres-room.js';
import { PostgresTurnWriter } from './postgres-turn.js';
import { migrate } from './postgres-schema.js';
import type { RateWindows } from './rate-windows.js';
import type { InsertResult, KeyedPayment, MerchantChange, MerchantErasure, PaymentPage, PaymentQuery, Store } from './store.js';
import { cannotBeStored, keep, PostgresConnection, type Sql } from './postgres-connection.js';
import { eraseRecords, writeMerchant } from './postgres-merchants.js';
import { due, listPayments, merchantsWithDueWork, paymentOf, paymentRow } from './postgres-payments.js';
import { redactedUrl } from './unavailable.js';
import { countPayments, paymentSums, PostgresStorage } from './postgres-storage.js';
import { passesBudget, paymentRoom, type StorageLimits, type StorageRefusal, type StorageUsage, textBytes } from './storage-quota.js';

export interface PostgresStoreOptions {
  /** postgres:// or postgresql:// URL. */
  readonly url: string;
  /** Connections this instance keeps open at most (default 10). */
  readonly maxConnections?: number;
  /** Where the database going away and coming back, and failed trims, are said; loggerOr's default when not given. */
  readonly logger?: Logger;
  /** The storage limits whose allowance the journal, evidence and deliveries are trimmed to (none: their count caps alone). */
  readonly limits?: StorageLimits;
}

/** How long a merchant's payment count serves the cap check, and how near the cap it is counted afresh. */
const CAP_COUNT_TTL_MS = 10_000;
const CAP_COUNT_MARGIN = 1_000;

export class PostgresStore implements Store {
  readonly kind = 'postgres' as const;
  readonly journal: JournalLog;
  readonly rateWindows: RateWindows;
  readonly deliveries: PostgresDeliveryLog;
  readonly idempotency: PostgresIdempotencyKeys;
  readonly readiness: PostgresReadinessLog;
  /** The URL with its password masked: for logs and errors. */
  private readonly shownUrl: string;
  private readonly connection: PostgresConnection;
  /** Per merchant, a recent count of its payments (for the cap only). */
  private readonly counts = new Map<string, { count: number; at: number }>();
  private readonly storage: PostgresStorage;
  private readonly keyedReads: PostgresKeyedReads;
  /** The bounded tables' trims, run in the background (postgres-trims.ts). */
  readonly trims: PostgresTrims;
  /** The journal's: also deletes the answer texts no entry refers to any more. */
  private readonly journalTrims: TrimCounter;

  constructor(options: PostgresStoreOptions) {
    this.shownUrl = redactedUrl(options.url);
    const logger = loggerOr(options.logger);
    this.connection = new PostgresConnection(options.url, this.shownUrl, options.maxConnections ?? 10, logger);
    this.trims = new PostgresTrims((query) => this.run(query), logger);
    this.storage = new PostgresStorage((query) => this.run(query));
    const room = new PostgresRoom(this.storage, this.trims, options.limits);
    this.journalTrims = this.trims.counter(trimJournal);
    const writer = new PostgresTurnWriter((query) => this.run(query), {
      journal: this.journalTrims,
      evidence: this.trims.counter(trimEvidence),
      bytes: room,
    });
    this.journal = new PostgresJournalLog(this, writer, this.journalTrims);
    this.rateWindows = new PostgresRateWindows(this);
    this.deliveries = new PostgresDeliveryLog(this, this.trims, room);
    this.idempotency = new PostgresIdempotencyKeys(this, this.trims);
    this.readiness = new PostgresReadinessLog(this, writer);
    this.keyedReads = new PostgresKeyedReads((query) => this.run(query));
  }

  run<T>(query: (sql: postgres.Sql) => Promise<T>): Promise<T> {
    return this.connection.run(query);
  }

  async open(): Promise<void> {
    await this.run((sql) => migrate(sql, this.shownUrl));
  }

  close(): Promise<void> {
    this.trims.stop();
    return this.connection.close();
  }

  /** Rejects, saying why, while the database is known to be away or does not answer. */
  async ready(): Promise<void> {
    await this.run((sql) => sql`SELECT 1`);
  }

  /** With the merchant's payment count (for the cap) and, every few seconds, its other records' bytes (for its quota): one round trip. */
  async merchantByKey(apiKey: string): Promise<Merchant | undefined> {
    if (cannotBeStored(apiKey)) return undefined;
    const read = await this.keyedReads.merchant(apiKey, (payeeId) => ({
      count: payeeId === undefined || this.countStale(payeeId),
      parts: payeeId === undefined || this.storage.partsStale(payeeId),
    }));
    if (!read) return undefined;
    const payeeId = read.merchant.payeeId;
    if (read.paymentCount !== null) keep(this.counts, payeeId, { count: read.paymentCount, at: Date.now() });
    if (read.partsBytes !== null) this.storage.noteParts(payeeId, read.partsBytes);
    return read.merchant;
  }

  /** Key, merchant and payment in one statement: a status read's one round trip (SPEC 20). */
  keyedPayment(apiKey: string, paymentId: string): Promise<KeyedPayment | undefined> {
    return this.keyedReads.read(apiKey, paymentId);
  }

  merchant(payeeId: string): Promise<Merchant | undefined> {
    return this.run(async (sql) => {
      const [row] = await sql<{ doc: string }[]>`SELECT doc FROM payreq_merchants WHERE payee_id = ${payeeId}`;
      return row ? (JSON.parse(row.doc) as Merchant) : undefined;
    });
  }

  merchantIds(): Promise<readonly string[]> {
    return this.run(async (sql) => (await sql<{ payee_id: string }[]>`SELECT payee_id FROM payreq_merchants ORDER BY created_at, payee_id`).map((r) => r.payee_id));
  }

  async saveMerchant(merchant: Merchant): Promise<void> {
    await this.run((sql) => sql.begin((tx) => writeMerchant(tx, merchant)));
  }

  updateMerchant<T>(payeeId: string, change: MerchantChange<T>): Promise<{ readonly result: T } | undefined> {
    return this.run((sql) =>
      sql.begin(async (tx) => {
        // FOR UPDATE: changes from several instances (fault rules, webhook URL, clock) never overwrite each other.
        const [row] = await tx<{ doc: string }[]>`SELECT doc FROM payreq_merchants WHERE payee_id = ${payeeId} FOR UPDATE`;
        if (!row) return undefined;
        const [next, result] = change(JSON.parse(row.doc) as Merchant);
        if (next) await writeMerchant(tx, next);
        return { result };
      }),
    ) as Promise<{ readonly result: T } | undefined>;
  }

  payment(payeeId: string, paymentId: string): Promise<Payment | undefined> {
    return this.one(paymentId, (sql) => sql`id = ${paymentId} AND payee_id = ${payeeId}`);
  }

  paymentByRef(payeeId: string, merchantRefNo: string): Promise<Payment | undefined> {
    return this.one(merchantRefNo, (sql) => sql`payee_id = ${payeeId} AND merchant_ref_no = ${merchantRefNo}`);
  }

  paymentByToken(token: string): Promise<Payment | undefined> {
    return this.one(token, (sql) => sql`token = ${token}`);
  }

  async insertPayment(payment: Payment, outbox: readonly Delivery[] = [], limits?: StorageLimits): Promise<InsertResult> {
    const row = paymentRow(payment);
    const bytes = textBytes(row.doc);
    let room: { readonly bytes: number; readonly refusal: StorageRefusal } = { bytes: Number.MAX_SAFE_INTEGER, refusal: 'merchant_quota' };
    if (limits) {
      const sandbox = await this.storage.sandboxUsage();
      const parts = await this.storage.recentPartsBytes(payment.payeeId);
      const full = passesBudget(sandbox.bytes, bytes, limits);
      // Whether the merchant holds anything counts only when its fair share decides: a full sandbox.
      const payments = full ? await this.storage.paymentBytes(payment.payeeId) : 0;
      room = paymentRoom(parts, { merchantBytes: parts + payments, sandboxBytes: sandbox.bytes, holders: sandbox.holders }, bytes, limits);
      if (full) this.storage.recount();
    }
    // The merchant's count takes the bytes only while they fit its room (as committed when the statement starts), and the payment is stored only then: one statement.
    const slot = this.storage.nextSlot();
    const insert = (sql: Sql) => sql`
      WITH counted AS (
        ${countPayments(sql, row.payee_id, slot, sql`${bytes}::bigint`, sql`1`, sql`${paymentSums(sql, row.payee_id).bytes} + ${bytes}::bigint <= ${room.bytes}::bigint`)}
        RETURNING 1)
      INSERT INTO payreq_payments (id, payee_id, merchant_ref_no, token, code, status, live, due_at, settle_at, created_at, version, doc)
      SELECT ${row.id}::text, ${row.payee_id}::text, ${row.merchant_ref_no}::text, ${row.token}::text, ${row.code}::text, ${row.status}::text, ${row.live}::boolean,
             ${row.due_at}::bigint, ${row.settle_at}::bigint, ${row.created_at}::bigint, ${row.version}::integer, ${row.doc}::text
       WHERE EXISTS (SELECT 1 FROM counted)`;
    try {
      if ((await this.withOutbox(outbox, async (sql) => (await insert(sql)).count)) !== 1) return room.refusal;
      this.storage.added(bytes);
      return 'inserted';
    } catch (err) {
      if (err instanceof postgres.PostgresError && err.code === '23505') {
        return err.constraint_name === 'payreq_payments_ref' ? 'duplicate_ref' : 'duplicate_code';
      }
      throw err;
    }
  }

  /** Compare-and-set on version: of racing transitions on several instances exactly one wins. */
  async updatePayment(payment: Payment, expectedVersion: number, outbox: readonly Delivery[] = []): Promise<boolean> {
    const row = paymentRow(payment);
    // The merchant's count moves by the change in the document's bytes, in the same statement (never refused).
    const slot = this.storage.nextSlot();
    const update = async (sql: Sql) => (await sql<{ n: number }[]>`
      WITH old AS (SELECT octet_length(doc) AS was FROM payreq_payments WHERE id = ${row.id}),
      changed AS (
        UPDATE payreq_payments
           SET status = ${row.status}, live = ${row.live}, due_at = ${row.due_at}, settle_at = ${row.settle_at}, version = ${row.version}, doc = ${row.doc}
         WHERE id = ${row.id} AND payee_id = ${row.payee_id} AND version = ${expectedVersion}
        RETURNING 1),
      counted AS (${countPayments(sql, row.payee_id, slot, sql`${textBytes(row.doc)}::bigint - (SELECT was FROM old)`, sql`0`, sql`EXISTS (SELECT 1 FROM changed)`)})
      SELECT count(*)::int AS n FROM changed`)[0]!.n;
    return (await this.withOutbox(outbox, update)) === 1;
  }

  /** Runs `write` (answering the rows it wrote); without deliveries one statement is its own transaction, with them both commit or neither. */
  private withOutbox(outbox: readonly Delivery[], write: (sql: Sql) => Promise<number>): Promise<number> {
    if (outbox.length === 0) return this.run((sql) => write(sql));
    return this.run((sql) => sql.begin(async (tx) => {
      const n = await write(tx);
      if (n === 1) await this.deliveries.insert(tx, outbox);
      return n;
    })) as Promise<number>;
  }

  listPayments(payeeId: string, query: PaymentQuery): Promise<PaymentPage> {
    return this.run((sql) => listPayments(sql, payeeId, query));
  }

  /** From a count at most CAP_COUNT_TTL_MS old plus this instance's inserts since; near the cap, counted afresh. */
  async belowPaymentCap(payeeId: string, cap: number): Promise<boolean> {
    let known = this.counts.get(payeeId);
    if (!known || this.countStale(payeeId)) known = keep(this.counts, payeeId, { count: await this.storage.paymentCount(payeeId), at: Date.now() });
    if (known.count >= cap - CAP_COUNT_MARGIN) known = keep(this.counts, payeeId, { count: await this.countPayments(payeeId), at: Date.now() });
    known.count++;
    return known.count <= cap;
  }

  /** Whether the merchant's payment count is missing or older than CAP_COUNT_TTL_MS. */
  private countStale(payeeId: string): boolean {
    const known = this.counts.get(payeeId);
    return !known || Date.now() - known.at > CAP_COUNT_TTL_MS;
  }

  private countPayments(payeeId: string): Promise<number> {
    return this.run(async (sql) => (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM payreq_payments WHERE payee_id = ${payeeId}`)[0]?.n ?? 0);
  }

  dueIds(payeeId: string, now: number, autoSettle: boolean): Promise<readonly string[]> {
    return this.run(async (sql) =>
      (await sql<{ id: string }[]>`SELECT id FROM payreq_payments WHERE ${due(sql, payeeId, now, autoSettle)} ORDER BY least(due_at, settle_at)`).map((r) => r.id));
  }

  countDue(payeeId: string, now: number, autoSettle: boolean): Promise<number> {
    return this.run(async (sql) => (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM payreq_payments WHERE ${due(sql, payeeId, now, autoSettle)}`)[0]?.n ?? 0);
  }

  merchantsWithDueWork(realNow: number): Promise<readonly string[]> {
    return this.run((sql) => merchantsWithDueWork(sql, realNow));
  }

  livePayments(payeeId: string): Promise<readonly Payment[]> {
    return this.run(async (sql) => (await sql<{ doc: string }[]>`SELECT doc FROM payreq_payments WHERE payee_id = ${payeeId} AND live ORDER BY seq`).map((r) => paymentOf(r.doc)));
  }

  /** The merchant's payments as counted and its other records summed now; the sandbox's a few seconds old. */
  async storageUsage(payeeId: string): Promise<StorageUsage> {
    const [payments, parts, sandbox] = await Promise.all([this.storage.paymentBytes(payeeId), this.storage.partsBytes(payeeId), this.storage.sandboxUsage()]);
    return { merchantBytes: payments + parts, sandboxBytes: sandbox.bytes, holders: sandbox.holders };
  }

  resetMerchant(payeeId: string): Promise<number> {
    this.counts.delete(payeeId);
    this.storage.forget(payeeId);
    return this.run((sql) =>
      sql.begin(async (tx) => {
        const [row] = await tx<{ doc: string }[]>`SELECT doc FROM payreq_merchants WHERE payee_id = ${payeeId} FOR UPDATE`;
        // What went is taken away, not the count set to 0: a create another instance commits meanwhile keeps its bytes.
        const erased = await this.erasePayments(tx, payeeId, sql`TRUE`);
        await eraseRecords(tx, payeeId);
        const fresh = row ? afterReset(JSON.parse(row.doc) as Merchant) : null;
        if (fresh) await writeMerchant(tx, fresh);
        return erased;
      }),
    ).finally(() => this.journalTrims.due(payeeId)) as Promise<number>;
  }

  /** One transaction: everything of the merchant, then its row (its keys go with it: ON DELETE CASCADE). */
  deleteMerchant(payeeId: string): Promise<MerchantErasure | undefined> {
    this.counts.delete(payeeId);
    this.storage.forget(payeeId);
    return this.run((sql) =>
      sql.begin(async (tx) => {
        const [row] = await tx`SELECT 1 FROM payreq_merchants WHERE payee_id = ${payeeId} FOR UPDATE`;
        if (!row) return undefined;
        const payments = (await tx`DELETE FROM payreq_payments WHERE payee_id = ${payeeId}`).count;
        const records = await eraseRecords(tx, payeeId);
        await tx`DELETE FROM payreq_rate_windows WHERE key = ${`merchant:${payeeId}`}`;
        await tx`DELETE FROM payreq_payment_counts WHERE payee_id = ${payeeId}`;
        await tx`DELETE FROM payreq_merchants WHERE payee_id = ${payeeId}`;
        return { payments, ...records };
      }),
    ).finally(() => this.journalTrims.due(payeeId)) as Promise<MerchantErasure | undefined>;
  }

  prunePayments(payeeId: string, createdBefore: number): Promise<number> {
    this.storage.forget(payeeId);
    return this.run((sql) => this.erasePayments(sql, payeeId, sql`created_at < ${createdBefore} AND NOT live`));
  }

  /** Deletes the merchant's payments that `which` selects, taking their bytes and number from its count in the same statement. */
  private async erasePayments(sql: Sql, payeeId: string, which: postgres.Fragment): Promise<number> {
    return (await sql<{ n: number }[]>`
      WITH gone AS (DELETE FROM payreq_payments WHERE payee_id = ${payeeId} AND ${which} RETURNING octet_length(doc) AS bytes),
      counted AS (${countPayments(sql, payeeId, this.storage.nextSlot(), sql`-(SELECT coalesce(sum(bytes), 0) FROM gone)::bigint`, sql`-(SELECT count(*) FROM gone)`, sql`EXISTS (SELECT 1 FROM gone)`)})
      SELECT count(*)::int AS n FROM gone`)[0]!.n;
  }

  /** The payment `which` selects; a `key` PostgreSQL text cannot hold selects none. */
  private one(key: string, which: (sql: postgres.Sql) => postgres.Fragment): Promise<Payment | undefined> {
    if (cannotBeStored(key)) return Promise.resolve(undefined);
    return this.run(async (sql) => {
      const [row] = await sql<{ doc: string }[]>`SELECT doc FROM payreq_payments WHERE ${which(sql)}`;
      return row ? paymentOf(row.doc) : undefined;
    });
  }
}
