/** Stored bytes on PostgreSQL (storage-quota.ts): payments counted by each change's statement, so no create scans them; other records summed every few seconds. */
import type postgres from 'postgres';
import { keep, type Run, type Sql } from './postgres-connection.js';

/** Rows a merchant's payments are counted in: its concurrent creates lock different rows, so their commits reach the disk together. */
export const PAYMENT_SLOTS = 16;

/** The merchant's payments' bytes and count, summed over its rows (`payee`: an SQL expression or value). */
export function paymentSums(sql: Sql, payee: postgres.Fragment | string) {
  const mine = typeof payee === 'string' ? sql`${payee}::text` : payee;
  return {
    bytes: sql`(SELECT coalesce(sum(payment_bytes), 0) FROM payreq_payment_counts WHERE payee_id = ${mine})`,
    count: sql`(SELECT coalesce(sum(payment_count), 0) FROM payreq_payment_counts WHERE payee_id = ${mine})`,
  };
}

/** Adds `bytes` and `count` (negative: takes away) to one of the merchant's rows, when `when` holds, in the caller's statement. */
export function countPayments(sql: Sql, payeeId: string, slot: number, bytes: postgres.Fragment, count: postgres.Fragment, when: postgres.Fragment) {
  return sql`
    INSERT INTO payreq_payment_counts AS s (payee_id, slot, payment_bytes, payment_count) SELECT ${payeeId}::text, ${slot}::smallint, ${bytes}, ${count} WHERE ${when}
    ON CONFLICT (payee_id, slot) DO UPDATE SET payment_bytes = s.payment_bytes + excluded.payment_bytes, payment_count = s.payment_count + excluded.payment_count`;
}

/** How long a sum of a merchant's other records, or of the sandbox's records, serves. */
const USAGE_TTL_MS = 5_000;

/** The parts trimmed by bytes (postgres-room.ts), oldest rows first, in this order: the journal first, the deliveries last (they may still be sent). */
export const PARTS = [
  // The journal keeps its newest entry whatever it costs: a merchant always sees its last request.
  { table: 'payreq_journal', bytes: 'coalesce(bytes, octet_length(entry))', key: 'id', order: 'entry_id', keep: 1 },
  { table: 'payreq_readiness', bytes: 'coalesce(bytes, octet_length(entry))', key: 'id', order: 'id', keep: 0 },
  { table: 'payreq_deliveries', bytes: 'coalesce(bytes, octet_length(doc) + octet_length(attempts::text))', key: 'id', order: 'seq', keep: 0 },
] as const;

/** Every table a merchant's records are in, with what a row counts (storage-quota.ts): the quota, the trims and the sweep all sum this one list, so they agree. */
const HELD = [
  { table: 'payreq_payment_counts', bytes: 'payment_bytes' },
  ...PARTS,
  { table: 'payreq_answers', bytes: 'bytes' },
  { table: 'payreq_idempotency', bytes: 'octet_length(key) + octet_length(fingerprint) + coalesce(octet_length(body), 0)' },
] as const;
type HeldTable = (typeof HELD)[number]['table'];
/** Payments, which a merchant's other records are summed without. */
export const PAYMENTS: HeldTable = 'payreq_payment_counts';

/** Rows (payee_id, b) of the bytes held in the rows `mine` selects (a WHERE, or nothing), in every table but `without`. */
function heldRows(sql: Sql, mine: postgres.Fragment, without: readonly HeldTable[] = []): postgres.Fragment {
  return HELD.filter((t) => !without.includes(t.table))
    .map((t) => sql`SELECT payee_id, ${sql.unsafe(t.bytes)} AS b FROM ${sql(t.table)} ${mine}`)
    .reduce((all, one) => sql`${all} UNION ALL ${one}`);
}

/** The sum of heldRows. */
export function heldBytes(sql: Sql, mine: postgres.Fragment, without: readonly HeldTable[] = []): postgres.Fragment {
  return sql`(SELECT coalesce(sum(b), 0) FROM (${heldRows(sql, mine, without)}) held)::bigint`;
}

/** Each merchant holding any record, and its bytes: the sweep's and the sandbox count's one read. */
export function heldByMerchant(sql: Sql): postgres.Fragment {
  return sql`SELECT payee_id, sum(b)::bigint AS bytes FROM (${heldRows(sql, sql``)}) held GROUP BY payee_id HAVING sum(b) > 0`;
}

interface Known {
  bytes: number;
  readonly at: number;
}

type SandboxKnown = Known & { readonly holders: Set<string> };

