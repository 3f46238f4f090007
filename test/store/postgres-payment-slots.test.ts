/**
 * A merchant's payments counted in several rows on PostgreSQL (PAYMENT_SLOTS, postgres-storage.ts):
 * a database of schema version 10 (one row per merchant) is migrated with its counts kept; the
 * rows always sum to the payments stored; sequential creates stop exactly at the quota, and
 * concurrent ones pass it by at most one payment per other database connection (docs/limits.md).
 */
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { apiKeyHash } from '../../src/domain/ids.js';
import { DEFAULT_SETTINGS } from '../../src/domain/merchant.js';
import type { Merchant } from '../../src/domain/merchant.js';
import { migrate, SCHEMA_VERSION } from '../../src/store/postgres-schema.js';
import { PostgresStore } from '../../src/store/postgres-store.js';
import { recordBytes } from '../../src/store/storage-quota.js';
import type { StorageLimits } from '../../src/store/storage-quota.js';
import { freshDatabase } from '../support/databases.js';
import { aPayment } from '../support/payments.js';
import { paymentCounts } from '../support/payment-counts.js';

const opened: PostgresStore[] = [];
afterAll(async () => {
  for (const s of opened) await s.close();
});

const merchant = (payeeId: string): Merchant => ({
  payeeId, name: payeeId, city: 'Singapore', countryCode: 'SG', mcc: '5812', homeCurrency: 'SGD', apiKeyHashes: [apiKeyHash(`key-${payeeId}`)],
  signingSalt: 'salt', settings: DEFAULT_SETTINGS, clockOffsetMs: 0, createdAt: 0,
});

let serial = 0;
/** A payment of the merchant; all of one test are the same size. */
function payment(payeeId: string) {
  const tag = String(++serial).padStart(6, '0');
  return aPayment({ id: `pay_slots${tag}AAAAAAAAAAAAA`, token: `ptok_slots${tag}aaaaaaaaaaaaaaaaaaaaaa`, code: `SL0T${tag}AA`, merchantRefNo: `ref-${tag}`, payeeId });
}

async function store(url: string, maxConnections = 10): Promise<PostgresStore> {
  const s = new PostgresStore({ url, maxConnections });
  opened.push(s);
  await s.open();
  return s;
}

