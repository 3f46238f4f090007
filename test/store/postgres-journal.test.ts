/**
 * The journal on PostgreSQL: numbered per merchant by the database (entry_id), trimmed in the
 * background to about the newest 500 of each merchant, and numbered on when erased rows are gone.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { JOURNAL_CAP } from '../../src/store/journal-log.js';
import type { NewJournalEntry } from '../../src/store/journal-log.js';
import { JOURNAL_ID_LOCK } from '../../src/store/postgres-schema.js';
import { PostgresStore } from '../../src/store/postgres-store.js';
import { freshDatabase } from '../support/databases.js';
import { until } from '../support/until.js';

const opened: PostgresStore[] = [];
afterAll(async () => {
  for (const s of opened) await s.close();
});

async function store(url: string): Promise<PostgresStore> {
  const s = new PostgresStore({ url });
  opened.push(s);
  await s.open();
  return s;
}

const entry = (path: string): NewJournalEntry => ({ at: 1, method: 'GET', path, alias: false, status: 200, code: 200, requestBody: null, responseBody: null, latencyMs: 1, fault: null, warnings: [] });

/** A status answer, with what a text column could not hold (a NUL) and what JSON escapes. */
const TEXT = `${JSON.stringify({ code: 200, payment_status: 'P', note: 'ü"\\'.repeat(200) })}\u0000`;
const read = (i: number): NewJournalEntry => ({ ...entry('/openapi/v1/payments/payment/pay_1'), at: i, responseBody: TEXT, answerRef: 'pay_1@1' });

const count = (s: PostgresStore, query: string) => s.run(async (sql) => (await sql.unsafe<{ n: number }[]>(query))[0]!.n);

describe('PostgreSQL: the journal', () => {
  it('two instances appending at once number a merchant 1..n without a repeat; the table is trimmed to about the cap', async () => {
    const url = await freshDatabase();
    const [a, b] = [await store(url), await store(url)];
    for (let i = 0; i < 600; i += 30) {
      await Promise.all(Array.from({ length: 30 }, (_, j) => ((i + j) % 2 ? a : b).journal.append('M1', entry(`/p/${i + j}`))));
    }
    const kept = await a.journal.list('M1', { limit: 1_000 });
    expect(kept.map((e) => e.id)).toEqual(Array.from({ length: JOURNAL_CAP }, (_, i) => 600 - i));
    const rows = () => a.run(async (sql) => (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM payreq_journal WHERE payee_id = 'M1'`)[0]!.n);
    // Trims run in the background after every 50 appends of an instance.
    await until(async () => ((await rows()) <= JOURNAL_CAP + 50 ? true : undefined), 'the trim');
    expect(await b.journal.clear('M1')).toBe(JOURNAL_CAP);
    await b.journal.append('M1', entry('/after-clear'));
    expect((await a.journal.list('M1', { limit: 10 })).map((e) => e.id)).toEqual([1]);
  }, 30_000);

  it('entries that refer to one answer text keep it once; another instance reads every entry with it', async () => {
    const url = await freshDatabase();
    const [a, b] = [await store(url), await store(url)];
    // Both instances at once (each turn writes the text, the second finds it kept), then one by one.
    await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).journal.append('M1', read(i))));
    for (let i = 10; i < 20; i++) await (i % 2 ? a : b).journal.append('M1', read(i));
    // An append resolves once written: a read through either instance right after shows it.
    for (const reader of [a, b]) {
      const seen = await reader.journal.list('M1', { limit: 100 });
      // The first ten numbered as their turns committed, the last ten in order.
      expect(seen.map((e) => e.at).slice(0, 10)).toEqual(Array.from({ length: 10 }, (_, i) => 19 - i));
      expect(seen.map((e) => e.at).sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i));
      expect(seen.every((e) => e.responseBody === TEXT && e.answerRef === 'pay_1@1')).toBe(true);
    }
    expect(await count(a, `SELECT count(*)::int AS n FROM payreq_answers`)).toBe(1);
    expect(await count(a, `SELECT count(*)::int AS n FROM payreq_journal WHERE strpos(entry, 'payment_status') > 0`)).toBe(0);
  }, 30_000);

  it("a request body holding a NUL is journaled, and does not take the turn's other entries with it", async () => {
    const a = await store(await freshDatabase());
    await Promise.all([a.journal.append('M1', { ...entry('/x'), requestBody: 'a\u0000b' }), a.journal.append('M2', entry('/y'))]);
    expect((await a.journal.list('M1', { limit: 10 })).map((e) => e.requestBody)).toEqual(['a\u0000b']);
    expect((await a.journal.list('M2', { limit: 10 })).map((e) => e.path)).toEqual(['/y']);
  });

  it("a trim deleting an unreferenced text while another instance's turn refers to it again: the turn keeps the text", async () => {
    const url = await freshDatabase();
    const [a, b] = [await store(url), await store(url)];
    await a.journal.append('M1', read(1));
    // The text kept, no entry left that refers to it (what the cap leaves before the trim runs).
    await a.run((sql) => sql`DELETE FROM payreq_journal WHERE payee_id = 'M1'`);
    // The trim's transaction (trimJournal), held open between its lock and its delete while b's turn starts: a turn that wrote
    // the text before taking the merchant's lock would find it kept (and write nothing), then the delete would take it.
    let appended: Promise<void> | undefined;
    await a.run((sql) =>
      sql.begin(async (tx) => {
        await tx`SELECT pg_advisory_xact_lock(${JOURNAL_ID_LOCK}::int, hashtext('M1'))`;
        appended = b.journal.append('M1', read(2));
        await until(async () => ((await count(b, `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%payreq_answers%'`)) > 0 ? true : undefined), "b's turn waiting for the lock");
        await tx`DELETE FROM payreq_answers a WHERE a.payee_id = 'M1' AND NOT EXISTS (SELECT 1 FROM payreq_journal j WHERE j.payee_id = 'M1' AND j.answer_ref = a.ref)`;
      }),
    );
    await appended;
    expect((await a.journal.list('M1', { limit: 10 })).map((e) => e.responseBody)).toEqual([TEXT]);
  }, 30_000);
});
