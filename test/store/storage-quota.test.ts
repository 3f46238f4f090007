/**
 * The storage rule (src/store/storage-quota.ts), one contract for the memory, file and
 * PostgreSQL stores: how a record's bytes are counted, and when a create is refused.
 */
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/domain/merchant.js';
import type { Merchant } from '../../src/domain/merchant.js';
import type { SeenRequest } from '../../src/domain/readiness.js';
import { FileStore } from '../../src/store/file-store.js';
import type { NewJournalEntry } from '../../src/store/journal-log.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { migrate } from '../../src/store/postgres-schema.js';
import { PostgresStore } from '../../src/store/postgres-store.js';
import { answerTextBytes, evidenceBytes, journalEntryBytes, recordBytes } from '../../src/store/storage-quota.js';
import type { StorageLimits } from '../../src/store/storage-quota.js';
import type { Store } from '../../src/store/store.js';
import { freshDatabase } from '../support/databases.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { aPayment } from '../support/payments.js';
import { storedPayments } from '../support/payment-counts.js';

afterAll(removeTempDirs);

function merchant(payeeId: string): Merchant {
  return {
    payeeId, name: payeeId, city: 'Singapore', countryCode: 'SG', mcc: '5812', homeCurrency: 'SGD', apiKeyHashes: [`key-${payeeId}`],
    signingSalt: 'salt', settings: DEFAULT_SETTINGS, clockOffsetMs: 0, createdAt: 0,
  };
}

let n = 0;
/** A payment with about `metadataBytes` of metadata text. */
function payment(payeeId: string, metadataBytes = 1000) {
  n++;
  const tag = String(n).padStart(6, '0');
  const metadata = JSON.stringify({ note: 'x'.repeat(metadataBytes) });
  return aPayment({ id: `pay_quota${tag}AAAAAAAAAAAAA`, token: `ptok_quota${tag}aaaaaaaaaaaaaaaaaaaaaa`, code: `Q0TA${tag}AA`, merchantRefNo: `ref-${tag}`, payeeId, metadata });
}

function entry(i: number): NewJournalEntry {
  return { at: 1_000 + i, method: 'POST', path: '/openapi/v1/payments/payment', alias: false, status: 200, code: 200, requestBody: 'b'.repeat(500), responseBody: '{"code":200}', latencyMs: 1, fault: null, warnings: [], requestId: `req-${i}` };
}

function seen(i: number): SeenRequest {
  return { ref: `req-${i}`, at: 1_000 + i, answeredAt: 1_001 + i, method: 'GET', path: '/sandbox/v1/clock', alias: false, status: 200, fault: null, idempotencyKey: null, merchantRefNo: null, amount: null, signed: false, bodyDigest: null, paymentId: null, paymentStatus: null, retryAfterSeconds: null };
}

const KINDS: readonly [string, () => Promise<Store>][] = [
  ['MemoryStore', async () => new MemoryStore()],
  ['FileStore', async () => new FileStore({ dataFile: path.join(tempDir(), 'store.json') })],
  ['PostgresStore', async () => new PostgresStore({ url: await freshDatabase() })],
];

const LOTS = Number.MAX_SAFE_INTEGER;

/** Whatever the store defers (PostgreSQL's background trims) done. */
async function settled(store: Store): Promise<void> {
  if (store instanceof PostgresStore) await store.trims.runAll();
}

