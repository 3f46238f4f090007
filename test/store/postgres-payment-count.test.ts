/**
 * The merchant's payment count on PostgreSQL (payreq_payment_counts.payment_count): a database of schema
 * version 8 is migrated with its payments counted; create, prune and reset keep the count equal to
 * the payments stored; the payment cap holds from it; the key's read brings it (and the merchant)
 * in the same statement, and a merchant changed by another instance is never answered stale.
 */
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { apiKeyHash } from '../../src/domain/ids.js';
import { DEFAULT_SETTINGS } from '../../src/domain/merchant.js';
import type { Merchant } from '../../src/domain/merchant.js';
import { newPayment } from '../../src/domain/payment.js';
import { PostgresStore } from '../../src/store/postgres-store.js';
import { migrate, SCHEMA_VERSION } from '../../src/store/postgres-schema.js';
import { freshDatabase } from '../support/databases.js';
import { paymentCounts } from '../support/payment-counts.js';

const opened: PostgresStore[] = [];
afterAll(async () => {
  for (const s of opened) await s.close();
});

const merchant = (payeeId: string, name = payeeId): Merchant => ({
  payeeId, name, city: 'Singapore', countryCode: 'SG', mcc: '5812', homeCurrency: 'SGD', apiKeyHashes: [apiKeyHash(`key-${payeeId}`)],
  signingSalt: 'salt', settings: DEFAULT_SETTINGS, clockOffsetMs: 0, createdAt: 0,
});

let serial = 0;
function payment(payeeId: string, createdAt = 1_000) {
  const n = ++serial;
  return {
    ...newPayment({
      id: `pay_count_${n}`, token: `tok_count_${n}`, code: `CODE${String(n).padStart(8, '0')}`, payeeId, merchantRefNo: `ref-${n}`,
      productType: 'QR_DYNAMIC', currency: 'SGD', amountMinor: 1050, now: createdAt, ttlMs: 60_000,
    }),
    // Paid and settled, so no longer live: prunable.
    status: 'A' as const,
    settled: true,
  };
}

async function store(url: string): Promise<PostgresStore> {
  const s = new PostgresStore({ url });
  opened.push(s);
  await s.open();
  return s;
}

/** The payments counted for the merchant, and those it really stores. */
async function counted(s: PostgresStore, payeeId: string): Promise<{ kept: number; stored: number }> {
  const { count, stored } = await paymentCounts(s, payeeId);
  return { kept: count, stored };
}

