/** The journal on PostgreSQL: an answer text is kept once per merchant in payreq_answers (many polls share it), joined back in when read. */
import type postgres from 'postgres';
import { JOURNAL_CAP, type JournalEntry, journalEntryMatches, type JournalFilter, type JournalLog, type NewJournalEntry } from './journal-log.js';
import type { Run } from './postgres-connection.js';
import { JOURNAL_ID_LOCK } from './postgres-schema.js';
import { keepNewest, type TrimCounter } from './postgres-trims.js';
import type { PostgresTurnWriter } from './postgres-turn.js';
import { answerTextBytes, journalEntryBytes } from './storage-quota.js';

/** Texts no entry refers to go under the merchant's journal lock, which a turn writing one holds (postgres-turn.ts): never one still referred to. */
export async function trimJournal(sql: postgres.Sql, payeeId: string): Promise<void> {
  await keepNewest(sql, 'payreq_journal', 'entry_id', payeeId, JOURNAL_CAP);
  await sql.begin((tx) => [
    tx`SELECT pg_advisory_xact_lock(${JOURNAL_ID_LOCK}::int, hashtext(${payeeId}))`,
    tx`
      DELETE FROM payreq_answers a WHERE a.payee_id = ${payeeId}
        AND NOT EXISTS (SELECT 1 FROM payreq_journal j WHERE j.payee_id = ${payeeId} AND j.answer_ref = a.ref)`,
  ]);
}

/** Entries go through the turn writer (postgres-turn.ts): a turn's entries and evidence in one statement. */
export class PostgresJournalLog implements JournalLog {
  constructor(
    private readonly store: { run: Run },
    private readonly writer: PostgresTurnWriter,
    private readonly trims: TrimCounter,
  ) {}

  append(payeeId: string, entry: NewJournalEntry): Promise<void> {
    if (entry.answerRef === undefined) return this.writer.journal(payeeId, JSON.stringify(entry), journalEntryBytes(entry));
    const { answerRef, responseBody, ...rest } = entry;
    // No answer to refer to: kept as an entry of its own, as the in-process journal keeps it.
    if (responseBody === null) return this.append(payeeId, { ...rest, responseBody });
    return this.writer.journal(payeeId, JSON.stringify(rest), journalEntryBytes(entry), { ref: answerRef, text: responseBody, bytes: answerTextBytes(responseBody) });
  }

  /** Filtered here, like the in-process journal, over the newest JOURNAL_CAP entries (what the journal holds). */
  list(payeeId: string, filter: JournalFilter): Promise<JournalEntry[]> {
    return this.store.run(async (sql) => {
      const out: JournalEntry[] = [];
      const rows = await sql<{ id: string; entry: string; ref: string | null; answer: string | null }[]>`
        SELECT j.entry_id AS id, j.entry, j.answer_ref AS ref, a.body AS answer
        FROM payreq_journal j LEFT JOIN payreq_answers a ON a.payee_id = j.payee_id AND a.ref = j.answer_ref
        WHERE j.payee_id = ${payeeId} ORDER BY j.entry_id DESC LIMIT ${JOURNAL_CAP}`;
      for (const row of rows) {
        const entry: JournalEntry = { id: Number(row.id), ...(JSON.parse(row.entry) as NewJournalEntry) };
        if (!journalEntryMatches(entry, filter)) continue;
        out.push(row.ref === null ? entry : { ...entry, answerRef: row.ref, responseBody: row.answer === null ? null : (JSON.parse(row.answer) as string) });
        if (out.length >= filter.limit) break;
      }
      return out;
    });
  }

  /** The answer texts only its entries referred to go with the merchant's next trim, in the background. */
  clear(payeeId: string): Promise<number> {
    return this.store.run(async (sql) => {
      const { count } = await sql`DELETE FROM payreq_journal WHERE payee_id = ${payeeId}`;
      this.trims.due(payeeId);
      return Math.min(count, JOURNAL_CAP);
    });
  }
}
