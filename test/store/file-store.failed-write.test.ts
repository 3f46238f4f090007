/**
 * A log write that fails (a full disk, mocked here; test/durability/healthz-disk.test.ts fills a
 * real one) fails before memory changes: the caller gets StoreUnavailableError, the request a 503
 * in the envelope, and the log keeps no half line.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { vi } from 'vitest';
import { apiKeyHash } from '../../src/domain/ids.js';
import { storedPayments } from '../support/payment-counts.js';
import { ANY_MERCHANT } from '../support/claims.js';

vi.mock('node:fs', async (importOriginal) => (await import('../support/failing-writes.js')).fsFailingOnCue(importOriginal));

const { failNext } = await import('../support/failing-writes.js');
const { FileStore } = await import('../../src/store/file-store.js');
const { StoreUnavailableError } = await import('../../src/store/unavailable.js');
const { DEFAULT_SETTINGS } = await import('../../src/domain/merchant.js');
const { createSandbox } = await import('../../src/index.js');
const { aPayment } = await import('../support/payments.js');
const { DEMO_PAYEE, call, createPayment, expectEnvelope, manualClock } = await import('../support/http.js');
const { capturedLog, LEVEL, STACK_TRACE } = await import('../support/log.js');

function numbered(i: number) {
  const tag = String(i).padStart(8, '0');
  return aPayment({ id: `pay_bad${tag}ZZZZZZZZZZZZ`, token: `ptok_bad${tag}zzzzzzzzzzzzzzzzzzzz`, code: `B${tag}ZZZ`, merchantRefNo: `bad-${tag}`, payeeId: DEMO_PAYEE });
}

function merchant(id: string) {
  return { payeeId: id, name: id, city: 'C', countryCode: 'SG', mcc: '5812', homeCurrency: 'SGD', apiKeyHashes: [apiKeyHash(`k-${id}`)], signingSalt: 's', settings: DEFAULT_SETTINGS, clockOffsetMs: 0, createdAt: 0 };
}

/** Runs `change` on a disk that fills once its first line has landed; answers what it answered, or what it threw. */
async function withDiskFullAfterFirstLine(store: InstanceType<typeof FileStore>, change: () => Promise<unknown>): Promise<unknown> {
  const write = store.write.bind(store);
  const spy = vi.spyOn(store, 'write').mockImplementation((...records) => {
    write(...records);
    failNext.armed = true;
  });
  try {
    return await change().catch((err: unknown) => err);
  } finally {
    failNext.armed = false;
    spy.mockRestore();
  }
}

