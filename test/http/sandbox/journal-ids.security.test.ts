/**
 * SPEC 18, other tenants stay invisible: a merchant's journal entry ids are its own count (1, 2,
 * 3...), so another merchant's traffic never shows as gaps; on every store, across a restart of
 * the file store and across instances on PostgreSQL.
 */
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createSandbox } from '../../../src/index.js';
import type { Sandbox, SandboxOptions } from '../../../src/index.js';
import { migrate } from '../../../src/store/postgres-schema.js';
import { freshDatabase } from '../../support/databases.js';
import { removeTempDirs, tempDir } from '../../support/files.js';
import { DEMO_KEY, call, createBody, enroll, expectEnvelope } from '../../support/http.js';

afterAll(removeTempDirs);

const opened: Sandbox[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

async function open(options: SandboxOptions): Promise<Sandbox> {
  const sandbox = await createSandbox({ scheduler: false, ...options });
  opened.push(sandbox);
  return sandbox;
}

const KINDS: readonly [string, () => Promise<SandboxOptions>][] = [
  ['memory', async () => ({ store: 'memory' })],
  ['file', async () => ({ store: 'file', dataFile: path.join(tempDir(), 'sandbox.json') })],
  ['postgres', async () => ({ store: 'postgres', url: await freshDatabase() })],
];

/** The merchant's journal ids, oldest first. */
async function journalIds(sandbox: Sandbox, key: string): Promise<number[]> {
  const answer = await call(sandbox, 'GET', '/sandbox/v1/requests?limit=500', { key });
  expectEnvelope(answer, 200);
  return (answer.body.requests as { id: number }[]).map((e) => e.id).reverse();
}

const countingFrom = (first: number, n: number) => Array.from({ length: n }, (_, i) => first + i);

describe.each(KINDS)('journal entry ids on the %s store', (_kind, options) => {
  it("count per merchant: A's ids are 1, 2, 3... while B makes requests in between", async () => {
    const sandbox = await open(await options());
    const b = (await enroll(sandbox)).api_key;
    for (let i = 0; i < 5; i++) {
      expectEnvelope(await call(sandbox, 'POST', '/openapi/v1/payments/payment', { body: createBody() }), 200);
      for (let j = 0; j <= i; j++) await call(sandbox, 'GET', '/sandbox/v1/payments', { key: b });
    }
    await call(sandbox, 'GET', '/sandbox/v1/clock');
    // Each read of the journal is itself journaled after it is answered: read A's, then B's.
    expect(await journalIds(sandbox, DEMO_KEY)).toEqual(countingFrom(1, 6));
    expect(await journalIds(sandbox, b)).toEqual(countingFrom(1, 15));
    expect(await journalIds(sandbox, DEMO_KEY)).toEqual(countingFrom(1, 7));
  });

  it('start again at 1 once the journal is erased, for that merchant only', async () => {
    const sandbox = await open(await options());
    const b = (await enroll(sandbox)).api_key;
    for (let i = 0; i < 3; i++) await call(sandbox, 'GET', '/sandbox/v1/clock');
    await call(sandbox, 'GET', '/sandbox/v1/clock', { key: b });
    expectEnvelope(await call(sandbox, 'DELETE', '/sandbox/v1/requests'), 200);
    await call(sandbox, 'GET', '/sandbox/v1/clock');
    // The DELETE is journaled once answered, so it is the first entry of the new count.
    expect(await journalIds(sandbox, DEMO_KEY)).toEqual([1, 2]);
    expect(await journalIds(sandbox, b)).toEqual([1]);
  });
});

describe('journal entry ids, restarted and shared', () => {
  it('the file store goes on from the last id after a restart, per merchant', async () => {
    const dataFile = path.join(tempDir(), 'sandbox.json');
    const first = await open({ store: 'file', dataFile });
    const b = (await enroll(first)).api_key;
    for (let i = 0; i < 3; i++) await call(first, 'GET', '/sandbox/v1/clock');
    await call(first, 'GET', '/sandbox/v1/clock', { key: b });
    await first.close();
    opened.splice(opened.indexOf(first), 1);

    const again = await open({ store: 'file', dataFile });
    await call(again, 'GET', '/sandbox/v1/clock');
    expect(await journalIds(again, DEMO_KEY)).toEqual(countingFrom(1, 4));
    expect(await journalIds(again, b)).toEqual([1]);
    expect(await journalIds(again, b)).toEqual([1, 2]);
  });

  it('on PostgreSQL, two instances number one merchant without a gap or a repeat, increasing in answer order', async () => {
    const url = await freshDatabase();
    const [one, two] = [await open({ store: 'postgres', url }), await open({ store: 'postgres', url })];
    const b = (await enroll(one)).api_key;
    const answered: string[] = [];
    for (let i = 0; i < 6; i++) {
      const through = i % 2 ? two : one;
      const answer = await call(through, 'GET', '/sandbox/v1/clock', { headers: { 'Request-Id': `seq-${i}` } });
      answered.push(answer.headers.get('request-id')!);
      await call(i % 2 ? one : two, 'GET', '/sandbox/v1/clock', { key: b });
    }
    // A burst through both instances at once: every id once, none skipped.
    await Promise.all(Array.from({ length: 40 }, (_, i) => call(i % 2 ? one : two, 'GET', '/sandbox/v1/clock', { key: i % 3 ? DEMO_KEY : b })));
    const entries = (await call(two, 'GET', '/sandbox/v1/requests?limit=500')).body.requests as { id: number; request_id: string }[];
    const ids = entries.map((e) => e.id).reverse();
    expect(ids).toEqual(countingFrom(1, ids.length));
    expect(ids.length).toBe(6 + 26);
    // The sequential requests, in the order they were answered, have the first ids.
    expect(entries.slice(-6).reverse().map((e) => e.request_id)).toEqual(answered);
    expect(await journalIds(one, b)).toEqual(countingFrom(1, 6 + 14));
  });

  it('a PostgreSQL journal of schema version 3 keeps its entries and ids; new ones follow each merchant\'s last', async () => {
    const url = await freshDatabase();
    const admin = postgres(url, { max: 1, onnotice: () => {} });
    const entry = (path: string) => JSON.stringify({ at: 1, method: 'GET', path, alias: false, status: 200, code: 200, requestBody: null, responseBody: null, latencyMs: 1, fault: null, warnings: [] });
    try {
      await migrate(admin, 'test', 3);
      // Ids of version 3 counted across the sandbox: DEMO-MERCHANT-1 holds 1 and 3, another 2, 4 and 5.
      await admin`INSERT INTO payreq_journal (payee_id, entry) VALUES ('DEMO-MERCHANT-1', ${entry('/old/1')}), ('OTHER', ${entry('/old/2')}), ('DEMO-MERCHANT-1', ${entry('/old/3')}), ('OTHER', ${entry('/old/4')}), ('OTHER', ${entry('/old/5')})`;
    } finally {
      await admin.end();
    }
    const sandbox = await open({ store: 'postgres', url });
    await call(sandbox, 'GET', '/sandbox/v1/clock');
    const entries = (await call(sandbox, 'GET', '/sandbox/v1/requests')).body.requests as { id: number; path: string }[];
    expect(entries.map((e) => [e.id, e.path])).toEqual([[4, '/sandbox/v1/clock'], [3, '/old/3'], [1, '/old/1']]);
  });
});
