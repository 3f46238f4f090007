/** The storage rule's trims by bytes on PostgreSQL (storage-room.ts for the in-process stores), in the background like every trim. */
import type postgres from 'postgres';
import type { Sql } from './postgres-connection.js';
import { allowance, fairShare, type StorageLimits } from './storage-quota.js';
import { trimJournal } from './postgres-journal.js';
import { heldByMerchant, heldBytes, PARTS, type PostgresStorage } from './postgres-storage.js';
import type { PostgresTrims, TrimCounter } from './postgres-trims.js';

/** At most this many bytes of journal, evidence and deliveries written by this instance make a merchant's trim by bytes due. */
const ROOM_TRIM_EVERY_BYTES = 32 * 1024;

/** What a merchant may write past its allowance before its trim falls due: a sixteenth of its quota, at most ROOM_TRIM_EVERY_BYTES. */
export function roomTrimSlack(limits: StorageLimits): number {
  return Math.max(1, Math.min(ROOM_TRIM_EVERY_BYTES, Math.floor(limits.merchantBytes / 16)));
}

/** How much sooner than the budget the background trims take the sandbox as full: a share of the budget. */
const FULL_EARLY = 0.1;

/** How often at most merchants over their fair share are looked for while the sandbox is over its budget. */
const SWEEP_EVERY_MS = 1_000;

export class PostgresRoom {
  private sweptAt = 0;
  private sweepLater: NodeJS.Timeout | undefined;
  private readonly counter: TrimCounter;

  constructor(
    private readonly storage: PostgresStorage,
    trims: PostgresTrims,
    /** Without limits, nothing is trimmed by bytes. */
    private readonly limits: StorageLimits | undefined,
  ) {
    this.counter = trims.counter((sql, payeeId) => this.trim(sql, payeeId), Number.POSITIVE_INFINITY, limits ? roomTrimSlack(limits) : Number.POSITIVE_INFINITY);
  }

  /** Told of the bytes of journal, evidence and deliveries written: they count toward the sandbox's total at once, and a trim falls due. */
  note(payeeId: string, rows?: number, bytes = 0): void {
    if (!this.limits) return;
    this.storage.wrote(payeeId, bytes);
    this.counter.note(payeeId, rows, bytes);
    // Past the budget, any writer's trim sweeps those over their share: small writers' bytes alone might never make one due.
    if ((this.storage.knownSandboxBytes ?? 0) > this.limits.sandboxBytes) this.counter.due(payeeId);
  }

  /** Deletes the merchant's oldest journal entries, evidence and deliveries past its allowance. */
  async trim(sql: postgres.Sql, payeeId: string): Promise<void> {
    if (!this.limits) return;
    const sandbox = await this.storage.sandboxUsage();
    // Trims lag behind writes and the total is seconds old, so they judge the sandbox full a little early.
    const early = Math.floor(this.limits.sandboxBytes * FULL_EARLY);
    const allowed = allowance({ merchantBytes: 1, sandboxBytes: sandbox.bytes + early, holders: sandbox.holders }, this.limits);
    // While the sandbox is full, a little under the share, so that the next entry does not make the trim due again.
    const under = allowed < this.limits.merchantBytes ? Math.min(roomTrimSlack(this.limits) * 2, Math.floor(allowed / 8)) : 0;
    const journal = await sql.begin(async (tx) => {
      // No bitmap scans: an index scan marks trimmed rows' entries dead for later scans, a bitmap scan rereads them until a vacuum (~7 -> ~1 ms).
      await tx`SET LOCAL enable_bitmapscan = off`;
      return deleteOldest(tx, PARTS[0], payeeId, tx`${heldBytes(tx, tx`WHERE payee_id = ${payeeId}`)} - ${allowed - under}`);
    });
    let freed = journal.gone;
    for (const part of PARTS.slice(1)) {
      // What is left is known exactly: the excess the journal's statement summed less what each part gave back since (a cached sum may be seconds old).
      const over = journal.over - under - freed;
      if (over <= 0) break;
      freed += (await deleteOldest(sql, part, payeeId, over)).gone;
    }
    if (freed > 0) this.storage.added(-freed);
    // The sweep sums every table: at most once a second, and only while the sandbox is over its budget.
    if (sandbox.bytes - freed <= this.limits.sandboxBytes) return;
    const wait = this.sweptAt + SWEEP_EVERY_MS - Date.now();
    // Too soon: the trim falls due again once the sweep may run, as no write may come to make it due.
    if (wait > 0) {
      this.sweepLater ??= setTimeout(() => {
        this.sweepLater = undefined;
        this.counter.due(payeeId);
      }, wait).unref();
      return;
    }
    this.sweptAt = Date.now();
    await this.sweep(sql, sandbox.holders);
  }

  /** Merchants over their fair share give back, the most over first, while the sandbox holds more than its budget. */
  private async sweep(sql: postgres.Sql, holders: number): Promise<void> {
    const share = fairShare(this.limits!, holders);
    const over = await sql<{ payee_id: string; bytes: string }[]>`
      SELECT payee_id, bytes FROM (${heldByMerchant(sql)}) held WHERE bytes > ${share} ORDER BY bytes DESC LIMIT 64`;
    for (const row of over) {
      let excess = Number(row.bytes) - share;
      for (const part of PARTS) {
        if (excess <= 0) break;
        const { gone } = await deleteOldest(sql, part, row.payee_id, excess);
        if (gone > 0 && part.table === 'payreq_journal') await trimJournal(sql, row.payee_id);
        excess -= gone;
        this.storage.added(-gone);
      }
    }
  }
}

/** Deletes the merchant's oldest rows of `part` until at least `over` bytes went (or none is left); answers the bytes that went and `over` as the statement summed it. */
async function deleteOldest(sql: Sql, part: (typeof PARTS)[number], payeeId: string, over: number | postgres.Fragment): Promise<{ gone: number; over: number }> {
  const [row] = await sql<{ gone: string; over: string }[]>`
    WITH excess AS (SELECT ${over}::numeric AS bytes), oldest AS (
      SELECT ${sql(part.key)} AS k, sum(${sql.unsafe(part.bytes)}) OVER (ORDER BY ${sql(part.order)}) - ${sql.unsafe(part.bytes)} AS before,
             row_number() OVER (ORDER BY ${sql(part.order)} DESC) AS newer
        FROM ${sql(part.table)} WHERE payee_id = ${payeeId}
    ), gone AS (
      DELETE FROM ${sql(part.table)} WHERE payee_id = ${payeeId} AND ${sql(part.key)} IN (SELECT k FROM oldest, excess WHERE before < excess.bytes AND newer > ${part.keep})
      RETURNING ${sql.unsafe(part.bytes)} AS b
    )
    SELECT coalesce(sum(b), 0)::bigint AS gone, (SELECT bytes FROM excess) AS over FROM gone`;
  return { gone: Number(row?.gone ?? 0), over: Number(row?.over ?? 0) };
}
