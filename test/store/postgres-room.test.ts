/** PostgreSQL's trims by bytes judge a merchant by the bytes its quota counts, and the sandbox's total follows them between counts. */
import { afterEach, describe, expect, it } from 'vitest';
import type { Delivery } from '../../src/store/delivery-log.js';
import type { NewJournalEntry } from '../../src/store/journal-log.js';
import { PostgresStore } from '../../src/store/postgres-store.js';
import { deliveryBytes, fairShare, journalEntryBytes } from '../../src/store/storage-quota.js';
import type { StorageLimits } from '../../src/store/storage-quota.js';
import { freshDatabase } from '../support/databases.js';

/** A quota above the fair share of two holders, so that only the sweep (not the merchant's own trim) brings M1 down. */
const LIMITS: StorageLimits = { merchantBytes: 96 * 1024, sandboxBytes: 96 * 1024 };

const entry = (i: number): NewJournalEntry => ({ at: i, method: 'GET', path: `/p/${i}`, alias: false, status: 200, code: 200, requestBody: null, responseBody: null, latencyMs: 1, fault: null, warnings: [] });
/** A status read answered with a text of its own (about 1.3 KB), which the entry refers to. */
const statusRead = (i: number): NewJournalEntry => ({
  ...entry(i), path: '/openapi/v1/payments/payment/pay_1', responseBody: JSON.stringify({ code: 200, payment_id: 'pay_1', version: i, note: 'ü'.repeat(600) }), answerRef: `pay_1@${i}`,
});

let store: PostgresStore;
let other: PostgresStore | undefined;
afterEach(async () => {
  await store.close();
  await other?.close();
  other = undefined;
});

/** This instance's store (with the limits), and another on the same database without limits: its rows are never trimmed by it, only swept by this one. */
async function twoInstances(): Promise<{ bulk: (from: number, count: number) => Promise<void> }> {
  const url = await freshDatabase();
  store = new PostgresStore({ url, limits: LIMITS });
  await store.open();
  const second = (other = new PostgresStore({ url }));
  await second.open();
  const bulk = async (from: number, count: number) => {
    for (let i = from; i < from + count; i++) await second.journal.append('M1', { ...entry(i), requestBody: 'b'.repeat(4 * 1024) });
  };
  return { bulk };
}

