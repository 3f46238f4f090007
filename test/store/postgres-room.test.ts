/** PostgreSQL's fair-share sweep judges a merchant by the bytes its quota counts: answer texts and idempotency keys too. */
import { afterEach, describe, expect, it } from 'vitest';
import type { NewJournalEntry } from '../../src/store/journal-log.js';
import { PostgresStore } from '../../src/store/postgres-store.js';
import { fairShare } from '../../src/store/storage-quota.js';
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
afterEach(() => store.close());

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
});
