import { copyFileSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { apiKeyHash } from '../../src/domain/ids.js';
import type { Payment } from '../../src/domain/payment.js';
import { createSandbox } from '../../src/index.js';
import type { Sandbox } from '../../src/index.js';
import { fsyncPolicy } from '../../src/store/file-log.js';
import { FileStore } from '../../src/store/file-store.js';
import { DEMO_PAYEE, call, expectEnvelope, manualClock } from '../support/http.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { jsonLines, snapshotGeneration } from '../support/json-lines.js';
import { aPayment } from '../support/payments.js';
import { storedPayments } from '../support/payment-counts.js';

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

async function fillTo(store: FileStore, count: number): Promise<void> {
  for (let i = await storedPayments(store, DEMO_PAYEE); i < count; i++) expect(await store.insertPayment(filler(i))).toBe('inserted');
  expect(await storedPayments(store, DEMO_PAYEE)).toBe(count);
}

async function storeWithMerchant(dataFile: string, snapshotAfterBytes?: number): Promise<FileStore> {
  const store = new FileStore({ dataFile, snapshotAfterBytes });
  await store.open();
  await store.saveMerchant({
    payeeId: DEMO_PAYEE, name: 'Demo', city: 'Singapore', countryCode: 'SG', mcc: '5812', homeCurrency: 'SGD', apiKeyHashes: [apiKeyHash('k')], signingSalt: 's',
    settings: { requireSignature: false, qrTtlSeconds: 900, autoSettle: true, rateLimitPerSecond: 0, inlineQrImage: false }, clockOffsetMs: 0, createdAt: 0,
  });
  return store;
}

describe('FileStore: the cost of a write', () => {
  it('appends the same bytes per create at 100 and at 5,000 stored payments, and nothing else', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const store = await storeWithMerchant(dataFile);
    opened.push(store);
    const log = `${dataFile}.log`;
    const grew = async (from: number): Promise<number[]> => {
      const out: number[] = [];
      for (let i = 0; i < 3; i++) {
        const before = statSync(log).size;
        expect(await store.insertPayment(filler(from + i))).toBe('inserted');
        out.push(statSync(log).size - before);
      }
      return out;
    };
    await fillTo(store, 100);
    const small = await grew(100);
    await fillTo(store, 5000);
    const large = await grew(5000);
    expect(new Set([...small, ...large]).size).toBe(1);
    expect(small[0]).toBeGreaterThan(200);
    expect(snapshotGeneration(dataFile)).toBe(1);
  });

  it('writes each create to the log on disk before answering', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const sandbox = await fileSandbox(dataFile);
    const answer = await call(sandbox, 'POST', '/openapi/v1/payments/payment', {
      body: { payee: DEMO_PAYEE, product_type: 'QR_DYNAMIC', merchant_ref_no: 'on-disk', amount: 1 },
    });
    expectEnvelope(answer, 200);
    const line = jsonLines(`${dataFile}.log`).find((l) => (l.v as { id?: string } | undefined)?.id === answer.body.payment_id);
    expect(line).toMatchObject({ t: 'payment', v: { id: answer.body.payment_id, merchantRefNo: 'on-disk', amountMinor: 100 } });
  });
});

