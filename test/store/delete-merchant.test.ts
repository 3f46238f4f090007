/**
 * Store.deleteMerchant on every store: the merchant, its keys and all it holds go, another
 * merchant's data stays as it was, and a restart (the file store's log replayed, or its
 * snapshot read; the same database) does not bring anything back.
 */
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { apiKeyHash } from '../../src/domain/ids.js';
import { DEFAULT_SETTINGS } from '../../src/domain/merchant.js';
import type { Merchant } from '../../src/domain/merchant.js';
import type { SeenRequest } from '../../src/domain/readiness.js';
import type { Delivery } from '../../src/store/delivery-log.js';
import { FileStore } from '../../src/store/file-store.js';
import type { NewJournalEntry } from '../../src/store/journal-log.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { PostgresStore } from '../../src/store/postgres-store.js';
import type { Store } from '../../src/store/store.js';
import { freshDatabase } from '../support/databases.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { aPayment } from '../support/payments.js';
import { storedPayments } from '../support/payment-counts.js';

afterAll(removeTempDirs);

function merchant(payeeId: string): Merchant {
  return {
    payeeId, name: payeeId, city: 'Singapore', countryCode: 'SG', mcc: '5812', homeCurrency: 'SGD', apiKeyHashes: [`key-${payeeId}`, `key2-${payeeId}`].map(apiKeyHash),
    signingSalt: 'salt', settings: DEFAULT_SETTINGS, clockOffsetMs: 60_000, createdAt: 0,
    faultRules: [{ id: 'rule_1', match: { method: 'GET', path: '*' }, fault: 'error=500', probability: 1, timesLeft: null, seed: 1, matched: 0, fired: 0, createdAt: 0 }],
  };
}

let n = 0;
function payment(payeeId: string) {
  n++;
  const tag = String(n).padStart(6, '0');
  return aPayment({ id: `pay_del${tag}AAAAAAAAAAAAAA`, token: `ptok_del${tag}aaaaaaaaaaaaaaaaaaaaaaa`, code: `D3L${tag}AAA`, merchantRefNo: `ref-${tag}`, payeeId });
}

function entry(i: number): NewJournalEntry {
  return { at: 1_000 + i, method: 'GET', path: `/sandbox/v1/clock`, alias: false, status: 200, code: 200, requestBody: null, responseBody: '{"code":200}', latencyMs: 1, fault: null, warnings: [], requestId: `req-${i}` };
}

function delivery(payeeId: string, paymentId: string): Delivery {
  n++;
  return { id: `dlv_${n}`, payeeId, eventId: `evt_${n}`, eventType: 'payment.created', paymentId, url: 'http://127.0.0.1:1/hooks', body: '{}', state: 'pending', attempts: [], attempt: 0, nextAttemptAt: 5_000, createdAt: 5_000 };
}

function seen(i: number): SeenRequest {
  return { ref: `req-${i}`, at: 1_000 + i, answeredAt: 1_001 + i, method: 'GET', path: '/sandbox/v1/clock', alias: false, status: 200, fault: null, idempotencyKey: null, merchantRefNo: null, amount: null, signed: false, bodyDigest: null, paymentId: null, paymentStatus: null, retryAfterSeconds: null };
}

/** Everything of `payeeId` a store answers, as text: equal before and after means untouched. */
async function holding(store: Store, payeeId: string): Promise<string> {
  const m = await store.merchant(payeeId);
  const page = await store.listPayments(payeeId, { limit: 100, offset: 0 });
  const byToken = await Promise.all(page.items.map((p) => store.paymentByToken(p.token)));
  return JSON.stringify({
    m,
    byKey: await Promise.all([`key-${payeeId}`, `key2-${payeeId}`].map((k) => store.merchantByKey(k).then((x) => x?.payeeId))),
    page,
    byToken: byToken.map((p) => p?.id),
    journal: await store.journal.list(payeeId, { limit: 100 }),
    readiness: await store.readiness.list(payeeId),
    deliveries: await store.deliveries.list(payeeId, 100),
    live: (await store.livePayments(payeeId)).map((p) => p.id),
  });
}

/** Two merchants, each with payments (one with a delivery), journal entries, readiness evidence and an idempotency key. */
async function filled(store: Store): Promise<{ gone: string[]; tokens: string[] }> {
  const tokens: string[] = [];
  for (const id of ['GONE', 'STAYS']) {
    await store.saveMerchant(merchant(id));
    for (let i = 0; i < 3; i++) {
      const p = payment(id);
      tokens.push(p.token);
      expect(await store.insertPayment(p, i === 0 ? [delivery(id, p.id)] : [])).toBe('inserted');
    }
    for (let i = 0; i < 4; i++) await store.journal.append(id, entry(i));
    for (let i = 0; i < 2; i++) await store.readiness.add(id, seen(i), null);
    await store.idempotency.begin(id, 'idem-1', 'fp', 1_000, 1_000);
    await store.idempotency.finish(id, 'idem-1', 200, '{"code":200}');
  }
  return { gone: ['GONE'], tokens: tokens.slice(0, 3) };
}

