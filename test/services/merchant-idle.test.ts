/**
 * Idle merchants expire on a hosted sandbox (SANDBOX_MERCHANT_IDLE_DAYS, issue 10): a merchant
 * whose key has not been used for that many days of real time is deleted like DELETE
 * /sandbox/v1/merchant, by the background sweep. Time is the sandbox's injected clock: nobody
 * sleeps for days. The use of a key is written at most once an hour, not on every request.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { configFromEnv } from '../../src/serve-command.js';
import { DAY_MS } from '../../src/domain/transitions.js';
import { createSandbox } from '../../src/index.js';
import type { Sandbox, SandboxOptions } from '../../src/index.js';
import { startScheduler } from '../../src/services/index.js';
import { USE_WRITTEN_EVERY_MS } from '../../src/services/merchants.js';
import type { FileStore } from '../../src/store/file-store.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { call, expectEnvelope, manualClock, memorySandbox } from '../support/http.js';
import { DEMO_PAYEE } from '../helpers.js';
import { storedPayments } from '../support/payment-counts.js';

afterAll(removeTempDirs);

const HOUR_MS = 3_600_000;
const IDLE_DAYS = 30;
/** How long after its last use a merchant is deleted at the earliest: the days, plus the hour a use may wait to be written. */
const IDLE_MS = IDLE_DAYS * DAY_MS + USE_WRITTEN_EVERY_MS;

