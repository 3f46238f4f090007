/**
 * The store parts' rules, one contract for the memory, file and PostgreSQL stores (SPEC 20): every
 * cap and trim of the journal, the webhook deliveries, the idempotency keys and the readiness
 * evidence keeps the same rows on all three, and counts the same bytes. On PostgreSQL the trims run in the background; the
 * test runs the due ones (trims.runAll) before it looks.
 */
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { apiKeyHash } from '../../src/domain/ids.js';
import { DEFAULT_SETTINGS } from '../../src/domain/merchant.js';
import type { SeenRequest } from '../../src/domain/readiness.js';
import { DELIVERY_LOG_CAP } from '../../src/store/delivery-log.js';
import type { Delivery } from '../../src/store/delivery-log.js';
import { FileStore } from '../../src/store/file-store.js';
import { IDEMPOTENCY_ANSWER_CHARS_PER_MERCHANT, IDEMPOTENCY_KEYS_PER_MERCHANT } from '../../src/store/idempotency-keys.js';
import { JOURNAL_CAP } from '../../src/store/journal-log.js';
import type { NewJournalEntry } from '../../src/store/journal-log.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { TRIM_EVERY } from '../../src/store/postgres-trims.js';
import { PostgresStore } from '../../src/store/postgres-store.js';
import { roomTrimSlack } from '../../src/store/postgres-room.js';
import { READINESS_CAP } from '../../src/store/readiness-log.js';
import { answerTextBytes, DELIVERY_ALLOWANCE, deliveryBytes, evidenceBytes, journalEntryBytes } from '../../src/store/storage-quota.js';
import type { Store } from '../../src/store/store.js';
import { freshDatabase } from '../support/databases.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { ANY_MERCHANT } from '../support/claims.js';

afterAll(removeTempDirs);

const KINDS: readonly [string, () => Promise<Store>][] = [
  ['memory', async () => new MemoryStore()],
  ['file', async () => new FileStore({ dataFile: path.join(tempDir(), 'store.json') })],
  ['postgres', async () => new PostgresStore({ url: await freshDatabase() })],
];

/** Whatever the store defers (PostgreSQL's background trims) done, so what is kept can be compared. */
async function settled(store: Store): Promise<void> {
  if (store instanceof PostgresStore) await store.trims.runAll();
}

const entry = (i: number): NewJournalEntry => ({ at: i, method: 'GET', path: `/p/${i}`, alias: false, status: 200, code: 200, requestBody: null, responseBody: null, latencyMs: 1, fault: null, warnings: [] });

/** The answer text of a status read of `version`, long enough that a copy per entry would show. */
const statusText = (version: number) => JSON.stringify({ code: 200, description: 'OK', payment_id: 'pay_1', version, note: 'ü'.repeat(600) });
/** A status read of pay_1 at `version`, answered with its status text, which the entry refers to. */
const statusRead = (i: number, version: number): NewJournalEntry => ({ ...entry(i), path: '/openapi/v1/payments/payment/pay_1', responseBody: statusText(version), answerRef: `pay_1@${version}` });

/** What the merchant's journal and its answer texts count (the journal is the only part these tests fill). */
const used = async (store: Store) => (await store.storageUsage('M1')).merchantBytes;
const bytesOf = (entries: readonly NewJournalEntry[]) => entries.reduce((sum, e) => sum + journalEntryBytes(e), 0);

