import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { apiKeyHash } from '../../src/domain/ids.js';
import type { Payment } from '../../src/domain/payment.js';
import { createSandbox } from '../../src/index.js';
import type { Sandbox } from '../../src/index.js';
import { FileStore, SNAPSHOT_FORMAT } from '../../src/store/file-store.js';
import type { Snapshot } from '../../src/store/file-store.js';
import { DEMO_PAYEE, call, expectEnvelope, manualClock } from '../support/http.js';
import { removeTempDirs, tempDir, walSegments } from '../support/files.js';
import { aPayment } from '../support/payments.js';

afterAll(removeTempDirs);

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close();
});

async function fileSandbox(dataFile: string): Promise<Sandbox> {
  const sandbox = await createSandbox({ store: 'file', dataFile, clock: manualClock().clock, scheduler: false });
  opened.push(sandbox);
  return sandbox;
}

/** A stored payment of the demo merchant, inserted without HTTP so thousands take little time. */
function filler(i: number): Payment {
  const tag = String(i).padStart(8, '0');
  return aPayment({ id: `pay_fill${tag}ZZZZZZZZZZ`, token: `ptok_fill${tag}zzzzzzzzzzzzzzzzzzz`, code: `F${tag}ZZZ`, merchantRefNo: `fill-${tag}`, payeeId: DEMO_PAYEE });
}

async function fillTo(sandbox: Sandbox, count: number): Promise<void> {
  const store = sandbox.services.store;
  for (let i = await store.countPayments(DEMO_PAYEE); i < count; i++) expect(await store.insertPayment(filler(i))).toBe('inserted');
  expect(await store.countPayments(DEMO_PAYEE)).toBe(count);
}

/** Bytes the log grew by for each of three creates of the same shape. */
async function bytesPerCreate(sandbox: Sandbox, round: string): Promise<number[]> {
  const store = sandbox.services.store as FileStore;
  const out: number[] = [];
  for (let i = 0; i < 3; i++) {
    const before = store.counters.bytesAppended;
    const recordsBefore = store.counters.recordsAppended;
    const answer = await call(sandbox, 'POST', '/openapi/v1/payments/payment', {
      body: { payee: DEMO_PAYEE, product_type: 'QR_DYNAMIC', merchant_ref_no: `probe-${round}-${i}`, amount: 10.5 },
    });
    expectEnvelope(answer, 200);
    out.push(store.counters.bytesAppended - before);
    // One log record per create.
    expect(store.counters.recordsAppended - recordsBefore).toBe(1);
  }
  return out;
}

describe('FileStore: the cost of a write', () => {
  it('appends the same bytes per create at 100 and at 5,000 stored payments', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const sandbox = await fileSandbox(dataFile);
    const store = sandbox.services.store as FileStore;
    expect(store).toBeInstanceOf(FileStore);

    await fillTo(sandbox, 100);
    const small = await bytesPerCreate(sandbox, 'a');
    await fillTo(sandbox, 5000);
    const large = await bytesPerCreate(sandbox, 'b');

    // Same-shaped creates write the same record, however much is stored: no whole-file rewrite.
    expect(new Set([...small, ...large]).size).toBe(1);
    expect(small[0]).toBeGreaterThan(200);
    expect(small[0]).toBeLessThan(4096);
    // Nothing was folded into the snapshot along the way: the log alone carried the writes.
    expect(store.counters.compactions).toBe(0);
    expect(existsSync(dataFile)).toBe(false);
  });

  it('writes each create to the log on disk before answering', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const sandbox = await fileSandbox(dataFile);
    const answer = await call(sandbox, 'POST', '/openapi/v1/payments/payment', {
      body: { payee: DEMO_PAYEE, product_type: 'QR_DYNAMIC', merchant_ref_no: 'on-disk', amount: 1 },
    });
    expectEnvelope(answer, 200);
    const log = walSegments(dataFile).map((f) => readFileSync(f, 'utf8')).join('');
    const line = log.split('\n').find((l) => l.includes(answer.body.payment_id));
    expect(line).toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({ t: 'payment', v: { id: answer.body.payment_id, merchantRefNo: 'on-disk', amountMinor: 100 } });
  });
});

