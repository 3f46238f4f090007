/**
 * A create's own change is written before it answers (the service waits for it); a write that
 * fails later, in a batch of other requests' changes this create never read, must not turn its
 * committed answer into "undone, retry", nor make its Idempotency-Key forget that answer. A
 * status read of a payment whose change is in the failing write does answer the 500.
 */
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';

vi.mock('node:fs', async (importOriginal) => (await import('../support/failing-writes.js')).fsFailingOnCue(importOriginal));

const { failNext } = await import('../support/failing-writes.js');
const { createSandbox } = await import('../../src/index.js');
const { removeTempDirs, tempDir } = await import('../support/files.js');
const { call, createBody, expectEnvelope, manualClock } = await import('../support/http.js');
const { capturedLog } = await import('../support/log.js');
const { aPayment } = await import('../support/payments.js');

afterAll(removeTempDirs);

describe('a create whose change was written, answered while a later batch fails', () => {
  // A create shows its one payment: it waits for that payment's write alone (store.pendingWriteOf).
  it('answers its 200, and a retry with its Idempotency-Key replays it', async () => {
    const sandbox = await createSandbox({ store: 'file', dataFile: path.join(tempDir(), 'sandbox.json'), clock: manualClock().clock, scheduler: false, log: capturedLog().log });
    try {
      const { apiKey, merchant } = await sandbox.services.merchants.enroll({ inlineQrImage: true });
      // While the create draws its inline QR image (its change already written), another request changes something, and that write fails.
      const { qr } = sandbox.services;
      const draw = qr.dataUrl.bind(qr);
      let other: Promise<unknown> | undefined;
      vi.spyOn(qr, 'dataUrl').mockImplementationOnce(async (...args) => {
        const image = await draw(...args);
        failNext.armed = true;
        other = sandbox.services.store.insertPayment(aPayment());
        other.catch(() => undefined);
        return image;
      });
      const body = createBody({ payee: merchant.payeeId });
      const created = await call(sandbox, 'POST', '/openapi/v1/payments/payment', { key: apiKey, body, headers: { 'Idempotency-Key': 'written-1' } });
      await expect(other).rejects.toThrow(/ENOSPC/);

      const list = await call(sandbox, 'GET', '/sandbox/v1/payments', { key: apiKey });
      // The create's payment is kept (the demo merchant's made-up one was refused).
      expect(list.body.total).toBe(1);
      expectEnvelope(created, 200);
      const retry = await call(sandbox, 'POST', '/openapi/v1/payments/payment', { key: apiKey, body, headers: { 'Idempotency-Key': 'written-1' } });
      expect([retry.status, retry.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
    } finally {
      await sandbox.close();
    }
  });

  it('a status read of a payment whose change is pending in the write that fails answers the 500, and reads as before after it', async () => {
    const sandbox = await createSandbox({ store: 'file', dataFile: path.join(tempDir(), 'sandbox.json'), clock: manualClock().clock, scheduler: false, log: capturedLog().log });
    try {
      const created = await call(sandbox, 'POST', '/openapi/v1/payments/payment', { body: createBody() });
      const id = created.body.payment_id as string;
      const before = await call(sandbox, 'GET', `/openapi/v1/payments/payment/${id}`);
      const { store } = sandbox.services;
      const update = store.updatePayment.bind(store);
      let reading: ReturnType<typeof call> | undefined;
      // The status read starts once the assignment is in memory and its write pending.
      vi.spyOn(store, 'updatePayment').mockImplementationOnce((...args) => {
        failNext.armed = true;
        const written = update(...args);
        reading = call(sandbox, 'GET', `/openapi/v1/payments/payment/${id}`);
        return written;
      });
      const assigned = await call(sandbox, 'POST', `/openapi/v1/payments/payment/${id}/assign`, { body: { payer: 'alice' } });
      const status = await reading!;
      expectEnvelope(assigned, 500);
      expectEnvelope(status, 500);
      expect(status.body.description).toMatch(/could not write its data file.*retry/);
      const after = await call(sandbox, 'GET', `/openapi/v1/payments/payment/${id}`);
      expect([after.status, after.text]).toEqual([before.status, before.text]);
    } finally {
      await sandbox.close();
    }
  });
});