describe('PostgreSQL: the merchant payment count', () => {
  it('a version-8 database is migrated with its payments counted', async () => {
    const url = await freshDatabase();
    const admin = postgres(url, { max: 1, onnotice: () => {} });
    try {
      await migrate(admin, 'test', 8);
      await admin`INSERT INTO payreq_merchants (payee_id, doc, auto_settle) VALUES ('M1', ${JSON.stringify(merchant('M1'))}, false)`;
      for (let i = 0; i < 3; i++) {
        const p = payment('M1');
        await admin`INSERT INTO payreq_payments (id, payee_id, merchant_ref_no, token, code, status, live, created_at, version, doc)
          VALUES (${p.id}, 'M1', ${p.merchantRefNo}, ${p.token}, ${p.code}, 'A', false, 1000, 1, ${JSON.stringify(p)})`;
      }
      await admin`INSERT INTO payreq_storage (payee_id, payment_bytes) VALUES ('M1', 300)`;
    } finally {
      await admin.end();
    }
    const s = await store(url);
    expect(await s.run((sql) => sql`SELECT version FROM payreq_schema`)).toEqual([{ version: SCHEMA_VERSION }]);
    expect(await counted(s, 'M1')).toEqual({ kept: 3, stored: 3 });
  });

  it('create, a refused duplicate, prune and reset keep the count equal to the payments stored', async () => {
    const s = await store(await freshDatabase());
    await s.saveMerchant(merchant('M2'));
    const first = payment('M2', 1_000);
    expect(await s.insertPayment(first)).toBe('inserted');
    expect(await s.insertPayment(payment('M2', 5_000))).toBe('inserted');
    expect(await s.insertPayment({ ...payment('M2'), merchantRefNo: first.merchantRefNo })).toBe('duplicate_ref');
    expect(await counted(s, 'M2')).toEqual({ kept: 2, stored: 2 });
    expect(await s.prunePayments('M2', 2_000)).toBe(1);
    expect(await counted(s, 'M2')).toEqual({ kept: 1, stored: 1 });
    await s.resetMerchant('M2');
    expect(await counted(s, 'M2')).toEqual({ kept: 0, stored: 0 });
  });

  it('the cap holds across instances, near it (counted afresh) and far from it (the count the key read brought)', async () => {
    const url = await freshDatabase();
    const [a, b] = [await store(url), await store(url)];
    await a.saveMerchant(merchant('M3'));
    for (let i = 0; i < 3; i++) expect(await b.insertPayment(payment('M3'))).toBe('inserted');
    // A cap of 3 is near: counted afresh, so b's three payments (unseen by a) refuse a fourth.
    expect(await a.belowPaymentCap('M3', 3)).toBe(false);
    // A third instance learns the count with the key: 3 of a cap of 5,000 leaves room.
    const c = await store(url);
    expect(await c.merchantByKey('key-M3')).toMatchObject({ payeeId: 'M3' });
    expect(await c.belowPaymentCap('M3', 5_000)).toBe(true);
  });

  it('a key read by one instance after another changed the merchant answers the change, and an erased key nothing', async () => {
    const url = await freshDatabase();
    const [a, b] = [await store(url), await store(url)];
    await a.saveMerchant(merchant('M4', 'Before'));
    expect((await a.merchantByKey('key-M4'))?.name).toBe('Before');
    expect((await a.merchantByKey('key-M4'))?.name).toBe('Before');
    await b.updateMerchant('M4', (m) => [{ ...m, name: 'After' }, null]);
    expect((await a.merchantByKey('key-M4'))?.name).toBe('After');
    await b.updateMerchant('M4', (m) => [{ ...m, apiKeyHashes: [apiKeyHash('key-M4-new')] }, null]);
    expect(await a.merchantByKey('key-M4')).toBeUndefined();
    expect((await a.merchantByKey('key-M4-new'))?.name).toBe('After');
  });

  it('the merchants with due work are those whose own clock has reached a due or (auto-settling) settle time', async () => {
    const s = await store(await freshDatabase());
    const now = 10_000_000;
    const shop = (id: string, clockOffsetMs: number, autoSettle: boolean) => s.saveMerchant({ ...merchant(id), clockOffsetMs, settings: { ...DEFAULT_SETTINGS, autoSettle } });
    const row = (id: string, payeeId: string, due: number | null, settle: number | null) => s.run((sql) => sql`
      INSERT INTO payreq_payments (id, payee_id, merchant_ref_no, token, code, status, live, due_at, settle_at, created_at, version, doc)
      VALUES (${id}, ${payeeId}, ${id}, ${id}, ${id}, 'P', true, ${due}, ${settle}, 0, 1, '{}')`);
    await shop('DUE', 0, false);
    await row('p1', 'DUE', now - 1, null);
    await shop('NOT-YET', 0, true);
    await row('p2', 'NOT-YET', now + 1_000, now + 1_000);
    await shop('AHEAD', 5_000, false);
    await row('p3', 'AHEAD', now + 1_000, null);
    await shop('SETTLES', 0, true);
    await row('p4', 'SETTLES', null, now - 1);
    await shop('KEEPS-PAID', 0, false);
    await row('p5', 'KEEPS-PAID', null, now - 1);
    expect([...(await s.merchantsWithDueWork(now))].sort()).toEqual(['AHEAD', 'DUE', 'SETTLES']);
    expect([...(await s.merchantsWithDueWork(now + 1_000))].sort()).toEqual(['AHEAD', 'DUE', 'NOT-YET', 'SETTLES']);
  });
});
