/**
 * Storage usage of the PostgreSQL store (the rule: storage-quota.ts). A merchant's payments are
 * counted in payreq_storage, kept in the statement of each change (postgres-store.ts), so no
 * create scans the merchant's payments. Its other records (journal, deliveries, keys, evidence)
 * are bounded in number and summed from their tables, at most every few seconds per merchant;
 * the sandbox's total the same way, a few seconds old at most (as the payment cap's count is).
 */
import type { Run, Sql } from './postgres-connection.js';

/** How long a sum of a merchant's other records, or of the sandbox's records, serves. */
export const USAGE_TTL_MS = 5_000;

/**
 * The bytes of the journal (answer texts once), deliveries, idempotency keys and evidence, as their
 * tables hold them: journal, evidence and delivery rows carry what they count (a row an earlier version wrote: its text).
 */
function partsSum(sql: Sql, payeeId: string | null) {
  // Two statements, not one with "OR $1 IS NULL": a generic plan of that could not use the payee_id indexes.
  const mine = payeeId === null ? sql`` : sql`WHERE payee_id = ${payeeId}`;
  return sql<{ bytes: string }[]>`
    SELECT ((SELECT coalesce(sum(coalesce(bytes, octet_length(entry))), 0) FROM payreq_journal ${mine})
          + (SELECT coalesce(sum(bytes), 0) FROM payreq_answers ${mine})
          + (SELECT coalesce(sum(coalesce(bytes, octet_length(doc) + octet_length(attempts::text))), 0) FROM payreq_deliveries ${mine})
          + (SELECT coalesce(sum(octet_length(key) + octet_length(fingerprint) + coalesce(octet_length(body), 0)), 0) FROM payreq_idempotency ${mine})
          + (SELECT coalesce(sum(coalesce(bytes, octet_length(entry))), 0) FROM payreq_readiness ${mine}))::bigint AS bytes`;
}

interface Known {
  bytes: number;
  readonly at: number;
}

export class PostgresStorage {
  private readonly parts = new Map<string, Known>();
  private sandbox: Known | null = null;

  constructor(private readonly run: Run) {}

  /** The bytes of the merchant's payments, as counted. */
  paymentBytes(payeeId: string): Promise<number> {
    return this.run(async (sql) => Number((await sql<{ b: string }[]>`SELECT payment_bytes AS b FROM payreq_storage WHERE payee_id = ${payeeId}`)[0]?.b ?? 0));
  }

  /** The bytes of the merchant's other records, summed now. */
  async partsBytes(payeeId: string): Promise<number> {
    const bytes = await this.run(async (sql) => Number((await partsSum(sql, payeeId))[0]?.bytes ?? 0));
    this.parts.set(payeeId, { bytes, at: Date.now() });
    return bytes;
  }

  /** The bytes of the merchant's other records, from a sum at most USAGE_TTL_MS old. */
  async recentPartsBytes(payeeId: string): Promise<number> {
    const known = this.parts.get(payeeId);
    if (known && Date.now() - known.at <= USAGE_TTL_MS) return known.bytes;
    if (this.parts.size > 10_000) this.parts.clear();
    return this.partsBytes(payeeId);
  }

  /** The sandbox's records, from a sum at most USAGE_TTL_MS old plus what this instance added since. */
  async sandboxBytes(): Promise<number> {
    if (this.sandbox && Date.now() - this.sandbox.at <= USAGE_TTL_MS) return this.sandbox.bytes;
    const bytes = await this.run(async (sql) => {
      const [payments] = await sql<{ bytes: string }[]>`SELECT coalesce(sum(payment_bytes), 0)::bigint AS bytes FROM payreq_storage`;
      const [parts] = await partsSum(sql, null);
      return Number(payments?.bytes ?? 0) + Number(parts?.bytes ?? 0);
    });
    this.sandbox = { bytes, at: Date.now() };
    return bytes;
  }

  /** A payment of `bytes` was stored by this instance. */
  added(bytes: number): void {
    if (this.sandbox) this.sandbox.bytes += bytes;
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
