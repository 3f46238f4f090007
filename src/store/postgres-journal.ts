/** The request journal of the PostgreSQL store: a table every instance shares. */
import type { JournalEntry, JournalFilter, JournalLog, NewJournalEntry } from './journal-log.js';
import { JOURNAL_CAP, journalEntryMatches } from './journal-log.js';
import type { Run } from './postgres-connection.js';

/** Trim a merchant's journal to the cap after this many appends of this instance. */
const JOURNAL_TRIM_EVERY = 50;

/**
 * Entries of one event-loop turn go in one multi-row INSERT, committed without waiting for the
 * disk (synchronous_commit off, for these rows only): the journal is a record of requests, and
 * one that a database crash may cut short by its last moments, unlike payments. Each caller still
 * waits for its batch, so a journal read after an answer shows the answer. A trigger numbers each
 * row per merchant (entry_id, postgres-schema.ts) under a per-merchant lock held until commit.
 */
export class PostgresJournalLog implements JournalLog {
  private readonly appendsSinceTrim = new Map<string, number>();
  private batch: { rows: { payee_id: string; entry: string }[]; written: Promise<void> } | null = null;

  constructor(private readonly store: { run: Run }) {}

  append(payeeId: string, entry: NewJournalEntry): Promise<void> {
    let batch = this.batch;
    if (!batch) {
      const rows: { payee_id: string; entry: string }[] = [];
      const written = new Promise<void>((resolve, reject) => setImmediate(() => this.flush(rows).then(resolve, reject)));
      batch = this.batch = { rows, written };
    }
    batch.rows.push({ payee_id: payeeId, entry: JSON.stringify(entry) });
    return batch.written;
  }

  private async flush(rows: { payee_id: string; entry: string }[]): Promise<void> {
    this.batch = null;
    const payees = rows.map((r) => r.payee_id);
    const entries = rows.map((r) => r.entry);
    // Rows in the order of the merchants' locks (then as appended): two instances' batches never wait on each other in a cycle.
    await this.store.run((sql) =>
      sql.begin((tx) => [
        tx`SET LOCAL synchronous_commit = off`,
        tx`
          INSERT INTO payreq_journal (payee_id, entry)
          SELECT payee_id, entry FROM unnest(${payees}::text[], ${entries}::text[]) WITH ORDINALITY AS r(payee_id, entry, n)
          ORDER BY hashtext(payee_id), n`,
      ]),
    );
    for (const { payee_id: payeeId } of rows) {
      const appends = (this.appendsSinceTrim.get(payeeId) ?? 0) + 1;
      this.appendsSinceTrim.set(payeeId, appends % JOURNAL_TRIM_EVERY);
      // Reads look at the newest JOURNAL_CAP only, so the trim bounds the table, not what is seen: nobody waits for it.
      if (appends >= JOURNAL_TRIM_EVERY) void this.trim(payeeId).catch(() => undefined);
    }
  }

  private async trim(payeeId: string): Promise<void> {
    await this.store.run(
      (sql) => sql`
        DELETE FROM payreq_journal WHERE payee_id = ${payeeId} AND entry_id < (
          SELECT entry_id FROM payreq_journal WHERE payee_id = ${payeeId} ORDER BY entry_id DESC OFFSET ${JOURNAL_CAP - 1} LIMIT 1)`,
    );
  }

  /** Filtered here, like the in-process journal, over the newest JOURNAL_CAP entries (what the journal holds). */
  list(payeeId: string, filter: JournalFilter): Promise<JournalEntry[]> {
    return this.store.run(async (sql) => {
      const out: JournalEntry[] = [];
      const rows = await sql<{ id: string; entry: string }[]>`
        SELECT entry_id AS id, entry FROM payreq_journal WHERE payee_id = ${payeeId} ORDER BY entry_id DESC LIMIT ${JOURNAL_CAP}`;
      for (const row of rows) {
        const entry: JournalEntry = { id: Number(row.id), ...(JSON.parse(row.entry) as NewJournalEntry) };
        if (!journalEntryMatches(entry, filter)) continue;
        out.push(entry);
        if (out.length >= filter.limit) break;
      }
      return out;
    });
  }

  clear(payeeId: string): Promise<number> {
    return this.store.run(async (sql) => {
      const [row] = await sql<{ n: number }[]>`
        WITH gone AS (DELETE FROM payreq_journal WHERE payee_id = ${payeeId} RETURNING id)
        SELECT least(count(*), ${JOURNAL_CAP})::int AS n FROM gone`;
      return row?.n ?? 0;
    });
  }
}