describe('a failed log write', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'payreq-torn-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('leaves no half line behind: the log is cut back, and the next acknowledged write survives a restart', async () => {
    const dataFile = path.join(dir, 's.json');
    const store = new FileStore({ dataFile });
    await store.open();
    await store.saveMerchant(merchant('A'));
    const before = readFileSync(`${dataFile}.log`, 'utf8');
    failNext.armed = true;
    await expect(store.saveMerchant(merchant('B'))).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(readFileSync(`${dataFile}.log`, 'utf8')).toBe(before);
    await store.saveMerchant(merchant('C'));
    expect(await store.merchantIds()).toEqual(['A', 'C']);
    // Restart without close(), as after a crash: only the log holds the data.
    const again = new FileStore({ dataFile });
    await again.open();
    expect(await again.merchantIds()).toEqual(['A', 'C']);
  });

  it('changes nothing in memory when the write of a create or an update fails; both can be made again', async () => {
    const dataFile = path.join(dir, 'memory.json');
    const store = new FileStore({ dataFile });
    await store.open();
    expect(await store.insertPayment(numbered(0))).toBe('inserted');
    const usage = await store.storageUsage(DEMO_PAYEE);

    failNext.armed = true;
    await expect(store.insertPayment(numbered(1))).rejects.toThrow(/is full|ENOSPC/);
    failNext.armed = true;
    await expect(store.updatePayment({ ...numbered(0), status: 'W', payer: { id: 'alice', name: 'Alice' }, version: 2 }, 1)).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(await storedPayments(store, DEMO_PAYEE)).toBe(1);
    expect(await store.payment(DEMO_PAYEE, numbered(1).id)).toBeUndefined();
    expect(await store.paymentByToken(numbered(1).token)).toBeUndefined();
    expect(await store.paymentByRef(DEMO_PAYEE, numbered(1).merchantRefNo)).toBeUndefined();
    expect(await store.payment(DEMO_PAYEE, numbered(0).id)).toEqual(numbered(0));
    expect(await store.storageUsage(DEMO_PAYEE)).toEqual(usage);

    expect(await store.insertPayment(numbered(1))).toBe('inserted');
    expect(await store.updatePayment({ ...numbered(0), status: 'W', payer: { id: 'bob', name: 'Bob' }, version: 2 }, 1)).toBe(true);
    const again = new FileStore({ dataFile });
    await again.open();
    expect((await again.listPayments(DEMO_PAYEE, { limit: 10, offset: 0 })).items.map((p) => p.id).sort()).toEqual([numbered(0).id, numbered(1).id]);
    expect((await again.payment(DEMO_PAYEE, numbered(0).id))?.payer?.id).toBe('bob');
  });

  it("writes a turn's records (journal entries) in one write at its end, or before the turn's next change; a lost line is said and its answer text rides the next entry", async () => {
    const dataFile = path.join(dir, 'records.json');
    const store = new FileStore({ dataFile });
    await store.open();
    const text = '{"code":200,"status":"P"}';
    const read = (i: number) => ({ at: i, method: 'GET', path: '/openapi/v1/payments/payment/p1', alias: false, status: 200, code: 200, requestBody: null, responseBody: text, answerRef: 'p1:1', latencyMs: 1, fault: null, warnings: [], requestId: `req-${i}` });
    const logLines = () => readFileSync(`${dataFile}.log`, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { t: string; v: { requestId?: string; responseBody?: string | null } });
    const turn = () => new Promise((resolve) => setImmediate(resolve));

    await store.journal.append(DEMO_PAYEE, read(1));
    await store.journal.append(DEMO_PAYEE, read(2));
    expect(logLines().filter((l) => l.t === 'journal')).toEqual([]);
    await store.saveMerchant(merchant('A'));
    // The change carries the turn's records before it, in one write.
    expect(logLines().slice(-3).map((l) => l.t)).toEqual(['journal', 'journal', 'merchant']);

    // The line of the entry that carries the text is lost: the next entry that refers to it carries it again.
    await store.journal.append(DEMO_PAYEE, read(3));
    await store.journal.append(DEMO_PAYEE, read(4));
    failNext.armed = true;
    await turn();
    expect(logLines().filter((l) => l.t === 'journal').map((l) => l.v.requestId)).toEqual(['req-1', 'req-2']);
    await store.journal.append(DEMO_PAYEE, read(5));
    await turn();
    const again = new FileStore({ dataFile });
    await again.open();
    expect((await again.journal.list(DEMO_PAYEE, { limit: 10 })).map((e) => [e.requestId, e.responseBody])).toEqual([['req-5', text], ['req-2', text], ['req-1', text]]);
  });

  it('a delayed fsync that fails (SANDBOX_FSYNC=second) is said once and shown by readiness until an fsync succeeds, never thrown', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const captured = capturedLog();
    const dataFile = path.join(dir, 'fsync.json');
    // A probe clock that stands still: the probe of the first readiness check, before the failure, serves every later check.
    const store = new FileStore({ dataFile, fsync: 'second', logger: captured.log, clock: () => 0 });
    const said = () => captured.events().filter((e) => Number(e.level) >= LEVEL.info).map((e) => e.msg);
    try {
      await store.open();
      await store.saveMerchant(merchant('A'));
      await expect(store.ready()).resolves.toBeUndefined();
      failNext.fsync = true;
      vi.advanceTimersByTime(1_000);
      expect(failNext.fsync).toBe(false);
      expect(captured.events().filter((e) => Number(e.level) >= LEVEL.warn)).toEqual([
        { level: LEVEL.error, time: expect.any(Number), file: `${dataFile}.log`, err: 'EIO: i/o error, fsync', code: 'EIO', msg: 'store fsync failed: changes since the last flush may not survive a power loss' },
      ]);
      await expect(store.ready()).rejects.toThrow(/EIO/);
      // A write that lands is no proof the disk keeps it: readiness still says so until an fsync succeeds.
      await store.saveMerchant(merchant('B'));
      await expect(store.ready()).rejects.toThrow(/EIO/);
      vi.advanceTimersByTime(1_000);
      await expect(store.ready()).resolves.toBeUndefined();
      expect(said()).toEqual(['store fsync failed: changes since the last flush may not survive a power loss', 'store fsync works again']);
      expect(await store.merchantIds()).toEqual(['A', 'B']);
    } finally {
      vi.useRealTimers();
      await store.close();
    }
    // A record that comes after the stop is not written, and nothing is said of it.
    await store.journal.append(DEMO_PAYEE, { at: 1, method: 'GET', path: '/p', alias: false, status: 200, code: 200, requestBody: null, responseBody: null, latencyMs: 1, fault: null, warnings: [] });
    await new Promise((resolve) => setImmediate(resolve));
    expect(said()).toHaveLength(2);
  });

  it("a change the turn's records make too long for the disk goes alone: the records are given up (said), the change is written", async () => {
    const dataFile = path.join(dir, 'alone.json');
    const store = new FileStore({ dataFile });
    await store.open();
    const read = (i: number) => ({ at: i, method: 'GET', path: '/p', alias: false, status: 200, code: 200, requestBody: null, responseBody: null, latencyMs: 1, fault: null, warnings: [], requestId: `req-${i}` });
    await store.journal.append(DEMO_PAYEE, read(1));
    failNext.armed = true;
    await store.saveMerchant(merchant('B'));
    expect(failNext.armed).toBe(false);
    expect(await store.merchantIds()).toEqual(['B']);
    const again = new FileStore({ dataFile });
    await again.open();
    expect(await again.merchantIds()).toEqual(['B']);
    expect(await again.journal.list(DEMO_PAYEE, { limit: 10 })).toEqual([]);
  });

  it("a start whose own snapshot is written but whose log is not restarted (a crash between the two) starts again with what that snapshot holds", async () => {
    const dataFile = path.join(dir, 'start-snapshot.json');
    const store = new FileStore({ dataFile });
    await store.open();
    await store.saveMerchant(merchant('A'));
    // A damaged line, then a whole one: only a repair goes on, and its start writes a snapshot of what it read.
    appendFileSync(`${dataFile}.log`, `not json\n${JSON.stringify({ t: 'merchant', v: merchant('C') })}\n`);
    failNext.rename = true;
    await expect(new FileStore({ dataFile, repair: true, logger: capturedLog().log }).open()).rejects.toThrow(/EIO/);
    const again = new FileStore({ dataFile });
    await again.open();
    expect(await again.merchantIds()).toEqual(['A', 'C']);
    await again.close();
  });

  it('a reset is one write: a disk that fills after its line leaves memory as a restart finds it (no pending delivery, no journal of the erased payments)', async () => {
    const dataFile = path.join(dir, 'reset.json');
    const store = new FileStore({ dataFile });
    await store.open();
    await store.saveMerchant(merchant(DEMO_PAYEE));
    const pending = { id: 'dlv_reset', payeeId: DEMO_PAYEE, eventId: 'evt_1', eventType: 'payment.created', paymentId: numbered(0).id, url: 'https://example.test/hook', body: '{}', state: 'pending' as const, attempts: [], attempt: 0, nextAttemptAt: 0, createdAt: 0 };
    expect(await store.insertPayment(numbered(0), [pending])).toBe('inserted');
    await store.journal.append(DEMO_PAYEE, { at: 1, method: 'POST', path: '/openapi/v1/payments/payment', alias: false, status: 200, code: 200, requestBody: null, responseBody: null, latencyMs: 1, fault: null, warnings: [] });
    await new Promise((resolve) => setImmediate(resolve));
    // The reset's line lands; the disk is full for any write after it.
    const outcome = await withDiskFullAfterFirstLine(store, () => store.resetMerchant(DEMO_PAYEE));
    const seen = async (s: InstanceType<typeof FileStore>) => ({
      payments: await storedPayments(s, DEMO_PAYEE),
      deliveries: (await s.deliveries.list(DEMO_PAYEE, 10)).map((d) => d.id),
      due: (await s.deliveries.claimDue(Number.MAX_SAFE_INTEGER, 1, 10, ANY_MERCHANT)).map((d) => d.id),
      journal: (await s.journal.list(DEMO_PAYEE, { limit: 10 })).length,
    });
    const restarted = new FileStore({ dataFile });
    await restarted.open();
    expect(await seen(store)).toEqual(await seen(restarted));
    // The line that erases it all landed: the reset is made, and answered as made.
    expect(outcome).toBe(1);
  });

  it("a reset of a merchant whose clock moved is one write too: a disk that fills after its line does not answer 503 for a reset that is made", async () => {
    const dataFile = path.join(dir, 'reset-clock.json');
    const store = new FileStore({ dataFile });
    await store.open();
    await store.saveMerchant({ ...merchant(DEMO_PAYEE), clockOffsetMs: 3_600_000 });
    expect(await store.insertPayment(numbered(0))).toBe('inserted');
    const outcome = await withDiskFullAfterFirstLine(store, () => store.resetMerchant(DEMO_PAYEE));
    const seen = async (s: InstanceType<typeof FileStore>) => ({ payments: await storedPayments(s, DEMO_PAYEE), clock: (await s.merchant(DEMO_PAYEE))?.clockOffsetMs });
    const restarted = new FileStore({ dataFile });
    await restarted.open();
    expect(await seen(store)).toEqual(await seen(restarted));
    // Its line landed, so it is made (payments erased, clock back): a 503 would say nothing changed.
    expect(outcome).toBe(1);
    expect(await seen(store)).toEqual({ payments: 0, clock: 0 });
  });

  it('a merchant deletion is one write: a disk that fills after its first line leaves memory as a restart finds it, and the deletion answered as made', async () => {
    const dataFile = path.join(dir, 'delete.json');
    const store = new FileStore({ dataFile });
    await store.open();
    await store.saveMerchant(merchant(DEMO_PAYEE));
    expect(await store.insertPayment(numbered(0))).toBe('inserted');
    const outcome = await withDiskFullAfterFirstLine(store, () => store.deleteMerchant(DEMO_PAYEE));
    const seen = async (s: InstanceType<typeof FileStore>) => ({ merchant: (await s.merchant(DEMO_PAYEE))?.payeeId ?? null, payments: await storedPayments(s, DEMO_PAYEE) });
    const restarted = new FileStore({ dataFile });
    await restarted.open();
    expect(await seen(store)).toEqual(await seen(restarted));
    expect(await seen(store)).toEqual({ merchant: null, payments: 0 });
    expect(outcome).toEqual({ payments: 1, journalEntries: 0, deliveries: 0 });
  });

  it("a key's answer whose line fails is not kept as answered (a retry after a restart would run again where this process replays)", async () => {
    const dataFile = path.join(dir, 'key.json');
    const store = new FileStore({ dataFile });
    await store.open();
    expect(await store.idempotency.begin(DEMO_PAYEE, 'k-1', 'POST /p {}', 1, 1)).toEqual({ kind: 'started' });
    failNext.armed = true;
    // Said to the caller or not, memory must not hold an answer the log lost.
    await store.idempotency.finish(DEMO_PAYEE, 'k-1', 200, '{"code":200}').catch(() => undefined);
    failNext.armed = false;
    const restarted = new FileStore({ dataFile });
    await restarted.open();
    // A retry (its claim's lease long over): this process and a restarted one answer it the same way.
    const here = await store.idempotency.begin(DEMO_PAYEE, 'k-1', 'POST /p {}', 2, 10_000_000);
    const there = await restarted.idempotency.begin(DEMO_PAYEE, 'k-1', 'POST /p {}', 2, 10_000_000);
    expect(here).toEqual(there);
  });

  it('over HTTP: the create answers 503 in the envelope, nothing kept, said once in the log without a stack; the next create works', async () => {
    const captured = capturedLog();
    const httpFile = path.join(dir, 'http.json');
    const sandbox = await createSandbox({ store: 'file', dataFile: httpFile, clock: manualClock().clock, scheduler: false, log: captured.log });
    const { payment_id: paymentId } = await createPayment(sandbox);
    const before = await call(sandbox, 'GET', `/openapi/v1/payments/payment/${paymentId}`);
    // The read's journal line goes out at the end of its turn: the create's write then carries nothing else.
    await new Promise((resolve) => setImmediate(resolve));

    const body = { payee: DEMO_PAYEE, product_type: 'QR_DYNAMIC', merchant_ref_no: 'lost-1', amount: 10.5 };
    // The create's payment line fails; its journal line (the next write) lands.
    const insert = sandbox.services.store.insertPayment.bind(sandbox.services.store);
    vi.spyOn(sandbox.services.store, 'insertPayment').mockImplementationOnce((...args) => {
      failNext.armed = true;
      return insert(...args);
    });
    const created = await call(sandbox, 'POST', '/openapi/v1/payments/payment', { body });
    expectEnvelope(created, 503);
    expect(created.body.description).toBe('The sandbox could not write its data file (ENOSPC): nothing was changed. Free disk space or check the data directory, then retry.');
    expect(created.headers.get('retry-after')).toBe('2');
    expect(await call(sandbox, 'GET', '/sandbox/v1/payments?merchant_ref_no=lost-1')).toMatchObject({ body: { total: 0 } });
    const after = await call(sandbox, 'GET', `/openapi/v1/payments/payment/${paymentId}`);
    expect([after.status, after.text]).toEqual([before.status, before.text]);

    const journal = await call(sandbox, 'GET', '/sandbox/v1/requests?limit=3');
    expect(journal.body.requests.find((e: { request_id: string }) => e.request_id === created.headers.get('request-id'))).toMatchObject({ status: 503 });
    expect(captured.events().filter((e) => Number(e.level) >= LEVEL.warn)).toEqual([
      { level: LEVEL.error, time: expect.any(Number), file: `${httpFile}.log`, err: expect.stringMatching(/is full \(ENOSPC\)/), msg: 'store write failed: changes are refused (503) until the data directory takes writes again' },
    ]);
    expect(captured.text()).not.toMatch(STACK_TRACE);
    expectEnvelope(await call(sandbox, 'POST', '/openapi/v1/payments/payment', { body }), 200);
    await sandbox.close();
  });
});