describe('PostgreSQL: the fair-share sweep', () => {
  it("counts a merchant's answer texts and idempotency keys as its quota does, so the sandbox comes back within its budget", async () => {
    store = new PostgresStore({ url: await freshDatabase(), limits: LIMITS });
    await store.open();
    // M1: about 32 KB of idempotent answers and 40 KB of answer texts beside 6 KB of journal entries, within its quota.
    for (let i = 0; i < 16; i++) {
      expect(await store.idempotency.begin('M1', `k${i}`, `f${i}`, 1_000, 1_000)).toEqual({ kind: 'started' });
      await store.idempotency.finish('M1', `k${i}`, 201, 'x'.repeat(2_000));
    }
    for (let i = 1; i <= 28; i++) await store.journal.append('M1', statusRead(i));
    await store.trims.runAll();
    const before = (await store.storageUsage('M1')).merchantBytes;
    const share = fairShare(LIMITS, 2);
    expect(before).toBeGreaterThan(share + 16 * 1024);
    expect(before).toBeLessThan(LIMITS.merchantBytes);

    // M2 fills the sandbox past its budget: its trims sweep the merchants over their fair share.
    for (let i = 1; i <= 12; i++) await store.journal.append('M2', { ...entry(i), requestBody: 'b'.repeat(4 * 1024) });
    await store.trims.runAll();

    const [m1, m2] = [(await store.storageUsage('M1')).merchantBytes, (await store.storageUsage('M2')).merchantBytes];
    expect(m1).toBeLessThanOrEqual(share);
    expect(m1 + m2).toBeLessThanOrEqual(LIMITS.sandboxBytes);
    // The sweep gives back journal entries, never idempotent answers; the newest entry stays with its text.
    expect((await store.journal.list('M1', { limit: 100 })).map((e) => e.path)).toEqual(['/openapi/v1/payments/payment/pay_1']);
    expect(await store.idempotency.begin('M1', 'k0', 'another body', 1_000, 1_000)).toMatchObject({ kind: 'mismatch' });
  });

  it("adds this instance's deliveries to the sandbox's total, between counts, by the bytes they count", async () => {
    store = new PostgresStore({ url: await freshDatabase(), limits: LIMITS });
    await store.open();
    await store.journal.append('M1', entry(1));
    expect(await store.storageUsage('M1')).toMatchObject({ merchantBytes: journalEntryBytes(entry(1)), sandboxBytes: journalEntryBytes(entry(1)) });
    const delivery: Delivery = {
      id: 'dlv_1', payeeId: 'M1', eventId: 'evt_1', eventType: 'payment.created', paymentId: 'pay_1', url: 'https://example.test/hook',
      body: JSON.stringify({ note: 'ü€'.repeat(200) }), state: 'delivered', attempts: [], attempt: 0, nextAttemptAt: null, createdAt: 1,
    };
    await store.deliveries.record([delivery]);
    // The sandbox's total is a few seconds old plus what this instance wrote since: here, exactly what the merchant holds.
    expect(await store.storageUsage('M1')).toMatchObject({ merchantBytes: journalEntryBytes(entry(1)) + deliveryBytes(delivery), sandboxBytes: journalEntryBytes(entry(1)) + deliveryBytes(delivery) });
  });

  it('answers those waiting for a sandbox count what it summed, though a refused create or a reset asked for a recount meanwhile', async () => {
    store = new PostgresStore({ url: await freshDatabase(), limits: LIMITS });
    await store.open();
    await store.journal.append('M1', entry(1));
    // As concurrent requests may: the recount lands between the count's end and its waiters going on (it answered 500 then).
    const storage = (store as unknown as { storage: { count(): Promise<unknown>; recount(): void } }).storage;
    const count = storage.count.bind(storage);
    storage.count = async () => {
      const counted = await count();
      storage.recount();
      return counted;
    };
    expect(await store.storageUsage('M1')).toMatchObject({ sandboxBytes: journalEntryBytes(entry(1)), holders: 1 });
  });

  it('sweeps again a second later when its last trim found the sandbox over its budget but had swept less than a second before', async () => {
    const { bulk } = await twoInstances();
    const written = async () => {
      for (let i = 0; i < 2; i++) await store.journal.append('M2', { ...entry(i), requestBody: 'c'.repeat(4 * 1024) });
      await store.trims.runAll();
    };
    await bulk(1, 25);
    // M2 fills the sandbox past its budget: its trim sweeps M1 down to its share.
    await written();
    const share = fairShare(LIMITS, 2);
    expect((await store.storageUsage('M1')).merchantBytes).toBeLessThanOrEqual(share);
    // M1 grows again through the other instance, and M2's next trim comes within the second: the sweep waits.
    await bulk(100, 15);
    (store as unknown as { storage: { recount(): void } }).storage.recount();
    await written();
    expect((await store.storageUsage('M1')).merchantBytes).toBeGreaterThan(share);
    // Nothing more is written: the background trims sweep once the second has passed.
    await new Promise((r) => setTimeout(r, 1_100));
    await store.trims.runAll();
    expect((await store.storageUsage('M1')).merchantBytes).toBeLessThanOrEqual(share);
  });

  it("sweeps once the sandbox is over its budget, though the write that passed it was too small to make its writer's trim due", async () => {
    const { bulk } = await twoInstances();
    await bulk(1, 25);
    // This instance sums the sandbox (over its budget), then M2 writes one small entry, far under what makes a trim due by bytes.
    expect((await store.storageUsage('M2')).sandboxBytes).toBeGreaterThan(LIMITS.sandboxBytes);
    await store.journal.append('M2', entry(1));
    await new Promise((r) => setTimeout(r, 1_100));
    await store.trims.runAll();
    expect((await store.storageUsage('M1')).merchantBytes).toBeLessThanOrEqual(fairShare(LIMITS, 2));
  });
});

