import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { apiKeyHash } from '../../src/domain/ids.js';
import { DEFAULT_SETTINGS } from '../../src/domain/merchant.js';
import type { Merchant } from '../../src/domain/merchant.js';
import { FileStore } from '../../src/store/file-store.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { PostgresStore } from '../../src/store/postgres-store.js';
import type { Store } from '../../src/store/store.js';
import { freshDatabase } from '../support/databases.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { aPayment } from '../support/payments.js';
import { storedPayments } from '../support/payment-counts.js';

afterAll(removeTempDirs);

function merchant(payeeId: string, apiKey: string): Merchant {
  return {
    payeeId, name: payeeId, city: 'Singapore', countryCode: 'SG', mcc: '5812', homeCurrency: 'SGD', apiKeyHashes: [apiKeyHash(apiKey)],
    signingSalt: 'salt', settings: DEFAULT_SETTINGS, clockOffsetMs: 0, createdAt: 0,
  };
}

let n = 0;
function payment(payeeId: string, overrides: Parameters<typeof aPayment>[0] = {}) {
  n++;
  const tag = String(n).padStart(6, '0');
  return aPayment({ id: `pay_store${tag}AAAAAAAAAAAAA`, token: `ptok_store${tag}aaaaaaaaaaaaaaaaaaaaaa`, code: `C0DE${tag}AA`, merchantRefNo: `ref-${tag}`, payeeId, ...overrides });
}

const KINDS: readonly [string, () => Promise<Store>][] = [
  ['MemoryStore', async () => new MemoryStore()],
  ['FileStore', async () => new FileStore({ dataFile: path.join(tempDir(), 'store.json') })],
  ['PostgresStore', async () => new PostgresStore({ url: await freshDatabase() })],
];

