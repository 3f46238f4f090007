/**
 * The readiness evidence on PostgreSQL: a database of schema version 1 is migrated to version 2
 * (the payreq_readiness table) by instances starting together, keeping what it held; the table is
 * trimmed to what a read keeps (repeats collapsed, 2,000 entries a merchant); a reset erases it.
 */
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { apiKeyHash } from '../../src/domain/ids.js';
import { DEFAULT_SETTINGS } from '../../src/domain/merchant.js';
import type { SeenRequest } from '../../src/domain/readiness.js';
import { PostgresStore } from '../../src/store/postgres-store.js';
import { migrate, SCHEMA_VERSION } from '../../src/store/postgres-schema.js';
import { READINESS_CAP } from '../../src/store/readiness-log.js';
import { freshDatabase } from '../support/databases.js';

const opened: PostgresStore[] = [];
afterAll(async () => {
  for (const s of opened) await s.close();
});

const merchant = (payeeId: string) => ({
  payeeId, name: payeeId, city: 'Singapore', countryCode: 'SG', mcc: '5812', homeCurrency: 'SGD', apiKeyHashes: [apiKeyHash(`key-${payeeId}`)],
  signingSalt: 'salt', settings: DEFAULT_SETTINGS, clockOffsetMs: 0, createdAt: 0,
});

function seen(i: number, overrides: Partial<SeenRequest> = {}): SeenRequest {
  return {
    ref: `req-${i}`, at: 1_000 + i, answeredAt: 1_002 + i, method: 'GET', path: '/openapi/v1/payments/payment/pay_1', alias: false, status: 200, fault: null, idempotencyKey: null,
    merchantRefNo: null, amount: null, signed: false, bodyDigest: null, paymentId: 'pay_1', paymentStatus: 'P', retryAfterSeconds: null, ...overrides,
  };
}

async function store(url: string): Promise<PostgresStore> {
  const s = new PostgresStore({ url });
  opened.push(s);
  await s.open();
  return s;
}

async function rows(s: PostgresStore, payeeId: string): Promise<number> {
  const [row] = await s.run((sql) => sql<{ n: number }[]>`SELECT count(*)::int AS n FROM payreq_readiness WHERE payee_id = ${payeeId}`);
  return row!.n;
}

describe('PostgreSQL: the readiness evidence', () => {
  it('a version-1 database is migrated to version 2 by three instances starting together, keeping its merchants', async () => {
    const url = await freshDatabase();
    const admin = postgres(url, { max: 1, onnotice: () => {} });
    try {
      await migrate(admin, 'test', 1);
      expect(await admin`SELECT version FROM payreq_schema`).toEqual([{ version: 1 }]);
      expect(await admin`SELECT to_regclass('payreq_readiness') AS t`).toEqual([{ t: null }]);
      await admin`INSERT INTO payreq_merchants (payee_id, doc, auto_settle) VALUES ('M1', ${JSON.stringify(merchant('M1'))}, false)`;
    } finally {
      await admin.end();
    }

    const instances = await Promise.all([store(url), store(url), store(url)]);
    expect(await instances[0]!.run((sql) => sql`SELECT version FROM payreq_schema`)).toEqual([{ version: SCHEMA_VERSION }]);
    // Version 2 brought the readiness table; later versions keep it.
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(2);
    expect((await instances[1]!.merchant('M1'))?.payeeId).toBe('M1');
    await instances[2]!.readiness.add('M1', seen(1), null);
    expect((await instances[0]!.readiness.list('M1')).map((e) => e.ref)).toEqual(['req-1']);
  }, 30_000);

  it('reads collapse repeats; the table is trimmed to about what a read keeps; a reset erases it', async () => {
    const s = await store(await freshDatabase());
    await s.saveMerchant(merchant('M1'));
    await s.readiness.add('M1', seen(0, { method: 'POST', path: '/openapi/v1/payments/payment', paymentStatus: null }), null);
    for (let i = 1; i <= 3_000; i += 100) {
      await Promise.all(Array.from({ length: 100 }, (_, j) => s.readiness.add('M1', seen(i + j), '/openapi/v1/payments/payment/pay_1 P')));
    }
    for (let i = 0; i < READINESS_CAP + 100; i += 100) {
      await Promise.all(Array.from({ length: 100 }, (_, j) => s.readiness.add('M1', seen(10_000 + i + j, { path: '/openapi/v1/payments/payment', method: 'POST' }), null)));
    }
    const kept = await s.readiness.list('M1');
    expect(kept).toHaveLength(READINESS_CAP);
    expect(kept.at(-1)!.ref).toBe(`req-${10_000 + READINESS_CAP + 99}`);
    // The trims run in the background, every 50 entries.
    let n = Infinity;
    for (let wait = 0; wait < 50 && n > READINESS_CAP + 50; wait++) {
      n = await rows(s, 'M1');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(n).toBeLessThanOrEqual(READINESS_CAP + 50);

    await s.resetMerchant('M1');
    expect(await rows(s, 'M1')).toBe(0);
    expect(await s.readiness.list('M1')).toEqual([]);
  }, 60_000);

  it('a polling loop leaves its first and last read in the table', async () => {
    const s = await store(await freshDatabase());
    await s.readiness.add('M2', seen(0, { method: 'POST', path: '/openapi/v1/payments/payment', paymentStatus: null }), null);
    for (let i = 1; i <= 500; i++) await s.readiness.add('M2', seen(i), '/openapi/v1/payments/payment/pay_1 P');
    // The trims run in the background, by a timer: run the due ones now.
    await s.trims.runAll();
    expect((await s.readiness.list('M2')).map((e) => e.ref)).toEqual(['req-0', 'req-1', 'req-500']);
    expect(await rows(s, 'M2')).toBeLessThanOrEqual(3 + 50);
  }, 30_000);
});