describe('PostgreSQL: a merchant\'s payments counted in several rows', () => {
  it('a version-10 database (one row per merchant) is migrated with its counts kept, and counts on from there', async () => {
    const url = await freshDatabase();
    const admin = postgres(url, { max: 1, onnotice: () => {} });
    const [a, b] = [payment('M1'), payment('M1')];
    try {
      await migrate(admin, 'test', 10);
      await admin`INSERT INTO payreq_merchants (payee_id, doc, auto_settle) VALUES ('M1', ${JSON.stringify(merchant('M1'))}, false)`;
      for (const p of [a, b]) {
        await admin`INSERT INTO payreq_payments (id, payee_id, merchant_ref_no, token, code, status, live, created_at, version, doc)
          VALUES (${p.id}, 'M1', ${p.merchantRefNo}, ${p.token}, ${p.code}, 'P', true, ${p.createdAt}, 1, ${JSON.stringify(p)})`;
      }
      await admin`INSERT INTO payreq_storage (payee_id, payment_bytes, payment_count) VALUES ('M1', ${recordBytes(a) + recordBytes(b)}, 2)`;
    } finally {
      await admin.end();
    }
    const s = await store(url);
    expect(await s.run((sql) => sql`SELECT version FROM payreq_schema`)).toEqual([{ version: SCHEMA_VERSION }]);
    expect(await paymentCounts(s, 'M1')).toMatchObject({ rows: 1, bytes: recordBytes(a) + recordBytes(b), count: 2 });
    for (let i = 0; i < 3; i++) expect(await s.insertPayment(payment('M1'))).toBe('inserted');
    const after = await paymentCounts(s, 'M1');
    expect(after).toMatchObject({ bytes: after.stored_bytes, count: 5, stored: 5 });
    expect(after.rows).toBeGreaterThan(1);
    expect((await s.storageUsage('M1')).merchantBytes).toBe(after.stored_bytes);
  });

  it('creates, changes, a prune and a reset from two instances at once keep the rows summing to the payments stored', async () => {
    const url = await freshDatabase();
    const [one, two] = [await store(url), await store(url)];
    await one.saveMerchant(merchant('M2'));
    const made = Array.from({ length: 40 }, () => payment('M2'));
    const results = await Promise.all(made.map((p, i) => (i % 2 ? one : two).insertPayment(p)));
    expect(results.every((r) => r === 'inserted')).toBe(true);
    let now = await paymentCounts(one, 'M2');
    expect(now).toMatchObject({ bytes: now.stored_bytes, count: 40, stored: 40 });
    // Concurrent creates took different rows.
    expect(now.rows).toBeGreaterThan(1);
    const paid = made.slice(0, 20).map((p) => ({ ...p, status: 'A' as const, settled: true, payer: { id: 'payer-1', name: 'Pat Payer' }, version: 2 }));
    expect(await Promise.all(paid.map((p, i) => (i % 2 ? one : two).updatePayment(p, 1)))).toEqual(paid.map(() => true));
    now = await paymentCounts(one, 'M2');
    expect(now).toMatchObject({ bytes: now.stored_bytes, count: 40 });
    expect(await two.prunePayments('M2', Number.MAX_SAFE_INTEGER)).toBe(20);
    now = await paymentCounts(one, 'M2');
    expect(now).toMatchObject({ bytes: now.stored_bytes, count: 20, stored: 20 });
    expect(await one.belowPaymentCap('M2', 21)).toBe(true);
    expect(await two.belowPaymentCap('M2', 20)).toBe(false);
    await Promise.all([one.resetMerchant('M2'), ...Array.from({ length: 6 }, () => two.insertPayment(payment('M2')))]);
    now = await paymentCounts(one, 'M2');
    expect(now).toMatchObject({ bytes: now.stored_bytes, count: now.stored });
    expect((await one.storageUsage('M2')).merchantBytes).toBe(now.stored_bytes);
  });

  it("a create of the merchant waiting for its commit holds up only the one of its other creates that takes the same row", async () => {
    const url = await freshDatabase();
    const s = await store(url);
    await s.saveMerchant(merchant('M5'));
    // Every slot exists, so a create meets a row lock wherever it counts.
    for (let i = 0; i < 16; i++) expect(await s.insertPayment(payment('M5'))).toBe('inserted');
    const admin = postgres(url, { max: 1, onnotice: () => {} });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    // A transaction holding one of the merchant's rows, as a create does until its commit is on disk.
    const holder = admin.begin(async (tx) => {
      await tx`SELECT 1 FROM payreq_payment_counts WHERE payee_id = 'M5' AND slot = 0 FOR UPDATE`;
      locked();
      await held;
    });
    try {
      await lockTaken;
      const done: string[] = [];
      const creates = Array.from({ length: 4 }, () => s.insertPayment(payment('M5')).then((r) => done.push(r)));
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      // Each takes the next row in turn: at most one of four meets the held one.
      expect(done.length).toBeGreaterThanOrEqual(3);
      release();
      await Promise.all(creates);
      expect(done).toEqual(['inserted', 'inserted', 'inserted', 'inserted']);
    } finally {
      release();
      await holder;
      await admin.end();
    }
  });

  it('sequential creates stop exactly at the quota', async () => {
    const s = await store(await freshDatabase());
    await s.saveMerchant(merchant('M3'));
    const size = recordBytes(payment('M3'));
    const limits: StorageLimits = { merchantBytes: 7 * size, sandboxBytes: Number.MAX_SAFE_INTEGER };
    for (let i = 0; i < 7; i++) expect(await s.insertPayment(payment('M3'), [], limits)).toBe('inserted');
    expect(await s.insertPayment(payment('M3'), [], limits)).toBe('merchant_quota');
    expect((await s.storageUsage('M3')).merchantBytes).toBe(7 * size);
    expect(await paymentCounts(s, 'M3')).toMatchObject({ count: 7, stored: 7 });
  });

  it('concurrent creates from two instances pass the quota by at most one payment per other database connection', async () => {
    const url = await freshDatabase();
    // 3 + 3 connections: at most 6 creates run at once, so at most 5 go unseen by the one that passes last.
    const [one, two] = [await store(url, 3), await store(url, 3)];
    await one.saveMerchant(merchant('M4'));
    const size = recordBytes(payment('M4'));
    const quota = Math.floor(10.5 * size);
    const limits: StorageLimits = { merchantBytes: quota, sandboxBytes: Number.MAX_SAFE_INTEGER };
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? one : two).insertPayment(payment('M4'), [], limits)));
    const stored = results.filter((r) => r === 'inserted').length;
    expect(results.filter((r) => r !== 'inserted').every((r) => r === 'merchant_quota')).toBe(true);
    const used = (await one.storageUsage('M4')).merchantBytes;
    expect(used).toBe(stored * size);
    expect(stored).toBeGreaterThanOrEqual(10);
    expect(used).toBeLessThanOrEqual(quota + 5 * size);
    // Once they are committed, every create sees them: the next is refused.
    expect(await one.insertPayment(payment('M4'), [], limits)).toBe('merchant_quota');
    expect(await paymentCounts(one, 'M4')).toMatchObject({ count: stored, stored });
  });
});
