/** The request journal of the PostgreSQL store: a table every instance shares. */
import type postgres from 'postgres';
import type { JournalEntry, JournalFilter, JournalLog, NewJournalEntry } from './journal-log.js';
import { JOURNAL_CAP, journalEntryMatches } from './journal-log.js';
import type { Run } from './postgres-connection.js';
import type { PostgresTurnWriter } from './postgres-turn.js';

/** A merchant's journal is trimmed to the cap after this many appends of this instance (postgres-trims.ts). */
export const JOURNAL_TRIM_EVERY = 50;

/** Deletes the merchant's entries older than its newest JOURNAL_CAP. */
export function trimJournal(sql: postgres.Sql, payeeId: string): Promise<unknown> {
  return sql`
    DELETE FROM payreq_journal WHERE payee_id = ${payeeId} AND entry_id < (
      SELECT entry_id FROM payreq_journal WHERE payee_id = ${payeeId} ORDER BY entry_id DESC OFFSET ${JOURNAL_CAP - 1} LIMIT 1)`;
}

/** Entries go through the turn writer (postgres-turn.ts): a turn's entries and evidence in one statement. */
export class PostgresJournalLog implements JournalLog {
  constructor(
    private readonly store: { run: Run },
    private readonly writer: PostgresTurnWriter,
  ) {}

  append(payeeId: string, entry: NewJournalEntry): Promise<void> {
    return this.writer.journal(payeeId, JSON.stringify(entry));
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