describe.each(KINDS)('the Store contract: %s', (_kind, make) => {
  let store: Store;
  beforeEach(async () => {
    store = await make();
    await store.open();
    await store.saveMerchant(merchant('M1', 'key-1'));
    await store.saveMerchant(merchant('M2', 'key-2'));
  });
  afterEach(() => store.close());

  it('finds merchants by key and by payee id', async () => {
    expect((await store.merchantByKey('key-2'))?.payeeId).toBe('M2');
    expect(await store.merchantByKey('nope')).toBeUndefined();
    expect((await store.merchant('M1'))?.apiKeyHashes).toEqual([apiKeyHash('key-1')]);
    expect([...(await store.merchantIds())].sort()).toEqual(['M1', 'M2']);
  });

  it('a changed key replaces the old one', async () => {
    await store.saveMerchant(merchant('M1', 'key-1b'));
    expect(await store.merchantByKey('key-1')).toBeUndefined();
    expect((await store.merchantByKey('key-1b'))?.payeeId).toBe('M1');
  });

  it('inserts a payment and finds it by id, reference and token, for its merchant only', async () => {
    const p = payment('M1');
    expect(await store.insertPayment(p)).toBe('inserted');
    expect(await store.payment('M1', p.id)).toEqual(p);
    expect(await store.payment('M2', p.id)).toBeUndefined();
    expect((await store.paymentByRef('M1', p.merchantRefNo))?.id).toBe(p.id);
    expect(await store.paymentByRef('M2', p.merchantRefNo)).toBeUndefined();
    expect((await store.paymentByToken(p.token))?.id).toBe(p.id);
  });

  it('refuses a duplicate reference per merchant, and a duplicate code anywhere', async () => {
    const p = payment('M1');
    await store.insertPayment(p);
    expect(await store.insertPayment({ ...payment('M1'), merchantRefNo: p.merchantRefNo })).toBe('duplicate_ref');
    expect(await store.insertPayment({ ...payment('M2'), merchantRefNo: p.merchantRefNo })).toBe('inserted');
    expect(await store.insertPayment({ ...payment('M2'), code: p.code })).toBe('duplicate_code');
    expect(await storedPayments(store, 'M1')).toBe(1);
  });

  it('updates by compare-and-set on version: a stale writer loses', async () => {
    const p = payment('M1');
    await store.insertPayment(p);
    const first = { ...p, status: 'W' as const, version: 2 };
    const second = { ...p, status: 'V' as const, version: 2 };
    expect(await store.updatePayment(first, 1)).toBe(true);
    expect(await store.updatePayment(second, 1)).toBe(false);
    expect((await store.payment('M1', p.id))?.status).toBe('W');
    expect(await store.updatePayment({ ...p, payeeId: 'M2', version: 3 }, 2)).toBe(false);
  });

  it('lists newest first with filters and paging, and counts per merchant', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const p = payment('M1', { status: i % 2 === 0 ? 'P' : 'W' });
      ids.push(p.id);
      await store.insertPayment(p);
    }
    await store.insertPayment(payment('M2'));
    const all = await store.listPayments('M1', { limit: 10, offset: 0 });
    expect(all.total).toBe(5);
    expect(all.items.map((p) => p.id)).toEqual([...ids].reverse());
    const page = await store.listPayments('M1', { limit: 2, offset: 1 });
    expect(page.items.map((p) => p.id)).toEqual([ids[3], ids[2]]);
    const waiting = await store.listPayments('M1', { status: 'W', limit: 10, offset: 0 });
    expect(waiting.items.map((p) => p.id)).toEqual([ids[3], ids[1]]);
    expect(await storedPayments(store, 'M1')).toBe(5);
  });

  it('keeps the live set to P, W and paid-unsettled payments', async () => {
    const open = payment('M1');
    const paid = payment('M1', { status: 'A' });
    const settled = payment('M1', { status: 'A', settled: true });
    const voided = payment('M1', { status: 'V' });
    for (const p of [open, paid, settled, voided]) await store.insertPayment(p);
    expect((await store.livePayments('M1')).map((p) => p.id).sort()).toEqual([open.id, paid.id].sort());
    await store.updatePayment({ ...open, status: 'E', version: 2 }, 1);
    expect((await store.livePayments('M1')).map((p) => p.id)).toEqual([paid.id]);
  });

  it("reset erases one merchant's payments and frees their references, nothing else", async () => {
    const mine = payment('M1');
    const theirs = payment('M2');
    await store.insertPayment(mine);
    await store.insertPayment(theirs);
    await store.journal.append('M1', { at: 1, method: 'GET', path: '/x', alias: false, status: 200, code: 200, requestBody: null, responseBody: null, latencyMs: 1, fault: null, warnings: [] });
    await store.updateMerchant('M1', (m) => [{ ...m, clockOffsetMs: 5000, faultRules: [{ id: 'fr_1', match: { method: 'GET', path: '*' }, fault: 'error=500', probability: 1, timesLeft: null, seed: 1, matched: 0, fired: 0, createdAt: 0 }] }, null] as const);
    expect(await store.resetMerchant('M1')).toBe(1);
    expect(await store.journal.list('M1', { limit: 10 })).toEqual([]);
    expect(await store.merchant('M1')).toMatchObject({ clockOffsetMs: 0, faultRules: [] });
    expect(await storedPayments(store, 'M1')).toBe(0);
    expect(await store.payment('M1', mine.id)).toBeUndefined();
    expect(await store.paymentByToken(mine.token)).toBeUndefined();
    expect(await store.insertPayment({ ...payment('M1'), merchantRefNo: mine.merchantRefNo })).toBe('inserted');
    expect(await store.payment('M2', theirs.id)).toEqual(theirs);
    expect((await store.merchantByKey('key-1'))?.payeeId).toBe('M1');
  });

  it('applies concurrent merchant changes one at a time: none is lost', async () => {
    const bumps = Array.from({ length: 20 }, () =>
      store.updateMerchant('M1', (m) => [{ ...m, clockOffsetMs: m.clockOffsetMs + 1000 }, m.clockOffsetMs] as const),
    );
    const seen = (await Promise.all(bumps)).map((done) => done!.result);
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i * 1000));
    expect((await store.merchant('M1'))?.clockOffsetMs).toBe(20_000);
    expect(await store.updateMerchant('nobody', (m) => [m, 1] as const)).toBeUndefined();
  });

  it('a merchant change that throws stores nothing', async () => {
    await expect(store.updateMerchant('M1', () => { throw new Error('refused'); })).rejects.toThrow('refused');
    expect(await store.merchant('M1')).toMatchObject({ clockOffsetMs: 0 });
    expect((await store.updateMerchant('M1', (m) => [null, m.payeeId] as const))?.result).toBe('M1');
  });

  it('answers the ids whose expiry, delayed payer or cut-off is due, for that merchant only', async () => {
    const soon = payment('M1', { expiresAt: 1_000 });
    const later = payment('M1', { expiresAt: 5_000 });
    const paysLater = payment('M1', { status: 'W', payDueAt: 2_000, expiresAt: 9_000 });
    const paid = payment('M1', { status: 'A', paidAt: 10, expiresAt: 900 });
    const theirs = payment('M2', { expiresAt: 1_000 });
    const theirsPaid = payment('M2', { status: 'A', paidAt: 10, expiresAt: 900 });
    for (const p of [soon, later, paysLater, paid, theirs, theirsPaid]) await store.insertPayment(p);
    expect(await store.dueIds('M1', 999, true)).toEqual([]);
    expect([...(await store.dueIds('M1', 2_000, true))].sort()).toEqual([soon.id, paysLater.id].sort());
    // A paid payment settles at the next UTC midnight, only for a merchant that auto-settles.
    expect(await store.dueIds('M1', 86_400_000, true)).toContain(paid.id);
    expect(await store.dueIds('M2', 86_400_000, false)).toEqual([theirs.id]);
  });

  it('names the merchants with work due on their own clock', async () => {
    await store.insertPayment(payment('M1', { expiresAt: 5_000 }));
    await store.insertPayment(payment('M2', { expiresAt: 50_000 }));
    expect(await store.merchantsWithDueWork(5_000)).toContain('M1');
    // M2's clock runs 60 s ahead: its payment is due by its own clock already.
    await store.updateMerchant('M2', (m) => [{ ...m, clockOffsetMs: 60_000 }, null] as const);
    expect([...(await store.merchantsWithDueWork(5_000))].sort()).toEqual(['M1', 'M2']);
  });

  it('keeps the journal per merchant, newest first, filtered and bounded', async () => {
    const entry = (path: string, status: number) => ({
      at: 1, method: 'GET', path, alias: false, status, code: status, requestBody: null, responseBody: '{"code":200}', latencyMs: 1, fault: null, warnings: [],
    });
    for (let i = 0; i < 3; i++) await store.journal.append('M1', entry(`/a/${i}`, i === 1 ? 404 : 200));
    await store.journal.append('M2', entry('/theirs', 200));
    const mine = await store.journal.list('M1', { limit: 10 });
    expect(mine.map((e) => e.path)).toEqual(['/a/2', '/a/1', '/a/0']);
    expect(mine[0]!.id).toBeGreaterThan(mine[1]!.id);
    expect((await store.journal.list('M1', { limit: 10, status: 404 })).map((e) => e.path)).toEqual(['/a/1']);
    expect((await store.journal.list('M1', { limit: 10, path: 'a/0' })).map((e) => e.path)).toEqual(['/a/0']);
    expect((await store.journal.list('M1', { limit: 1 })).map((e) => e.path)).toEqual(['/a/2']);
    expect(await store.journal.clear('M1')).toBe(3);
    expect(await store.journal.list('M1', { limit: 10 })).toEqual([]);
    expect(await store.journal.list('M2', { limit: 10 })).toHaveLength(1);
  });

  it('numbers each merchant\'s journal 1, 2, 3... of its own, and keeps the newest 500 with their ids', async () => {
    const entry = (path: string) => ({ at: 1, method: 'GET', path, alias: false, status: 200, code: 200, requestBody: null, responseBody: null, latencyMs: 1, fault: null, warnings: [] });
    for (let i = 1; i <= 520; i += 20) {
      // Twenty of M1's a turn, with one of M2's among them: one batch on PostgreSQL.
      await Promise.all([...Array.from({ length: 20 }, (_, j) => store.journal.append('M1', entry(`/m1/${i + j}`))), store.journal.append('M2', entry(`/m2/${i}`))]);
    }
    const mine = await store.journal.list('M1', { limit: 1_000 });
    expect(mine.map((e) => e.id)).toEqual(Array.from({ length: 500 }, (_, i) => 520 - i));
    expect(mine.map((e) => e.path)).toEqual(Array.from({ length: 500 }, (_, i) => `/m1/${520 - i}`));
    expect((await store.journal.list('M2', { limit: 100 })).map((e) => e.id)).toEqual(Array.from({ length: 26 }, (_, i) => 26 - i));
    await store.journal.append('M1', entry('/m1/521'));
    expect((await store.journal.list('M1', { limit: 1 }))[0]).toMatchObject({ id: 521, path: '/m1/521' });
  });

  it('counts requests per merchant in a sliding one-second window', async () => {
    const at = 1_700_000_000_000;
    const waits = [];
    for (let i = 0; i < 4; i++) waits.push(await store.rateWindows.take('M1', 3, 1000, at + i));
    expect(waits).toEqual([0, 0, 0, 1]);
    expect(await store.rateWindows.take('M2', 3, 1000, at)).toBe(0);
    expect(await store.rateWindows.take('M1', 3, 1000, at + 1000)).toBe(0);
    // A minute's window: the wait is until the request that passed leaves it, a minute after it.
    const minute = 1_700_000_080_000; // 40 s into a minute
    expect(await store.rateWindows.take('ip:1', 1, 60_000, minute)).toBe(0);
    expect(await store.rateWindows.take('ip:1', 1, 60_000, minute + 1)).toBe(60);
  });

  it('is ready while open, and says so no more once closed', async () => {
    await expect(store.ready()).resolves.toBeUndefined();
    await store.close();
    await expect(store.ready()).rejects.toThrow(/closed/);
  });
});