const open: Sandbox[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

async function sandboxAt(clock: ReturnType<typeof manualClock>, options: SandboxOptions = {}): Promise<Sandbox> {
  const sandbox = options.store === 'file' ? await createSandbox({ scheduler: false, clock: clock.clock, ...options }) : await memorySandbox({ clock: clock.clock, ...options });
  open.push(sandbox);
  return sandbox;
}

const idleConfig = { config: { merchantIdleDays: IDLE_DAYS } };
const turn = () => new Promise((resolve) => setImmediate(resolve));

async function use(sandbox: Sandbox, key: string): Promise<void> {
  expectEnvelope(await call(sandbox, 'GET', '/sandbox/v1/clock', { key }), 200);
  await turn();
}

describe('idle merchants expire (SANDBOX_MERCHANT_IDLE_DAYS)', () => {
  it('deletes a merchant idle for the set days, with all it holds; keeps one used since, and the demo merchants', async () => {
    const clock = manualClock();
    const sandbox = await sandboxAt(clock, idleConfig);
    const idle = await sandbox.control.enroll({ name: 'Idle Shop' });
    const busy = await sandbox.control.enroll({ name: 'Busy Shop' });
    expectEnvelope(await call(sandbox, 'POST', '/openapi/v1/payments/payment', { key: idle.apiKey, body: { payee: idle.payeeId, product_type: 'QR_DYNAMIC', merchant_ref_no: 'idle-1', amount: 1 } }), 200);
    clock.advance(10 * DAY_MS);
    await use(sandbox, busy.apiKey);

    // The idle one's last use was its create, at the start.
    clock.advance(IDLE_MS - 10 * DAY_MS - 1);
    expect(await sandbox.services.merchants.deleteIdle()).toEqual([]);
    clock.advance(1);
    expect(await sandbox.services.merchants.deleteIdle()).toEqual([idle.payeeId]);

    expectEnvelope(await call(sandbox, 'GET', '/sandbox/v1/merchant', { key: idle.apiKey }), 401);
    expect(await storedPayments(sandbox.services.store, idle.payeeId)).toBe(0);
    expect(await sandbox.services.store.merchantByKey(busy.apiKey)).toBeDefined(); // looked up without using the key
    // Demo merchants are never used in this test, and stay: their keys are published.
    expect(await sandbox.services.store.merchant(DEMO_PAYEE)).toBeDefined();

    clock.advance(10 * DAY_MS);
    expect(await sandbox.services.merchants.deleteIdle()).toEqual([busy.payeeId]);
    expect([...(await sandbox.services.store.merchantIds())].sort()).toEqual(['DEMO-MERCHANT-1', 'DEMO-MERCHANT-SIGNED']);
  });

  it('a merchant enrolled and never used counts from its enrolment', async () => {
    const clock = manualClock();
    const sandbox = await sandboxAt(clock, idleConfig);
    const never = await sandbox.control.enroll();
    clock.advance(IDLE_MS - 1);
    expect(await sandbox.services.merchants.deleteIdle()).toEqual([]);
    clock.advance(1);
    expect(await sandbox.services.merchants.deleteIdle()).toEqual([never.payeeId]);
  });

  it('off by default (npm start, the library): nobody is deleted, however long idle', async () => {
    const clock = manualClock();
    const sandbox = await sandboxAt(clock);
    expect(sandbox.services.config.merchantIdleDays).toBe(0);
    const enrolled = await sandbox.control.enroll();
    clock.advance(10_000 * DAY_MS);
    expect(await sandbox.services.merchants.deleteIdle()).toEqual([]);
    expectEnvelope(await call(sandbox, 'GET', '/sandbox/v1/merchant', { key: enrolled.apiKey }), 200);
    // Nothing recorded either: no write for a feature that is off.
    expect((await sandbox.services.store.merchant(enrolled.payeeId))?.lastUsedAt).toBeUndefined();
  });

  it('the sweep runs in the background, once at start and then hourly', async () => {
    const clock = manualClock();
    const sandbox = await sandboxAt(clock, idleConfig);
    const first = await sandbox.control.enroll();
    clock.advance(30 * 60_000);
    const second = await sandbox.control.enroll();
    clock.advance(IDLE_MS - 30 * 60_000);
    const gone = async (payeeId: string) => (await sandbox.services.store.merchant(payeeId)) === undefined;
    const until = async (payeeId: string) => {
      for (let i = 0; i < 400 && !(await gone(payeeId)); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    };
    const stop = startScheduler(sandbox.services, 5);
    try {
      // At start: the first is idle, the second not yet.
      await until(first.payeeId);
      expect(await gone(first.payeeId)).toBe(true);
      expect(await gone(second.payeeId)).toBe(false);
      // Idle 10 minutes later, it waits for the next sweep, an hour after the first.
      clock.advance(40 * 60_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await gone(second.payeeId)).toBe(false);
      clock.advance(20 * 60_000);
      await until(second.payeeId);
      expect(await gone(second.payeeId)).toBe(true);
    } finally {
      stop();
    }
  });
});

describe('the use of a key is recorded cheaply', () => {
  it('written to the store at most once an hour per merchant, however many requests', async () => {
    const clock = manualClock();
    const dataFile = path.join(tempDir(), 'sandbox.json');
    const sandbox = await sandboxAt(clock, { ...idleConfig, store: 'file', dataFile });
    const enrolled = await sandbox.control.enroll();
    const store = sandbox.services.store as FileStore;
    // The merchant's lines in the log (each request's journal entry has its own).
    const records = () => readFileSync(`${dataFile}.log`, 'utf8').split('\n').filter((l) => l.startsWith('{"t":"merchant"')).length;

    const before = records();
    for (let i = 0; i < 50; i++) await use(sandbox, enrolled.apiKey);
    expect(records() - before).toBe(1);
    expect((await store.merchant(enrolled.payeeId))?.lastUsedAt).toBe(clock.now);

    clock.advance(USE_WRITTEN_EVERY_MS - 1);
    for (let i = 0; i < 50; i++) await use(sandbox, enrolled.apiKey);
    expect(records() - before).toBe(1);
    clock.advance(1);
    await use(sandbox, enrolled.apiKey);
    expect(records() - before).toBe(2);
    expect((await store.merchant(enrolled.payeeId))?.lastUsedAt).toBe(clock.now);
  });

  it('a use not yet written still keeps the merchant on this instance; a written one survives a restart', async () => {
    const clock = manualClock();
    const dataFile = path.join(tempDir(), 'sandbox.json');
    const options: SandboxOptions = { ...idleConfig, store: 'file', dataFile };
    let sandbox = await sandboxAt(clock, options);
    const enrolled = await sandbox.control.enroll();
    await use(sandbox, enrolled.apiKey); // written: the first use
    const writtenAt = clock.now;
    clock.advance(HOUR_MS / 2);
    await use(sandbox, enrolled.apiKey); // in memory only: within the hour
    clock.advance(IDLE_MS - HOUR_MS / 2);
    expect(await sandbox.services.merchants.deleteIdle()).toEqual([]);

    await sandbox.close();
    open.splice(open.indexOf(sandbox), 1);
    sandbox = await sandboxAt(clock, options);
    expect((await sandbox.services.store.merchant(enrolled.payeeId))?.lastUsedAt).toBe(writtenAt);
    // After the restart only the written use counts: idle for the days and the hour since it.
    expect(clock.now - writtenAt).toBe(IDLE_MS);
    expect(await sandbox.services.merchants.deleteIdle()).toEqual([enrolled.payeeId]);
  });

  it('a merchant stored before uses were recorded counts from its newest journal entry', async () => {
    const clock = manualClock();
    const sandbox = await sandboxAt(clock, idleConfig);
    const enrolled = await sandbox.control.enroll();
    const { store } = sandbox.services;
    clock.advance(20 * DAY_MS);
    await store.journal.append(enrolled.payeeId, { at: clock.now, method: 'GET', path: '/sandbox/v1/clock', alias: false, status: 200, code: 200, requestBody: null, responseBody: null, latencyMs: 1, fault: null, warnings: [] });
    clock.advance(IDLE_MS - 1);
    expect((await store.merchant(enrolled.payeeId))?.lastUsedAt).toBeUndefined();
    expect(await sandbox.services.merchants.deleteIdle()).toEqual([]);
    clock.advance(1);
    expect(await sandbox.services.merchants.deleteIdle()).toEqual([enrolled.payeeId]);
  });
});

describe('SANDBOX_MERCHANT_IDLE_DAYS', () => {
  it('is a whole number of days; unset or 0 is off; anything else is refused, naming it', () => {
    expect(configFromEnv({ SANDBOX_MERCHANT_IDLE_DAYS: '30' }).merchantIdleDays).toBe(30);
    expect(configFromEnv({}).merchantIdleDays).toBe(0);
    expect(configFromEnv({ SANDBOX_MERCHANT_IDLE_DAYS: '0' }).merchantIdleDays).toBe(0);
    for (const bad of ['-1', '1.5', 'thirty']) expect(() => configFromEnv({ SANDBOX_MERCHANT_IDLE_DAYS: bad })).toThrow(`SANDBOX_MERCHANT_IDLE_DAYS must be a whole number of days (0 keeps every merchant), got ${bad}`);
  });
});