/** Rows of the PostgreSQL table of answer texts (other stores: undefined). */
async function answerRows(store: Store): Promise<number | undefined> {
  if (!(store instanceof PostgresStore)) return undefined;
  return store.run(async (sql) => (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM payreq_answers`)[0]!.n);
}

function delivery(i: number): Delivery {
  return {
    id: `dlv_${String(i).padStart(6, '0')}`, payeeId: 'M1', eventId: `evt_${i}`, eventType: 'payment.created', paymentId: 'pay_1', url: 'https://example.test/hook',
    body: '{}', state: 'delivered', attempts: [], attempt: 0, nextAttemptAt: null, createdAt: i,
  };
}

function seen(i: number): SeenRequest {
  return {
    ref: `req-${i}`, at: i, answeredAt: i + 1, method: 'GET', path: `/openapi/v1/payments/payment/pay_${i}`, alias: false, status: 200, fault: null, idempotencyKey: null,
    merchantRefNo: null, amount: null, signed: false, bodyDigest: null, paymentId: `pay_${i}`, paymentStatus: 'P', retryAfterSeconds: null,
  };
}

/** Keys answered one by one, `answer(i)` their answer bodies. */
async function answerKeys(store: Store, from: number, to: number, answer: (i: number) => string): Promise<void> {
  for (let i = from; i < to; i++) {
    expect(await store.idempotency.begin('M1', `k${i}`, `f${i}`, 1_000, 1_000)).toEqual({ kind: 'started' });
    await store.idempotency.finish('M1', `k${i}`, 201, answer(i));
  }
}

/** Whether key `k{i}` is still kept: a retry with another body is refused as a mismatch only while it is (a gone key is claimed, a new key: probe those last). */
async function kept(store: Store, i: number): Promise<boolean> {
  const verdict = await store.idempotency.begin('M1', `k${i}`, 'another body', 1_000, 1_000);
  if (verdict.kind === 'started') await store.idempotency.forget('M1', `k${i}`);
  return verdict.kind === 'mismatch';
}

describe.each(KINDS)('the store parts contract: %s', (_kind, make) => {
  let store: Store;
  beforeEach(async () => {
    store = await make();
    await store.open();
    await store.saveMerchant({
      payeeId: 'M1', name: 'M1', city: 'Singapore', countryCode: 'SG', mcc: '5812', homeCurrency: 'SGD', apiKeyHashes: [apiKeyHash('key-1')],
      signingSalt: 'salt', settings: DEFAULT_SETTINGS, clockOffsetMs: 0, createdAt: 0,
    });
  });
  afterEach(() => store.close());

  it(`keeps the newest ${JOURNAL_CAP} journal entries`, async () => {
    for (let i = 1; i <= JOURNAL_CAP + 60; i += 20) await Promise.all(Array.from({ length: 20 }, (_, j) => store.journal.append('M1', entry(i + j))));
    await settled(store);
    const list = await store.journal.list('M1', { limit: JOURNAL_CAP + 100 });
    expect(list.map((e) => e.path)).toEqual(Array.from({ length: JOURNAL_CAP }, (_, i) => `/p/${JOURNAL_CAP + 60 - i}`));
  }, 60_000);

  it(`keeps the newest ${DELIVERY_LOG_CAP} deliveries`, async () => {
    for (let i = 0; i < DELIVERY_LOG_CAP + 60; i += 10) await store.deliveries.record(Array.from({ length: 10 }, (_, j) => delivery(i + j)));
    await settled(store);
    const list = await store.deliveries.list('M1', Number.MAX_SAFE_INTEGER);
    expect(list.map((d) => d.id)).toEqual(Array.from({ length: DELIVERY_LOG_CAP }, (_, i) => delivery(DELIVERY_LOG_CAP + 59 - i).id));
  }, 60_000);

  it(`keeps the newest ${IDEMPOTENCY_KEYS_PER_MERCHANT} idempotency keys`, async () => {
    await answerKeys(store, 0, IDEMPOTENCY_KEYS_PER_MERCHANT + 3, () => '{"code":201}');
    await settled(store);
    expect([await kept(store, 3), await kept(store, IDEMPOTENCY_KEYS_PER_MERCHANT + 2), await kept(store, 2), await kept(store, 0)]).toEqual([true, true, false, false]);
  }, 120_000);

  it(`keeps idempotent answers of at most ${IDEMPOTENCY_ANSWER_CHARS_PER_MERCHANT} characters, the newest`, async () => {
    const third = 'x'.repeat(Math.floor(IDEMPOTENCY_ANSWER_CHARS_PER_MERCHANT / 3));
    await answerKeys(store, 0, 4, () => third);
    await settled(store);
    expect([await kept(store, 1), await kept(store, 2), await kept(store, 3), await kept(store, 0)]).toEqual([true, true, true, false]);
    // An answer larger than the bound alone is not kept either, and takes every older one with it.
    await answerKeys(store, 4, 5, () => 'y'.repeat(IDEMPOTENCY_ANSWER_CHARS_PER_MERCHANT + 1));
    await settled(store);
    expect([await kept(store, 3), await kept(store, 4)]).toEqual([false, false]);
  }, 60_000);

  it(`keeps the newest ${READINESS_CAP} pieces of readiness evidence, a polling run as its first and last`, async () => {
    await store.readiness.add('M1', seen(0), null);
    for (let i = 1; i <= 30; i++) await store.readiness.add('M1', seen(i), 'poll pay_0 P');
    for (let i = 31; i <= READINESS_CAP + 40; i += 50) await Promise.all(Array.from({ length: 50 }, (_, j) => store.readiness.add('M1', seen(i + j), null)));
    await settled(store);
    const refs = (await store.readiness.list('M1')).map((s) => s.ref);
    expect(refs).toHaveLength(READINESS_CAP);
    expect(refs.at(-1)).toBe(`req-${READINESS_CAP + 80}`);
    expect(refs[0]).toBe(`req-${READINESS_CAP + 80 - READINESS_CAP + 1}`);
  }, 60_000);

  it('keeps one answer text for many status reads of one version; the journal shows every body', async () => {
    const written: NewJournalEntry[] = [];
    for (let i = 0; i < 60; i++) written.push(i % 10 === 9 ? entry(i) : statusRead(i, i < 30 ? 1 : 2));
    for (let i = 0; i < 60; i += 20) await Promise.all(written.slice(i, i + 20).map((e) => store.journal.append('M1', e)));
    await settled(store);
    const list = await store.journal.list('M1', { limit: 100 });
    expect(list.map((e) => e.responseBody)).toEqual(written.map((e) => e.responseBody).reverse());
    expect(list.map((e) => e.path)).toEqual(written.map((e) => e.path).reverse());
    // Two texts, each counted once; the entries without them.
    expect(await used(store)).toBe(bytesOf(written) + answerTextBytes(statusText(1)) + answerTextBytes(statusText(2)));
    expect(await answerRows(store)).toBeOneOf([undefined, 2]);
  });

  it('an entry with a name but no answer keeps none, and the next one with an answer keeps it', async () => {
    const bare = { ...statusRead(1, 1), responseBody: null };
    await store.journal.append('M1', bare);
    await store.journal.append('M1', statusRead(2, 1));
    await settled(store);
    expect((await store.journal.list('M1', { limit: 10 })).map((e) => e.responseBody)).toEqual([statusText(1), null]);
    expect(await used(store)).toBe(bytesOf([{ ...bare, answerRef: undefined }, statusRead(2, 1)]) + answerTextBytes(statusText(1)));
  });

  it(`frees an answer text once the ${JOURNAL_CAP}-entry cap has pushed out every entry that refers to it`, async () => {
    for (let i = 0; i < 5; i++) await store.journal.append('M1', statusRead(i, 1));
    await store.journal.append('M1', statusRead(5, 2));
    const plain = Array.from({ length: JOURNAL_CAP - 1 }, (_, i) => entry(10 + i));
    for (let i = 0; i < plain.length; i += 50) await Promise.all(plain.slice(i, i + 50).map((e) => store.journal.append('M1', e)));
    await settled(store);
    // pay_1@1's entries are gone and its text with them; pay_1@2's one entry is the oldest kept.
    expect(await used(store)).toBe(bytesOf([statusRead(5, 2), ...plain]) + answerTextBytes(statusText(2)));
    expect((await store.journal.list('M1', { limit: JOURNAL_CAP })).at(-1)!.responseBody).toBe(statusText(2));
    expect(await answerRows(store)).toBeOneOf([undefined, 1]);
    // PostgreSQL trims a merchant's journal after every TRIM_EVERY appends: enough of them to make its trim due.
    const more = Array.from({ length: TRIM_EVERY }, (_, i) => entry(9_000 + i));
    for (const e of more) await store.journal.append('M1', e);
    await settled(store);
    expect(await used(store)).toBe(bytesOf([...plain, ...more].slice(-JOURNAL_CAP)));
    expect(await answerRows(store)).toBeOneOf([undefined, 0]);
    // A read of that version again keeps its text again.
    await store.journal.append('M1', statusRead(10_000, 1));
    await settled(store);
    expect((await store.journal.list('M1', { limit: 1 }))[0]!.responseBody).toBe(statusText(1));
  }, 60_000);

  it('frees answer texts when the journal is cleared, the merchant reset or deleted', async () => {
    const before = await used(store);
    await store.journal.append('M1', statusRead(1, 1));
    await settled(store);
    expect(await used(store)).toBeGreaterThan(before + answerTextBytes(statusText(1)));
    expect(await store.journal.clear('M1')).toBe(1);
    await settled(store);
    expect([await used(store), await answerRows(store)]).toEqual([0, store instanceof PostgresStore ? 0 : undefined]);
    await store.journal.append('M1', statusRead(2, 1));
    await store.resetMerchant('M1');
    await settled(store);
    expect([await used(store), await answerRows(store)]).toEqual([0, store instanceof PostgresStore ? 0 : undefined]);
    await store.journal.append('M1', statusRead(3, 1));
    await store.deleteMerchant('M1');
    await settled(store);
    expect([await used(store), await answerRows(store)]).toEqual([0, store instanceof PostgresStore ? 0 : undefined]);
    expect(await store.journal.list('M1', { limit: 10 })).toEqual([]);
  });

  it('counts a delivery, its attempt and its resend, and a piece of evidence, the same bytes on every store (storage-quota.ts)', async () => {
    const pending: Delivery = { ...delivery(1), state: 'pending', nextAttemptAt: 0, body: '{"note":"ü€"}' };
    await store.deliveries.record([pending, delivery(2)]);
    expect((await store.deliveries.claimDue(10, 1_000, 1, ANY_MERCHANT)).map((d) => d.id)).toEqual([pending.id]);
    const attempt = { at: 5, status: null, error: 'connect ECONNREFUSED 127.0.0.1:9 (ü)', latencyMs: 3 };
    await store.deliveries.recordAttempt(pending.id, attempt, { state: 'failed', attempt: 1, nextAttemptAt: null });
    expect(await store.deliveries.resend('M1', pending.id, 20)).toMatchObject({ state: 'pending', attempts: [attempt] });
    await store.readiness.add('M1', seen(7), null);
    await settled(store);
    const expected = deliveryBytes({ ...pending, attempts: [attempt] }) + deliveryBytes(delivery(2)) + evidenceBytes(seen(7));
    expect(expected).toBeGreaterThan(DELIVERY_ALLOWANCE * 2);
    expect(await used(store)).toBe(expected);
  });

  it('collapses a polling run to its first and last read', async () => {
    await store.readiness.add('M1', seen(0), null);
    for (let i = 1; i <= 30; i++) await store.readiness.add('M1', seen(i), 'poll pay_0 P');
    await store.readiness.add('M1', seen(31), null);
    await settled(store);
    expect((await store.readiness.list('M1')).map((s) => s.ref)).toEqual(['req-0', 'req-1', 'req-30', 'req-31']);
  });
});

/** Stores given storage limits: a 64 KiB quota in a 1 MiB sandbox. */
const QUOTA = 64 * 1024;
const LIMITED: readonly [string, () => Promise<Store>][] = [
  ['memory', async () => new MemoryStore({ merchantBytes: QUOTA, sandboxBytes: 1024 * 1024 })],
  ['file', async () => new FileStore({ dataFile: path.join(tempDir(), 'store.json'), limits: { merchantBytes: QUOTA, sandboxBytes: 1024 * 1024 } })],
  ['postgres', async () => new PostgresStore({ url: await freshDatabase(), limits: { merchantBytes: QUOTA, sandboxBytes: 1024 * 1024 } })],
];

describe.each(LIMITED)('the store parts contract, trims by bytes (SPEC 26): %s', (_kind, make) => {
  let store: Store;
  beforeEach(async () => {
    store = await make();
    await store.open();
  });
  afterEach(() => store.close());

  it('the journal keeps its newest within the quota in bytes, however few entries that is', async () => {
    const big = (i: number): NewJournalEntry => ({ ...entry(i), requestBody: 'b'.repeat(4 * 1024) });
    for (let i = 1; i <= 100; i += 10) await Promise.all(Array.from({ length: 10 }, (_, j) => store.journal.append('M1', big(i + j))));
    await settled(store);
    const list = await store.journal.list('M1', { limit: JOURNAL_CAP });
    // About 16 entries of 4 KiB fit: far fewer than the count cap, the newest in order.
    expect(bytesOf(list)).toBeLessThanOrEqual(QUOTA);
    expect(list.length).toBeGreaterThanOrEqual(8);
    expect(list.map((e) => e.path)).toEqual(Array.from({ length: list.length }, (_, i) => `/p/${100 - i}`));
    expect(await used(store)).toBeLessThanOrEqual(QUOTA);
  });

  it('deliveries and evidence keep their newest within the quota too, and another merchant keeps its own', async () => {
    // PostgreSQL trims in the background, once a merchant wrote its slack since the last trim.
    const slack = store instanceof PostgresStore ? roomTrimSlack({ merchantBytes: QUOTA, sandboxBytes: 1024 * 1024 }) : 0;
    const heavy = (i: number): Delivery => ({ ...delivery(i), body: JSON.stringify({ note: 'w'.repeat(2 * 1024) }) });
    for (let i = 0; i < 60; i += 10) await store.deliveries.record(Array.from({ length: 10 }, (_, j) => heavy(i + j)));
    for (let i = 0; i < 300; i++) await store.readiness.add('M1', seen(i), null);
    await store.journal.append('M2', entry(1));
    await settled(store);
    expect(await used(store)).toBeLessThanOrEqual(QUOTA + slack);
    const deliveries = await store.deliveries.list('M1', Number.MAX_SAFE_INTEGER);
    expect(deliveries[0]?.id).toBe(heavy(59).id);
    expect((await store.storageUsage('M2')).merchantBytes).toBe(journalEntryBytes(entry(1)));
  });
});