describe.each(KINDS)('storage counted in bytes: %s', (_kind, make) => {
  let store: Store;
  beforeEach(async () => {
    store = await make();
    await store.open();
    await store.saveMerchant(merchant('M1'));
    await store.saveMerchant(merchant('M2'));
  });
  afterEach(() => store.close());

  const used = async (payeeId: string) => (await store.storageUsage(payeeId)).merchantBytes;

  it('a payment counts the bytes of its JSON text, and a change counts what it adds', async () => {
    const p = payment('M1');
    expect(await store.insertPayment(p)).toBe('inserted');
    expect(await used('M1')).toBe(recordBytes(p));
    expect(await used('M2')).toBe(0);
    const paid = { ...p, status: 'A' as const, payer: { id: 'payer-1', name: 'Pat Payer' }, paidAt: p.createdAt + 1, version: 2,
      history: [...p.history, { type: 'paid' as const, from: 'P' as const, to: 'A' as const, at: p.createdAt + 1, reason: null, actor: 'payer' as const }] };
    expect(await store.updatePayment(paid, 1)).toBe(true);
    expect(await used('M1')).toBe(recordBytes(paid));
    // A lost compare-and-set changes nothing.
    expect(await store.updatePayment({ ...paid, version: 3 }, 1)).toBe(false);
    expect(await used('M1')).toBe(recordBytes(paid));
  });

  it('refuses the create that would pass the merchant quota, and stores nothing of it', async () => {
    const first = payment('M1');
    const size = recordBytes(first);
    const limits: StorageLimits = { merchantBytes: Math.floor(2.5 * size), sandboxBytes: LOTS };
    expect(await store.insertPayment(first, [], limits)).toBe('inserted');
    expect(await store.insertPayment(payment('M1'), [], limits)).toBe('inserted');
    const before = await used('M1');
    const refused = payment('M1');
    expect(await store.insertPayment(refused, [], limits)).toBe('merchant_quota');
    expect(await store.payment('M1', refused.id)).toBeUndefined();
    expect(await store.paymentByRef('M1', refused.merchantRefNo)).toBeUndefined();
    expect(await storedPayments(store, 'M1')).toBe(2);
    expect(await used('M1')).toBe(before);
    // Another merchant has its own quota.
    expect(await store.insertPayment(payment('M2'), [], limits)).toBe('inserted');
    // A smaller payment still fits in what is left.
    expect(await store.insertPayment(payment('M1', 10), [], limits)).toBe('inserted');
  });

  it("the journal and the readiness evidence count toward the quota, and are never refused", async () => {
    const p = payment('M1');
    for (let i = 0; i < 5; i++) await store.journal.append('M1', entry(i));
    for (let i = 0; i < 3; i++) await store.readiness.add('M1', seen(i), null);
    // A journal entry and evidence count their texts plus a fixed allowance, the same on every store.
    const expected = [0, 1, 2, 3, 4].reduce((sum, i) => sum + journalEntryBytes(entry(i)), 0) + [0, 1, 2].reduce((sum, i) => sum + evidenceBytes(seen(i)), 0);
    expect(await used('M1')).toBe(expected);
    // Room for the payment without them, not with them.
    const limits: StorageLimits = { merchantBytes: recordBytes(p) + expected - 1, sandboxBytes: LOTS };
    expect(await store.insertPayment(p, [], limits)).toBe('merchant_quota');
    // Over its quota, the merchant's journal and evidence still take entries.
    await store.journal.append('M1', entry(5));
    await store.readiness.add('M1', seen(5), null);
    expect((await store.journal.list('M1', { limit: 10 })).length).toBe(6);
    expect(await used('M1')).toBe(expected + journalEntryBytes(entry(5)) + evidenceBytes(seen(5)));
  });

  it('journal entries that refer to one answer text count it once, each entry without it; a clear gives it back', async () => {
    const text = JSON.stringify({ code: 200, payment_status: 'P', note: 'é'.repeat(1000) });
    const read = (i: number): NewJournalEntry => ({ ...entry(i), method: 'GET', requestBody: null, responseBody: text, answerRef: 'pay_1@1' });
    for (let i = 0; i < 20; i++) await store.journal.append('M1', read(i));
    await store.journal.append('M2', read(0));
    await settled(store);
    const one = journalEntryBytes(read(0));
    expect(one).toBeLessThan(answerTextBytes(text));
    const entries = Array.from({ length: 20 }, (_, i) => journalEntryBytes(read(i))).reduce((a, b) => a + b);
    expect(await used('M1')).toBe(entries + answerTextBytes(text));
    // Each merchant keeps its own.
    expect(await used('M2')).toBe(one + answerTextBytes(text));
    await store.journal.clear('M1');
    await settled(store);
    expect(await used('M1')).toBe(0);
    expect(await used('M2')).toBe(one + answerTextBytes(text));
  });

  it('idempotency answers and webhook deliveries count toward the quota', async () => {
    expect((await store.idempotency.begin('M1', 'key-1', 'POST /x {"a":1}', 0, 0)).kind).toBe('started');
    const claimed = await used('M1');
    expect(claimed).toBeGreaterThan('key-1'.length);
    await store.idempotency.finish('M1', 'key-1', 200, '{"code":200,"description":"' + 'd'.repeat(1000) + '"}');
    const answered = await used('M1');
    expect(answered).toBeGreaterThanOrEqual(claimed + 1000);
    await store.deliveries.record([{ id: 'dlv_1', payeeId: 'M1', eventId: 'evt_1', eventType: 'payment.created', paymentId: 'pay_1', url: 'http://127.0.0.1:1/hook', body: 'w'.repeat(2000), state: 'delivered', attempts: [], attempt: 0, nextAttemptAt: null, createdAt: 0 }]);
    expect(await used('M1')).toBeGreaterThanOrEqual(answered + 2000);
  });

  it("once the sandbox holds its budget, refuses a create past the merchant's fair share, never one within it", async () => {
    const first = payment('M1');
    const one = recordBytes(first);
    expect(await store.insertPayment(first)).toBe('inserted');
    for (let i = 0; i < 3; i++) expect(await store.insertPayment(payment('M1'))).toBe('inserted');
    // M1 holds the whole budget; M2 holds nothing, so the two share it: two payments each.
    const limits: StorageLimits = { merchantBytes: LOTS, sandboxBytes: 4 * one };
    const refused = payment('M1');
    expect(await store.insertPayment(refused, [], limits)).toBe('fair_share');
    expect(await store.payment('M1', refused.id)).toBeUndefined();
    expect(await used('M1')).toBe(4 * one);
    expect(await store.insertPayment(payment('M2'), [], limits)).toBe('inserted');
    expect(await store.insertPayment(payment('M2'), [], limits)).toBe('inserted');
    const third = payment('M2');
    expect(await store.insertPayment(third, [], limits)).toBe('fair_share');
    expect(await store.payment('M2', third.id)).toBeUndefined();
    expect(await used('M2')).toBe(2 * one);
    expect(await store.storageUsage('M2')).toMatchObject({ sandboxBytes: 6 * one, holders: 2 });
  });

  it('a reset, a prune and a deletion give the bytes back', async () => {
    const a = payment('M1');
    const b = payment('M2');
    await store.insertPayment(a);
    await store.insertPayment(b);
    await store.journal.append('M1', entry(1));
    await store.resetMerchant('M1');
    expect(await used('M1')).toBe(0);
    expect(await used('M2')).toBe(recordBytes(b));
    const ended = { ...b, status: 'E' as const, version: 2 };
    expect(await store.updatePayment(ended, 1)).toBe(true);
    expect(await store.prunePayments('M2', ended.createdAt + 1)).toBe(1);
    expect(await used('M2')).toBe(0);
    await store.insertPayment(payment('M2'));
    await store.deleteMerchant('M2');
    expect(await used('M2')).toBe(0);
    expect((await store.storageUsage('M1')).sandboxBytes).toBe(0);
  });
});

