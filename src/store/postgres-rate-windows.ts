/** Rate-limit windows on PostgreSQL: one row per key, shared, so a limit of N holds across every instance together. */
import type { Run } from './postgres-connection.js';
import { type RateWindows, secondsUntilLeaves } from './rate-windows.js';

export class PostgresRateWindows implements RateWindows {
  constructor(private readonly store: { run: Run }) {}

  async take(key: string, limit: number, windowMs: number, nowMs: number): Promise<number> {
    const leftBy = nowMs - windowMs;
    // On the row the upsert locks; `admitted` is stored because RETURNING sees only the new row.
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
