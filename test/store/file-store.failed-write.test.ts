import { mkdtempSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { apiKeyHash } from '../../src/domain/ids.js';

vi.mock('node:fs', async (importOriginal) => (await import('../support/failing-writes.js')).fsFailingOnCue(importOriginal));

const { failNext } = await import('../support/failing-writes.js');
const { FileStore } = await import('../../src/store/file-store.js');
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

describe('a failed log write', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'payreq-torn-'));
  const dataFile = path.join(dir, 's.json');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('leaves no half line behind: the next acknowledged write survives a restart', async () => {
    const store = new FileStore({ dataFile });
    await store.open();
    await store.saveMerchant(merchant('A'));
    failNext.armed = true;
    await expect(store.saveMerchant(merchant('B'))).rejects.toThrow(/ENOSPC/);
    await store.saveMerchant(merchant('C'));
    expect(await store.merchantIds()).toEqual(['A', 'C']);
    // Restart without close(), as after a crash: only the log holds the data.
    const again = new FileStore({ dataFile });
    await again.open();
    expect(await again.merchantIds()).toEqual(['A', 'C']);
  });

  it('undoes every change of a turn whose write fails, refuses them all, and keeps the changes before and after', async () => {
    const file = path.join(dir, 'batch.json');
    const store = new FileStore({ dataFile: file });
    await store.open();
    expect(await store.insertPayment(numbered(0))).toBe('inserted');

    failNext.armed = true;
    const inserts = [1, 2, 3].map((i) => store.insertPayment(numbered(i)));
    const update = store.updatePayment({ ...numbered(0), status: 'W', payer: { id: 'alice', name: 'Alice' }, version: 2 }, 1);
    const pending = store.pendingWrites();
    for (const refused of [...inserts, update, pending]) await expect(refused).rejects.toThrow(/ENOSPC/);

    // Memory is as before the turn: the inserts are gone from every index, the update is undone.
    expect(await store.countPayments(DEMO_PAYEE)).toBe(1);
    expect(await store.payment(DEMO_PAYEE, numbered(1).id)).toBeUndefined();
    expect(await store.paymentByToken(numbered(2).token)).toBeUndefined();
    expect(await store.paymentByRef(DEMO_PAYEE, numbered(3).merchantRefNo)).toBeUndefined();
    expect(await store.payment(DEMO_PAYEE, numbered(0).id)).toEqual(numbered(0));
    expect((await store.livePayments(DEMO_PAYEE)).map((p) => p.id)).toEqual([numbered(0).id]);
    expect(store.pendingWrites()).toBeUndefined();

    // The refused ones can be made again, and the update applies to the version that was kept.
    expect(await store.insertPayment(numbered(1))).toBe('inserted');
    expect(await store.updatePayment({ ...numbered(0), status: 'W', payer: { id: 'bob', name: 'Bob' }, version: 2 }, 1)).toBe(true);

    const again = new FileStore({ dataFile: file });
    await again.open();
    expect((await again.listPayments(DEMO_PAYEE, { limit: 10, offset: 0 })).items.map((p) => p.id).sort()).toEqual([numbered(0).id, numbered(1).id]);
    expect((await again.payment(DEMO_PAYEE, numbered(0).id))?.payer?.id).toBe('bob');
  });

  it('over HTTP, fails the create whose write failed and an answer of the same turn that may show it; a status read of another payment stands', async () => {
    const captured = capturedLog();
    const httpFile = path.join(dir, 'http.json');
    const sandbox = await createSandbox({ store: 'file', dataFile: httpFile, clock: manualClock().clock, scheduler: false, log: captured.log });
    const { payment_id: paymentId } = await createPayment(sandbox);
    const before = await call(sandbox, 'GET', `/openapi/v1/payments/payment/${paymentId}`);
    expectEnvelope(before, 200);

    failNext.armed = true;
    // The reads start once the create's change is in memory and its write pending: the same turn.
    const store = sandbox.services.store;
    const insert = store.insertPayment.bind(store);
    let listing: ReturnType<typeof call> | undefined;
    let reading: ReturnType<typeof call> | undefined;
    vi.spyOn(store, 'insertPayment').mockImplementationOnce((...args) => {
      const written = insert(...args);
      listing = call(sandbox, 'GET', '/sandbox/v1/payments', { headers: { 'Request-Id': 'list-1' } });
      reading = call(sandbox, 'GET', `/openapi/v1/payments/payment/${paymentId}`, { headers: { 'Request-Id': 'status-1' } });
      return written;
    });
    const created = await call(sandbox, 'POST', '/openapi/v1/payments/payment', { body: { payee: DEMO_PAYEE, product_type: 'QR_DYNAMIC', merchant_ref_no: 'lost-1', amount: 10.5 } });
    const [list, status] = [await listing!, await reading!];
    expectEnvelope(created, 500);
    expect(created.body.description).toMatch(/could not write its data file \(ENOSPC\): nothing was changed. Free disk space/);
    // The list may show the payment whose write failed: it is a 500 too.
    expectEnvelope(list, 500);
    expect(list.body.description).toMatch(/could not write its data file.*retry/);
    expect(JSON.stringify(list.body)).not.toMatch(/ENOSPC|at .*\.ts/);
    // The status read shows only its own payment, which the failed write did not touch: it stands.
    expect([status.status, status.text]).toEqual([before.status, before.text]);

    // The operator reads it in the log: once for the write, once for the change it refused (the list of the turn waits for the write in request-record.ts); no stack.
    const failed = { err: 'ENOSPC: no space left on device', code: 'ENOSPC' };
    expect(captured.events()).toEqual([
      { level: LEVEL.error, time: expect.any(Number), file: httpFile, ...failed, msg: 'store write failed: the changes of this turn were undone and refused' },
      { level: LEVEL.error, time: expect.any(Number), request_id: created.headers.get('request-id'), method: 'POST', path: '/openapi/v1/payments/payment', ...failed, msg: 'store write failed: the request changed nothing' },
    ]);
    expect(captured.text()).not.toMatch(STACK_TRACE);

    // The journal says what the clients got.
    const journal = await call(sandbox, 'GET', '/sandbox/v1/requests?limit=3');
    const got = Object.fromEntries(journal.body.requests.map((e: { request_id: string; status: number }) => [e.request_id, e.status]));
    expect(got).toEqual({ [created.headers.get('request-id')!]: 500, 'list-1': 500, 'status-1': 200 });

    // Nothing of the failed create was kept; the same merchant_ref_no is free; status reads as before.
    const retried = await call(sandbox, 'POST', '/openapi/v1/payments/payment', { body: { payee: DEMO_PAYEE, product_type: 'QR_DYNAMIC', merchant_ref_no: 'lost-1', amount: 10.5 } });
    expectEnvelope(retried, 200);
    const after = await call(sandbox, 'GET', `/openapi/v1/payments/payment/${paymentId}`);
    expect([after.status, after.text]).toEqual([before.status, before.text]);
    await sandbox.close();
  });

  it('refuses to start on a log damaged in the middle, naming the file and line', async () => {
    const other = path.join(dir, 'damaged.json');
    writeFileSync(`${other}.wal.0`, `${JSON.stringify({ t: 'merchant', v: merchant('X') })}\n{"t":"merch\n${JSON.stringify({ t: 'merchant', v: merchant('Y') })}\n`);
    const store = new FileStore({ dataFile: other });
    await expect(store.open()).rejects.toThrow(/damaged\.json\.wal\.0 line 2 is not a whole log record/);
    expect(readdirSync(dir).some((f) => f.startsWith('damaged.json.wal'))).toBe(true);
    expect(fs.existsSync(other)).toBe(false);
  });
});