describe('FileStore: compaction and restart', () => {
  it('folds the log into the lowdb snapshot, deletes folded segments, and a restart replays snapshot plus log', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const first = new FileStore({ dataFile });
    await first.open();
    const sandboxLike = { services: { store: first } } as unknown as Sandbox;
    await first.saveMerchant({
      payeeId: DEMO_PAYEE, name: 'Demo', city: 'Singapore', countryCode: 'SG', mcc: '5812', homeCurrency: 'SGD', apiKeyHashes: [apiKeyHash('k')], signingSalt: 's',
      settings: { requireSignature: false, qrTtlSeconds: 900, autoSettle: true, rateLimitPerSecond: 0, inlineQrImage: false }, clockOffsetMs: 0, createdAt: 0,
    });
    await fillTo(sandboxLike, 30);
    const segmentsBefore = walSegments(dataFile);
    expect(segmentsBefore.length).toBeGreaterThanOrEqual(1);

    await first.compact();
    expect(first.counters.compactions).toBe(1);
    const snapshot = JSON.parse(readFileSync(dataFile, 'utf8')) as Snapshot;
    expect(snapshot.format).toBe(SNAPSHOT_FORMAT);
    expect(snapshot.payments).toHaveLength(30);
    expect(snapshot.merchants.map((m) => m.payeeId)).toEqual([DEMO_PAYEE]);
    for (const old of segmentsBefore) expect(existsSync(old)).toBe(false);
    const current = walSegments(dataFile);
    expect(current.map((f) => Number(f.split('.wal.')[1]))).toEqual([snapshot.walSegment]);
    expect(statSync(current[0]!).size).toBe(0);

    // Changes after the snapshot go to the log only.
    const changed = { ...filler(3), status: 'V' as const, version: 2 };
    expect(await first.updatePayment(changed, 1)).toBe(true);
    await fillTo(sandboxLike, 40);
    expect((JSON.parse(readFileSync(dataFile, 'utf8')) as Snapshot).payments).toHaveLength(30);

    // A second process opening the same files (the first never closed: as after a crash).
    const second = new FileStore({ dataFile });
    await second.open();
    opened.push(second);
    expect(await second.countPayments(DEMO_PAYEE)).toBe(40);
    expect(await second.payment(DEMO_PAYEE, changed.id)).toMatchObject({ status: 'V', version: 2 });
    expect((await second.merchantByKey('k'))?.payeeId).toBe(DEMO_PAYEE);
  });

  it('compacts in the background once the log holds enough records', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const store = new FileStore({ dataFile, compactAfter: 25 });
    await store.open();
    opened.push(store);
    const sandboxLike = { services: { store } } as unknown as Sandbox;
    await store.saveMerchant({
      payeeId: DEMO_PAYEE, name: 'Demo', city: 'Singapore', countryCode: 'SG', mcc: '5812', homeCurrency: 'SGD', apiKeyHashes: [apiKeyHash('k')], signingSalt: 's',
      settings: { requireSignature: false, qrTtlSeconds: 900, autoSettle: true, rateLimitPerSecond: 0, inlineQrImage: false }, clockOffsetMs: 0, createdAt: 0,
    });
    await fillTo(sandboxLike, 30);
    await vi.waitFor(() => expect(store.counters.compactions).toBeGreaterThanOrEqual(1), { timeout: 5000, interval: 20 });
    await vi.waitFor(() => expect(existsSync(dataFile)).toBe(true), { timeout: 5000, interval: 20 });
    const snapshot = JSON.parse(readFileSync(dataFile, 'utf8')) as Snapshot;
    expect(snapshot.payments.length).toBeGreaterThanOrEqual(24);
  });

  it('close writes everything into the snapshot; the sandbox restarts from it', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const first = await createSandbox({ store: 'file', dataFile, clock: manualClock().clock, scheduler: false });
    const created = await call(first, 'POST', '/openapi/v1/payments/payment', {
      body: { payee: DEMO_PAYEE, product_type: 'QR_DYNAMIC', merchant_ref_no: 'survives', amount: 42, payer: 'PAYER_PAYS' },
    });
    expectEnvelope(created, 200);
    const enrolled = await call(first, 'POST', '/sandbox/v1/merchants', { key: null, body: { name: 'Later Shop' } });
    await first.close();

    const snapshot = JSON.parse(readFileSync(dataFile, 'utf8')) as Snapshot;
    expect(snapshot.payments.map((p) => p.id)).toContain(created.body.payment_id);
    expect(snapshot.merchants.map((m) => m.payeeId)).toContain(enrolled.body.payee_id);
    for (const segment of walSegments(dataFile)) expect(statSync(segment).size).toBe(0);

    const second = await fileSandbox(dataFile);
    const status = await call(second, 'GET', `/openapi/v1/payments/payment/${created.body.payment_id}`);
    expectEnvelope(status, 200);
    expect(status.text).toContain('"original_amount":42.00');
    expect(status.body.payment_status).toBe('A');
    expectEnvelope(await call(second, 'GET', '/sandbox/v1/clock', { key: enrolled.body.api_key }), 200);
  });
});
