/**
 * The readiness evidence of the PostgreSQL store: a table every instance shares. Rows are only
 * inserted (the entries of one turn in one INSERT, without waiting for the disk, like the
 * journal's); repeats are collapsed where every instance's rows meet: when read
 * (collapseRepeats, as the in-process log keeps them) and, to bound the table, by a trim that
 * deletes the same rows.
 */
import type { SeenRequest } from '../domain/readiness.js';
import type { Run } from './postgres-connection.js';
import { collapseRepeats, READINESS_CAP } from './readiness-log.js';
import type { ReadinessLog } from './readiness-log.js';

/** Trim a merchant's evidence after this many entries of this instance. */
const TRIM_EVERY = 50;

interface Row {
  payee_id: string;
  repeat_key: string | null;
  entry: string;
}

export class PostgresReadinessLog implements ReadinessLog {
  private readonly addsSinceTrim = new Map<string, number>();
  private batch: { rows: Row[]; written: Promise<void> } | null = null;

  constructor(private readonly store: { run: Run }) {}

  add(payeeId: string, seen: SeenRequest, repeat: string | null): Promise<void> {
    let batch = this.batch;
    if (!batch) {
      const rows: Row[] = [];
      const written = new Promise<void>((resolve, reject) => setImmediate(() => this.flush(rows).then(resolve, reject)));
      batch = this.batch = { rows, written };
    }
    batch.rows.push({ payee_id: payeeId, repeat_key: repeat, entry: JSON.stringify(seen) });
    return batch.written;
  }

  private async flush(rows: Row[]): Promise<void> {
    this.batch = null;
    await this.store.run((sql) =>
      sql.begin((tx) => [tx`SET LOCAL synchronous_commit = off`, tx`INSERT INTO payreq_readiness ${tx(rows, 'payee_id', 'repeat_key', 'entry')}`]),
    );
    for (const { payee_id: payeeId } of rows) {
      const adds = (this.addsSinceTrim.get(payeeId) ?? 0) + 1;
      this.addsSinceTrim.set(payeeId, adds % TRIM_EVERY);
      // Reads collapse and cap what they read, so the trim bounds the table, not what is seen: nobody waits for it.
      if (adds >= TRIM_EVERY) void this.trim(payeeId).catch(() => undefined);
    }
  }

  /** Deletes what collapseRepeats leaves out: the middle rows of each key's repeats within a run, then all but the newest READINESS_CAP. */
  private async trim(payeeId: string): Promise<void> {
    await this.store.run((sql) =>
      sql.begin((tx) => [
        tx`
          WITH runs AS (
            SELECT id, repeat_key, count(*) FILTER (WHERE repeat_key IS NULL) OVER (ORDER BY id) AS run
            FROM payreq_readiness WHERE payee_id = ${payeeId}
          ), places AS (
            SELECT id, row_number() OVER (PARTITION BY run, repeat_key ORDER BY id) AS i, count(*) OVER (PARTITION BY run, repeat_key) AS n
            FROM runs WHERE repeat_key IS NOT NULL
          )
          DELETE FROM payreq_readiness WHERE id IN (SELECT id FROM places WHERE i > 1 AND i < n)`,
        tx`
          DELETE FROM payreq_readiness WHERE payee_id = ${payeeId} AND id < (
            SELECT id FROM payreq_readiness WHERE payee_id = ${payeeId} ORDER BY id DESC OFFSET ${READINESS_CAP - 1} LIMIT 1)`,
      ]),
    );
  }

  /** Every row of the merchant (the trim keeps them near the cap), collapsed as the in-process log collapses them. */
  list(payeeId: string): Promise<readonly SeenRequest[]> {
    return this.store.run(async (sql) => {
      const rows = await sql<{ repeat: string | null; entry: string }[]>`
        SELECT repeat_key AS repeat, entry FROM payreq_readiness WHERE payee_id = ${payeeId} ORDER BY id`;
      return collapseRepeats(rows).map((row) => JSON.parse(row.entry) as SeenRequest);
    });
  }

  async clear(payeeId: string): Promise<void> {
    await this.store.run((sql) => sql`DELETE FROM payreq_readiness WHERE payee_id = ${payeeId}`);
  }
}
