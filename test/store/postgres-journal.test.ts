/**
 * The journal on PostgreSQL: numbered per merchant by the database (entry_id), trimmed in the
 * background to about the newest 500 of each merchant, and numbered on when erased rows are gone.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { JOURNAL_CAP } from '../../src/store/journal-log.js';
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

const entry = (path: string) => ({ at: 1, method: 'GET', path, alias: false, status: 200, code: 200, requestBody: null, responseBody: null, latencyMs: 1, fault: null, warnings: [] });

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
});