const kinds: readonly [string, () => Promise<{ make: () => Store }>][] = [
  ['MemoryStore', async () => {
    const store = new MemoryStore();
    return { make: () => store };
  }],
  ['FileStore', async () => {
    const dataFile = path.join(tempDir(), 'store.json');
    return { make: () => new FileStore({ dataFile }) };
  }],
  ['PostgresStore', async () => {
    const url = await freshDatabase();
    return { make: () => new PostgresStore({ url }) };
  }],
];

describe.each(kinds)('Store.deleteMerchant: %s', (kind, place) => {
  const open: Store[] = [];
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close().catch(() => undefined);
  });
  async function opened(make: () => Store): Promise<Store> {
    const store = make();
    if (!open.includes(store)) open.push(store);
    await store.open();
    return store;
  }

  it('erases the merchant, its keys, payments, journal, deliveries and idempotency keys; counts them; leaves the other merchant as it was', async () => {
    const { make } = await place();
    const store = await opened(make);
    const { tokens } = await filled(store);
    const before = await holding(store, 'STAYS');

    expect(await store.deleteMerchant('GONE')).toEqual({ payments: 3, journalEntries: 4, deliveries: 1 });

    expect(await store.merchant('GONE')).toBeUndefined();
    expect(await store.merchantByKey('key-GONE')).toBeUndefined();
    expect(await store.merchantByKey('key2-GONE')).toBeUndefined();
    expect(await store.merchantIds()).toEqual(['STAYS']);
    for (const t of tokens) expect(await store.paymentByToken(t)).toBeUndefined();
    expect(await storedPayments(store, 'GONE')).toBe(0);
    expect(await store.journal.list('GONE', { limit: 100 })).toEqual([]);
    expect(await store.deliveries.list('GONE', 100)).toEqual([]);
    expect(await store.dueIds('GONE', Number.MAX_SAFE_INTEGER, true)).toEqual([]);
    expect(await store.readiness.list('GONE')).toEqual([]);
    // A key kept for the deleted merchant would replay its answer: it is claimed afresh instead.
    expect(await store.idempotency.begin('GONE', 'idem-1', 'fp', 2_000, 2_000)).toEqual({ kind: 'started' });
    await store.idempotency.forget('GONE', 'idem-1');
    expect(await holding(store, 'STAYS')).toBe(before);

    // Deleting it again finds nothing; the freed references and codes can be used again.
    expect(await store.deleteMerchant('GONE')).toBeUndefined();
    expect(await store.deleteMerchant('NEVER')).toBeUndefined();
  });

  it.skipIf(kind === 'PostgresStore')('a payment and journal entry added while the deletion runs go with it (one process)', async () => {
    const { make } = await place();
    const store = await opened(make);
    await filled(store);
    const late = payment('GONE');
    // A request in flight lands while the deletion reads the merchant it erases.
    const read = store.merchant.bind(store);
    store.merchant = async (payeeId) => {
      store.merchant = read;
      expect(await store.insertPayment(late)).toBe('inserted');
      await store.journal.append(payeeId, entry(9));
      await store.readiness.add(payeeId, seen(9), null);
      return read(payeeId);
    };
    expect(await store.deleteMerchant('GONE')).toMatchObject({ payments: 4 });
    expect(await store.paymentByToken(late.token)).toBeUndefined();
    expect(await store.readiness.list('GONE')).toEqual([]);
    expect(await storedPayments(store, 'GONE')).toBe(0);
    expect(await store.journal.list('GONE', { limit: 100 })).toEqual([]);
  });

  it('stays deleted after a restart; the other merchant comes back whole', async () => {
    const { make } = await place();
    const store = await opened(make);
    const { tokens } = await filled(store);
    const before = await holding(store, 'STAYS');
    await store.deleteMerchant('GONE');
    if (kind === 'MemoryStore') return; // nothing outlives the process

    if (store instanceof FileStore) {
      // As after a crash: the log alone (the first store is not closed).
      const afterCrash = await opened(make);
      expect(await afterCrash.merchant('GONE')).toBeUndefined();
      expect(await afterCrash.merchantByKey('key-GONE')).toBeUndefined();
      for (const t of tokens) expect(await afterCrash.paymentByToken(t)).toBeUndefined();
      expect(await afterCrash.journal.list('GONE', { limit: 100 })).toEqual([]);
      expect(await afterCrash.readiness.list('GONE')).toEqual([]);
      expect(await afterCrash.idempotency.begin('GONE', 'idem-1', 'fp', 2_000, 2_000)).toEqual({ kind: 'started' });
      expect(await holding(afterCrash, 'STAYS')).toBe(before);
      await afterCrash.close();
      open.splice(open.indexOf(afterCrash), 1);
    }
    await store.close();
    open.splice(open.indexOf(store), 1);
    // After a stop: the snapshot (file) or the database.
    const again = await opened(make);
    expect(await again.merchantIds()).toEqual(['STAYS']);
    expect(await again.merchantByKey('key2-GONE')).toBeUndefined();
    for (const t of tokens) expect(await again.paymentByToken(t)).toBeUndefined();
    expect(await again.deliveries.list('GONE', 100)).toEqual([]);
    expect(await again.readiness.list('GONE')).toEqual([]);
    expect(await again.idempotency.begin('GONE', 'idem-1', 'fp', 2_000, 2_000)).toEqual({ kind: 'started' });
    expect(await holding(again, 'STAYS')).toBe(before);
  });
});
