/**
 * An answer a failed store write turns into a 500 (request-record.ts) is that 500 alone: it keeps
 * none of the headers of the answer it replaced, so a replay does not say `Idempotent-Replayed`
 * on a 500 (SPEC 16: a 5xx is never a kept answer).
 */
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';

vi.mock('node:fs', async (importOriginal) => (await import('../support/failing-writes.js')).fsFailingOnCue(importOriginal));

const { failNext } = await import('../support/failing-writes.js');
const { createSandbox } = await import('../../src/index.js');
const { removeTempDirs, tempDir } = await import('../support/files.js');
const { DEMO_PAYEE, call, createBody, expectEnvelope, manualClock } = await import('../support/http.js');
const { capturedLog } = await import('../support/log.js');

afterAll(removeTempDirs);

describe('an answer of the turn whose write failed', () => {
  it('is a 500 without the headers of the answer it replaced: a replay is not marked Idempotent-Replayed', async () => {
    const sandbox = await createSandbox({ store: 'file', dataFile: path.join(tempDir(), 'sandbox.json'), clock: manualClock().clock, scheduler: false, log: capturedLog().log });
    try {
      const body = createBody();
      const first = await call(sandbox, 'POST', '/openapi/v1/payments/payment', { body, headers: { 'Idempotency-Key': 'kept-1' } });
      expectEnvelope(first, 200);

      // The replay is answered once another create's change is in memory and its write pending: the same turn.
      failNext.armed = true;
      const store = sandbox.services.store;
      const insert = store.insertPayment.bind(store);
      let replaying: ReturnType<typeof call> | undefined;
      vi.spyOn(store, 'insertPayment').mockImplementationOnce((...args) => {
        const written = insert(...args);
        replaying = call(sandbox, 'POST', '/openapi/v1/payments/payment', { body, headers: { 'Idempotency-Key': 'kept-1' } });
        return written;
      });
      const failed = await call(sandbox, 'POST', '/openapi/v1/payments/payment', { body: createBody() });
      expectEnvelope(failed, 500);
      const replay = await replaying!;

      expectEnvelope(replay, 500);
      expect(replay.body.description).toMatch(/could not write its data file.*retry the request/);
      expect(replay.headers.get('idempotent-replayed')).toBeNull();
      expect(replay.headers.get('request-id')).toMatch(/^req_/);
      // The journal says the same: a 500, and nothing of the kept answer was lost (the next replay gets it).
      const [entry] = await sandbox.services.journal.list(DEMO_PAYEE, { limit: 1 });
      expect(entry?.status).toBe(500);
      const again = await call(sandbox, 'POST', '/openapi/v1/payments/payment', { body, headers: { 'Idempotency-Key': 'kept-1' } });
      expect([again.status, again.text, again.headers.get('idempotent-replayed')]).toEqual([200, first.text, 'true']);
    } finally {
      await sandbox.close();
    }
  });
});