describe('FileStore: snapshot and restart', () => {
  it('writes a snapshot once the log passes its size, starts the log afresh, and a restart reads snapshot plus log', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const first = await storeWithMerchant(dataFile, 20_000);
    await fillTo(first, 60);
    await first.snapshotting;
    const generation = snapshotGeneration(dataFile);
    expect(generation).toBeGreaterThan(1);
    const snapshot = jsonLines(dataFile);
    expect(snapshot[0]).toEqual({ t: 'snapshot', format: 'payreq-sandbox/2', generation, logFrom: expect.any(Number) });
    expect(snapshot.at(-1)).toEqual({ t: 'end', records: snapshot.length - 2 });
    const log = jsonLines(`${dataFile}.log`);
    expect(log[0]).toEqual({ t: 'log', format: 'payreq-sandbox/2', generation });
    expect(statSync(`${dataFile}.log`).size).toBeLessThan(20_000);

    const changed = { ...filler(3), status: 'V' as const, version: 2 };
    expect(await first.updatePayment(changed, 1)).toBe(true);
    // A second process opening the same files (the first never closed: as after a crash).
    const second = new FileStore({ dataFile });
    await second.open();
    opened.push(second, first);
    expect(await storedPayments(second, DEMO_PAYEE)).toBe(60);
    expect(await second.payment(DEMO_PAYEE, changed.id)).toMatchObject({ status: 'V', version: 2 });
    expect((await second.merchantByKey('k'))?.payeeId).toBe(DEMO_PAYEE);
  });

  it('a stop between the new snapshot and the fresh log applies nothing twice and loses nothing', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const store = await storeWithMerchant(dataFile, 20_000);
    opened.push(store);
    // The log as the new snapshot is renamed in, put back after: as if the process stopped between the two.
    const log = (store as unknown as { log: { restart: (header: string, from: number) => Promise<void> } }).log;
    const restart = log.restart.bind(log);
    log.restart = (header, from) => (copyFileSync(`${dataFile}.log`, `${dataFile}.log-before`), restart(header, from));
    let i = 0;
    while (!store.snapshotting) expect(await store.insertPayment(filler(i++))).toBe('inserted');
    // Changes while the snapshot is written (it is taken in the next turn): in the log after the byte the snapshot names.
    await new Promise((resolve) => setImmediate(resolve));
    for (const end = i + 5; i < end; i++) expect(await store.insertPayment(filler(i))).toBe('inserted');
    await store.snapshotting;
    expect(statSync(`${dataFile}.log-before`).size).toBeGreaterThan(Number(jsonLines(dataFile)[0]!.logFrom));
    const count = await storedPayments(store, DEMO_PAYEE);
    copyFileSync(`${dataFile}.log-before`, `${dataFile}.log`);
    const restarted = new FileStore({ dataFile });
    await restarted.open();
    opened.push(restarted);
    expect(await storedPayments(restarted, DEMO_PAYEE)).toBe(count);
    expect(jsonLines(`${dataFile}.log`)).toEqual([{ t: 'log', format: 'payreq-sandbox/2', generation: 3 }]);
  });

  it('keeps everything across a close and a restart of the sandbox', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const first = await createSandbox({ store: 'file', dataFile, clock: manualClock().clock, scheduler: false });
    const created = await call(first, 'POST', '/openapi/v1/payments/payment', {
      body: { payee: DEMO_PAYEE, product_type: 'QR_DYNAMIC', merchant_ref_no: 'survives', amount: 42, payer: 'PAYER_PAYS' },
    });
    expectEnvelope(created, 200);
    const enrolled = await call(first, 'POST', '/sandbox/v1/merchants', { key: null, body: { name: 'Later Shop' } });
    await first.close();

    const second = await fileSandbox(dataFile);
    const status = await call(second, 'GET', `/openapi/v1/payments/payment/${created.body.payment_id}`);
    expectEnvelope(status, 200);
    expect(status.text).toContain('"original_amount":42.00');
    expect(status.body.payment_status).toBe('A');
    expectEnvelope(await call(second, 'GET', '/sandbox/v1/clock', { key: enrolled.body.api_key }), 200);
    for (const file of [dataFile, `${dataFile}.log`]) jsonLines(file);
  });
});

describe('SANDBOX_FSYNC', () => {
  it('takes always, second (the default) and off; another word refuses the start saying what each means', () => {
    expect([undefined, '', 'always', 'second', 'off'].map(fsyncPolicy)).toEqual(['second', 'second', 'always', 'second', 'off']);
    expect(() => fsyncPolicy('sometimes')).toThrow('SANDBOX_FSYNC must be always, second or off (got "sometimes"): always flushes every change to the disk before the answer, second (the default) at most a second later, off leaves it to the OS.');
  });
});

describe('FileStore: what a merchant set survives a kill', () => {
  it('its clock, its fault rules with their counters, and its webhook URL, as the log holds them', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const first = await createSandbox({ store: 'file', dataFile, clock: manualClock().clock, scheduler: false });
    expectEnvelope(await call(first, 'POST', '/sandbox/v1/clock/advance', { body: { seconds: 3600 } }), 200);
    expectEnvelope(await call(first, 'POST', '/sandbox/v1/faults', { body: { match: { method: 'POST', path: '*/payments/payment' }, fault: 'error=503', times: 2 } }), 200);
    const refused = await call(first, 'POST', '/openapi/v1/payments/payment', { body: { payee: DEMO_PAYEE, product_type: 'QR_DYNAMIC', merchant_ref_no: 'r-1', amount: 1 } });
    expect(refused.status).toBe(503);
    expectEnvelope(await call(first, 'PUT', '/sandbox/v1/webhook', { body: { url: 'http://127.0.0.1:9/hook' } }), 200);
    expect((await call(first, 'GET', '/sandbox/v1/clock')).body.offset_seconds).toBe(3600);

    // Not closed: as after kill -9, the next process reads what the log holds.
    const second = await fileSandbox(dataFile);
    expect((await call(second, 'GET', '/sandbox/v1/clock')).body.offset_seconds).toBe(3600);
    expect((await call(second, 'GET', '/sandbox/v1/faults')).body.rules).toMatchObject([{ times_left: 1, fired: 1 }]);
    expect((await call(second, 'GET', '/sandbox/v1/webhook')).body.url).toBe('http://127.0.0.1:9/hook');
    await first.close();
  });
});
