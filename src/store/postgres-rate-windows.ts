/**
 * The rate-limit windows of the PostgreSQL store: one row per key that every instance shares,
 * holding the stamps of the requests passed within the window (a sliding log, rate-windows.ts),
 * so a limit of N holds across all instances together.
 */
import type { Run } from './postgres-connection.js';
import { secondsUntilLeaves } from './rate-windows.js';
import type { RateWindows } from './rate-windows.js';

export class PostgresRateWindows implements RateWindows {
  constructor(private readonly store: { run: Run }) {}

  async take(key: string, limit: number, windowMs: number, nowMs: number): Promise<number> {
    if (limit <= 0) return 0;
    const leftBy = nowMs - windowMs;
    // One statement, on the row locked by the upsert: the stamps that have left go, this request's
    // is added when fewer than `limit` remain, and `admitted` records which (RETURNING sees only
    // the new row). When refused, the oldest of the newest `limit` is the one whose leaving makes room.
    const [row] = await this.store.run(
      (sql) => sql<{ admitted: boolean; oldest: string | null }[]>`
        INSERT INTO payreq_rate_windows AS w (key, passed, admitted) VALUES (${key}, ARRAY[${nowMs}::bigint], true)
        ON CONFLICT (key) DO UPDATE SET (passed, admitted) = (
          SELECT CASE WHEN inside.n < ${limit} THEN inside.kept || ${nowMs}::bigint ELSE inside.kept END, inside.n < ${limit}
          FROM (
            SELECT coalesce(array_agg(s ORDER BY s) FILTER (WHERE s > ${leftBy}::bigint), '{}') AS kept,
                   count(*) FILTER (WHERE s > ${leftBy}::bigint) AS n
            FROM unnest(w.passed) AS s
          ) AS inside)
        RETURNING admitted,
          CASE WHEN admitted THEN NULL ELSE (SELECT s FROM unnest(w.passed) AS s ORDER BY s DESC OFFSET ${limit - 1} LIMIT 1) END AS oldest`,
    );
    if (!row || row.admitted) return 0;
    return secondsUntilLeaves(Number(row.oldest ?? nowMs), windowMs, nowMs);
  }

  async wait(key: string, limit: number, windowMs: number, nowMs: number): Promise<number> {
    if (limit <= 0) return 0;
    const [row] = await this.store.run(
      (sql) => sql<{ n: string; oldest: string | null }[]>`
        SELECT (SELECT count(*) FROM unnest(passed) AS s WHERE s > ${nowMs - windowMs}::bigint) AS n,
               (SELECT s FROM unnest(passed) AS s ORDER BY s DESC OFFSET ${limit - 1} LIMIT 1) AS oldest
        FROM payreq_rate_windows WHERE key = ${key}`,
    );
    if (!row || Number(row.n) < limit) return 0;
    return secondsUntilLeaves(Number(row.oldest ?? nowMs), windowMs, nowMs);
  }
}