export class PostgresStorage {
  private readonly parts = new Map<string, Known>();
  private sandbox: SandboxKnown | null = null;
  private counting: Promise<SandboxKnown> | null = null;
  /** Bytes this instance added (and deleted) in all: what it wrote while a count ran is added to that count. */
  private drift = 0;
  /** The row this instance's next payment change counts in: in turn, so its concurrent changes of one merchant take different rows; from a random one, so instances differ. */
  private slot = Math.floor(Math.random() * PAYMENT_SLOTS);

  constructor(private readonly run: Run) {}

  nextSlot(): number {
    this.slot = (this.slot + 1) % PAYMENT_SLOTS;
    return this.slot;
  }

  paymentBytes(payeeId: string): Promise<number> {
    return this.run(async (sql) => Number((await sql<{ b: string }[]>`SELECT ${paymentSums(sql, payeeId).bytes} AS b`)[0]?.b ?? 0));
  }

  paymentCount(payeeId: string): Promise<number> {
    return this.run(async (sql) => (await sql<{ n: number }[]>`SELECT ${paymentSums(sql, payeeId).count}::int AS n`)[0]?.n ?? 0);
  }

  /** The bytes of the merchant's other records, summed now. */
  async partsBytes(payeeId: string): Promise<number> {
    const bytes = await this.run(async (sql) => Number((await sql<{ b: string }[]>`SELECT ${heldBytes(sql, sql`WHERE payee_id = ${payeeId}`, [PAYMENTS])} AS b`)[0]?.b ?? 0));
    this.noteParts(payeeId, bytes);
    return bytes;
  }

  /** The bytes of the merchant's other records, from a sum at most USAGE_TTL_MS old. */
  async recentPartsBytes(payeeId: string): Promise<number> {
    return this.partsStale(payeeId) ? this.partsBytes(payeeId) : this.parts.get(payeeId)!.bytes;
  }

  /** Whether the merchant's other records are to be summed afresh (its sum is missing or older than USAGE_TTL_MS). */
  partsStale(payeeId: string): boolean {
    const known = this.parts.get(payeeId);
    return !known || Date.now() - known.at > USAGE_TTL_MS;
  }

  /** The bytes of the merchant's other records, summed now by another statement (the key's read, postgres-keyed-read.ts). */
  noteParts(payeeId: string, bytes: number): void {
    keep(this.parts, payeeId, { bytes, at: Date.now() });
  }

  /** The sandbox's records and holders, from a count at most USAGE_TTL_MS old plus what this instance wrote since. */
  async sandboxUsage(): Promise<{ readonly bytes: number; readonly holders: number }> {
    let known = this.sandbox;
    if (!known || Date.now() - known.at > USAGE_TTL_MS) {
      const counting = (this.counting ??= this.count().finally(() => (this.counting = null)));
      // A count under way does not hold up those that know an older one: they go on with it (a recount meanwhile does not take it away).
      known ??= await counting;
    }
    return { bytes: known.bytes, holders: known.holders.size };
  }

  /** Sums the sandbox's records and lists their merchants: one count at once, however many ask. */
  private async count(): Promise<SandboxKnown> {
    const before = this.drift;
    const held = await this.run((sql) => sql<{ payee_id: string; bytes: string }[]>`${heldByMerchant(sql)}`);
    const bytes = held.reduce((sum, row) => sum + Number(row.bytes), 0);
    return (this.sandbox = { bytes: bytes + (this.drift - before), holders: new Set(held.map((row) => row.payee_id)), at: Date.now() });
  }

  /** This instance wrote `bytes` of records of the merchant: counted in the sandbox's total and its holders until the next count. */
  wrote(payeeId: string, bytes: number): void {
    this.added(bytes);
    this.sandbox?.holders.add(payeeId);
  }

  /** A payment of `bytes` was stored by this instance (negative: records it deleted). */
  added(bytes: number): void {
    this.drift += bytes;
    if (this.sandbox) this.sandbox.bytes += bytes;
  }

  /** The sandbox's total as last summed plus this instance's writes since; undefined before a sum. */
  get knownSandboxBytes(): number | undefined {
    return this.sandbox?.bytes;
  }

  /** The sandbox's next check sums afresh: after a refusal, so that a full sandbox is not judged by a stale sum for long. */
  recount(): void {
    this.sandbox = null;
  }

  /** The merchant's records were erased: its next check sums afresh, and so does the sandbox's. */
  forget(payeeId: string): void {
    this.parts.delete(payeeId);
    this.sandbox = null;
  }
}