describe('storage counted in bytes: a restart of the file store', () => {
  it('counts again what it read back: the same usage as before the restart', async () => {
    const dataFile = path.join(tempDir(), 'store.json');
    const first = new FileStore({ dataFile });
    await first.open();
    await first.saveMerchant(merchant('M1'));
    await first.insertPayment(payment('M1'));
    await first.journal.append('M1', entry(1));
    await first.readiness.add('M1', seen(1), null);
    await first.idempotency.begin('M1', 'key-1', 'POST /x {}', 0, 0);
    await first.idempotency.finish('M1', 'key-1', 200, '{"code":200}');
    const before = await first.storageUsage('M1');
    expect(before.merchantBytes).toBeGreaterThan(0);
    await first.close();
    const second = new FileStore({ dataFile });
    await second.open();
    expect(await second.storageUsage('M1')).toEqual(before);
    await second.close();
  });
});

describe('storage counted in bytes: a PostgreSQL database of schema version 3', () => {
  it('is migrated with its merchants\' payment bytes counted, and counts on from there', async () => {
    const url = await freshDatabase();
    const admin = postgres(url, { max: 1, onnotice: () => {} });
    const a = payment('M1');
    const b = payment('M1');
    try {
      await migrate(admin, 'test', 3);
      for (const p of [a, b]) {
        await admin`INSERT INTO payreq_payments (id, payee_id, merchant_ref_no, token, code, status, live, created_at, version, doc)
                    VALUES (${p.id}, 'M1', ${p.merchantRefNo}, ${p.token}, ${p.code}, 'P', true, ${p.createdAt}, 1, ${JSON.stringify(p)})`;
      }
    } finally {
      await admin.end();
    }
    const store = new PostgresStore({ url });
    await store.open();
    expect((await store.storageUsage('M1')).merchantBytes).toBe(recordBytes(a) + recordBytes(b));
    const c = payment('M1');
    await store.insertPayment(c);
    expect((await store.storageUsage('M1')).merchantBytes).toBe(recordBytes(a) + recordBytes(b) + recordBytes(c));
    await store.close();
  });
});
