/** Readiness evidence on PostgreSQL: repeats are collapsed where every instance's rows meet, when read and by the trim. */
import type postgres from 'postgres';
import type { SeenRequest } from '../domain/readiness.js';
import type { Run } from './postgres-connection.js';
import { keepNewest } from './postgres-trims.js';
import type { PostgresTurnWriter } from './postgres-turn.js';
import { collapseRepeats, READINESS_CAP, type ReadinessLog } from './readiness-log.js';
import { evidenceBytes } from './storage-quota.js';

/** Deletes what collapseRepeats leaves out: the middle rows of each key's repeats within a run, then all but the newest READINESS_CAP. */
export function trimEvidence(sql: postgres.Sql, payeeId: string): Promise<unknown> {
  return sql.begin((tx) => [
    tx`
      WITH runs AS (
        SELECT id, repeat_key, count(*) FILTER (WHERE repeat_key IS NULL) OVER (ORDER BY id) AS run
        FROM payreq_readiness WHERE payee_id = ${payeeId}
      ), places AS (
        SELECT id, row_number() OVER (PARTITION BY run, repeat_key ORDER BY id) AS i, count(*) OVER (PARTITION BY run, repeat_key) AS n
        FROM runs WHERE repeat_key IS NOT NULL
      )
      DELETE FROM payreq_readiness WHERE id IN (SELECT id FROM places WHERE i > 1 AND i < n)`,
    keepNewest(tx, 'payreq_readiness', 'id', payeeId, READINESS_CAP),
  ]);
}

export class PostgresReadinessLog implements ReadinessLog {
  constructor(
    private readonly store: { run: Run },
    private readonly writer: PostgresTurnWriter,
  ) {}

  add(payeeId: string, seen: SeenRequest, repeat: string | null): Promise<void> {
    return this.writer.evidence(payeeId, repeat, JSON.stringify(seen), evidenceBytes(seen));
  }

  /** Every row of the merchant (the trim keeps them near the cap), collapsed as the in-process log collapses them. */
  list(payeeId: string): Promise<readonly SeenRequest[]> {
    return this.store.run(async (sql) => {
      const rows = await sql<{ repeat: string | null; entry: string }[]>`
        SELECT repeat_key AS repeat, entry FROM payreq_readiness WHERE payee_id = ${payeeId} ORDER BY id`;
      return collapseRepeats(rows).map((row) => JSON.parse(row.entry) as SeenRequest);
    });
  }
}
