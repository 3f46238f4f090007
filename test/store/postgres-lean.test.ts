/**
 * The PostgreSQL store's lean path (SPEC 20): a turn's journal entries and readiness evidence go
 * in one statement, and the bounded tables are trimmed by a timer, never on a request's statement.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { apiKeyHash } from '../../src/domain/ids.js';
import { DEFAULT_SETTINGS } from '../../src/domain/merchant.js';
import type { SeenRequest } from '../../src/domain/readiness.js';
import { DELIVERY_LOG_CAP } from '../../src/store/delivery-log.js';
import type { Delivery } from '../../src/store/delivery-log.js';
import { PostgresStore } from '../../src/store/postgres-store.js';
import { PostgresTrims, TRIMS_PER_RUN } from '../../src/store/postgres-trims.js';
import { StoreUnavailableError } from '../../src/store/unavailable.js';
import { freshDatabase } from '../support/databases.js';
import { capturedLog, LEVEL } from '../support/log.js';
import { aPayment } from '../support/payments.js';
import { until } from '../support/until.js';

const opened: PostgresStore[] = [];
afterAll(async () => {
  for (const s of opened) await s.close();
});

async function store(url?: string): Promise<PostgresStore> {
  const s = new PostgresStore({ url: url ?? (await freshDatabase()) });
  opened.push(s);
  await s.open();
  await s.saveMerchant({
    payeeId: 'M1', name: 'M1', city: 'Singapore', countryCode: 'SG', mcc: '5812', homeCurrency: 'SGD', apiKeyHashes: [apiKeyHash('key-1')],
    signingSalt: 'salt', settings: DEFAULT_SETTINGS, clockOffsetMs: 0, createdAt: 0,
  });
  return s;
}

const entry = (i: number) => ({ at: i, method: 'GET', path: `/p/${i}`, alias: false, status: 200, code: 200, requestBody: null, responseBody: null, latencyMs: 1, fault: null, warnings: [] });

const seen = (i: number): SeenRequest => ({
  ref: `req-${i}`, at: i, answeredAt: i + 1, method: 'GET', path: '/openapi/v1/payments/payment/pay_1', alias: false, status: 200, fault: null, idempotencyKey: null,
  merchantRefNo: null, amount: null, signed: false, bodyDigest: null, paymentId: 'pay_1', paymentStatus: 'P', retryAfterSeconds: null,
});

const delivery = (i: number): Delivery => ({
  id: `dlv_${String(i).padStart(6, '0')}`, payeeId: 'M1', eventId: `evt_${i}`, eventType: 'payment.created', paymentId: 'pay_1', url: 'https://example.test/hook',
  body: '{}', state: 'delivered', attempts: [], attempt: 0, nextAttemptAt: null, createdAt: i,
});

async function count(s: PostgresStore, table: string): Promise<number> {
  return s.run(async (sql) => (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM ${sql(table)} WHERE payee_id = 'M1'`)[0]!.n);
}

describe('PostgreSQL: the lean path', () => {
  it("writes a turn's journal entries and evidence in one call, and both are read after it", async () => {
    const s = await store();
    const run = vi.spyOn(s, 'run');
    await Promise.all([s.journal.append('M1', entry(1)), s.readiness.add('M1', seen(1), null), s.journal.append('M1', entry(2)), s.readiness.add('M1', seen(2), null)]);
    expect(run).toHaveBeenCalledTimes(1);
    run.mockRestore();
    expect((await s.journal.list('M1', { limit: 10 })).map((e) => e.path)).toEqual(['/p/2', '/p/1']);
    expect((await s.readiness.list('M1')).map((e) => e.ref)).toEqual(['req-1', 'req-2']);
  });

  it('trims no table on the statement that adds to it; the timer trims them to the caps', async () => {
    const s = await store();
    s.trims.stop();
    for (let i = 0; i < DELIVERY_LOG_CAP + 60; i += 20) await s.deliveries.record(Array.from({ length: 20 }, (_, j) => delivery(i + j)));
    for (let i = 0; i < 600; i += 50) await Promise.all(Array.from({ length: 50 }, (_, j) => s.journal.append('M1', entry(i + j))));
    // Nothing was deleted while adding: every row is there until the trims run.
    expect([await count(s, 'payreq_deliveries'), await count(s, 'payreq_journal')]).toEqual([DELIVERY_LOG_CAP + 60, 600]);
    await s.trims.runAll();
    expect([await count(s, 'payreq_deliveries'), await count(s, 'payreq_journal')]).toEqual([DELIVERY_LOG_CAP, 500]);
  }, 60_000);

  it('runs due trims from its timer, unasked', async () => {
    const s = await store();
    for (let i = 0; i < DELIVERY_LOG_CAP + 60; i += 20) await s.deliveries.record(Array.from({ length: 20 }, (_, j) => delivery(i + j)));
    await until(async () => ((await count(s, 'payreq_deliveries')) === DELIVERY_LOG_CAP ? true : undefined), 'the timer to trim the deliveries');
  }, 30_000);

  it("a turn's status reads go to the database in one statement, each answered for its own key and payment", async () => {
    const s = await store();
    await s.saveMerchant({
      payeeId: 'M2', name: 'M2', city: 'Singapore', countryCode: 'SG', mcc: '5812', homeCurrency: 'SGD', apiKeyHashes: [apiKeyHash('key-2')],
      signingSalt: 'salt', settings: DEFAULT_SETTINGS, clockOffsetMs: 0, createdAt: 0,
    });
    const mine = aPayment({ payeeId: 'M1' });
    const theirs = aPayment({ payeeId: 'M2', id: 'pay_1123456789ABCDEFGHIJKL', token: 'ptok_1123456789abcdefghijklmnopqrstuv', code: 'BBCD2345WXYZ', merchantRefNo: 'order-2' });
    for (const p of [mine, theirs]) expect(await s.insertPayment(p)).toBe('inserted');
    const run = vi.spyOn(s, 'run');
    const reads = await Promise.all([
      s.keyedPayment('key-1', mine.id),
      s.keyedPayment('key-2', theirs.id),
      s.keyedPayment('key-1', theirs.id),
      s.keyedPayment('no-such-key', mine.id),
      s.keyedPayment('key-2', 'pay_missing'),
      s.keyedPayment('key-1', mine.id),
    ]);
    expect(run).toHaveBeenCalledTimes(1);
    // Another merchant's payment reads as none, as a payment that does not exist.
    expect(reads.map((r) => r && [r.merchant.payeeId, r.payment?.id])).toEqual([['M1', mine.id], ['M2', theirs.id], ['M1', undefined], undefined, ['M2', undefined], ['M1', mine.id]]);
    run.mockRestore();
  }, 30_000);

  it("a status read's copies of merchant and payment serve only while the same statement proves them current", async () => {
    const url = await freshDatabase();
    const [a, b] = [await store(url), await store(url)];
    const p = aPayment({ payeeId: 'M1' });
    expect(await a.insertPayment(p)).toBe('inserted');
    const first = await a.keyedPayment('key-1', p.id);
    const again = await a.keyedPayment('key-1', p.id);
    // Unchanged: the same objects, no document sent or parsed.
    expect(again!.merchant).toBe(first!.merchant);
    expect(again!.payment).toBe(first!.payment);
    // Changed through another instance: the new documents, at once.
    await b.updateMerchant('M1', (m) => [{ ...m, clockOffsetMs: 60_000 }, null] as const);
    expect(await b.updatePayment({ ...p, status: 'W', version: p.version + 1 }, p.version)).toBe(true);
    const changed = await a.keyedPayment('key-1', p.id);
    expect(changed!.merchant.clockOffsetMs).toBe(60_000);
    expect(changed!.payment).toMatchObject({ status: 'W', version: p.version + 1 });
    // Erased, and a key taken away: nothing, as from an empty store.
    await b.resetMerchant('M1');
    expect((await a.keyedPayment('key-1', p.id))!.payment).toBeUndefined();
    await b.updateMerchant('M1', (m) => [{ ...m, apiKeyHashes: [apiKeyHash('key-2')] }, null] as const);
    expect(await a.keyedPayment('key-1', p.id)).toBeUndefined();
    expect((await a.keyedPayment('key-2', p.id))!.merchant.apiKeyHashes).toEqual([apiKeyHash('key-2')]);
  }, 30_000);

  it(`runs at most ${TRIMS_PER_RUN} due trims per timer run, the rest on the next`, async () => {
    const trimmed: string[] = [];
    const trims = new PostgresTrims(async (query) => query(undefined as never), capturedLog().log);
    try {
      const counter = trims.counter(async (_sql, payeeId) => trimmed.push(payeeId), 2);
      for (let i = 0; i < TRIMS_PER_RUN + 4; i++) counter.note(`M${i}`, 2);
      counter.note('M0', 1); // below its count: not due again
      await until(() => (trimmed.length > 0 ? true : undefined), 'the first timer run');
      expect(trimmed).toEqual(Array.from({ length: TRIMS_PER_RUN }, (_, i) => `M${i}`));
      await until(() => (trimmed.length > TRIMS_PER_RUN ? true : undefined), 'the second timer run');
      expect(trimmed.slice(TRIMS_PER_RUN)).toEqual(Array.from({ length: 4 }, (_, i) => `M${TRIMS_PER_RUN + i}`));
    } finally {
      trims.stop();
    }
  });

  it('a trim that fails is said in one warn line (one lost to an outage is not: the store said that once)', async () => {
    const captured = capturedLog();
    const trims = new PostgresTrims(async (query) => query(undefined as never), captured.log);
    try {
      const counter = trims.counter(async (_sql, payeeId) => {
        throw payeeId === 'M1' ? Object.assign(new Error('relation "journal" does not exist'), { code: '42P01' }) : new StoreUnavailableError('the database cannot be reached (ECONNREFUSED)', false);
      }, 1);
      counter.note('M1');
      counter.note('M2');
      await trims.runAll();
      expect(captured.events()).toEqual([
        { level: LEVEL.warn, time: expect.any(Number), payee_id: 'M1', err: 'relation "journal" does not exist', code: '42P01', msg: 'store trim failed (the next rows added make it due again)' },
      ]);
    } finally {
      trims.stop();
    }
  });
});
