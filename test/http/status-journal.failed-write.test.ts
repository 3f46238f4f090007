/**
 * The file store writes a status text once, with the first journal entry that refers to it. When
 * that entry's line is lost to a failed write, the text must go with the next entry that refers
 * to it: otherwise, after a crash, every later read of that version is journaled without its body.
 */
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';

vi.mock('node:fs', async (importOriginal) => (await import('../support/failing-writes.js')).fsFailingOnCue(importOriginal));

const { failNext } = await import('../support/failing-writes.js');
const { createSandbox } = await import('../../src/index.js');
const { removeTempDirs, tempDir } = await import('../support/files.js');
const { DEMO_PAYEE, call, createPayment, expectEnvelope, manualClock } = await import('../support/http.js');
const { capturedLog } = await import('../support/log.js');

afterAll(removeTempDirs);

describe('a status text whose first journal line was lost to a failed write', () => {
  it('is written with the next entry that refers to it: after a crash, that read still shows its body', async () => {
    const dataFile = path.join(tempDir(), 'sandbox.json');
    const options = { store: 'file' as const, dataFile, clock: manualClock().clock, scheduler: false, log: capturedLog().log };
    const sandbox = await createSandbox(options);
    const { payment_id: id } = await createPayment(sandbox);
    const status = `/openapi/v1/payments/payment/${id}`;

    const turn = () => new Promise((resolve) => setImmediate(resolve));
    await turn();
    // The read's first write is its journal line (written at the end of its turn), which fails.
    failNext.armed = true;
    const first = await call(sandbox, 'GET', status, { headers: { 'Request-Id': 'read-1' } });
    expectEnvelope(first, 200);
    await turn();
    expect(failNext.armed).toBe(false);

    const second = await call(sandbox, 'GET', status, { headers: { 'Request-Id': 'read-2' } });
    expect(second.text).toBe(first.text);
    await turn();

    // A crash: a second store reads the files while the first was never stopped.
    const again = await createSandbox(options);
    try {
      const entries = await again.services.journal.list(DEMO_PAYEE, { method: 'GET', path: id, limit: 10 });
      // The first read's line was lost with the failed write (a record of a request, not a change: nobody waited for it).
      expect(entries.find((e) => e.requestId === 'read-1')).toBeUndefined();
      const read = entries.find((e) => e.requestId === 'read-2');
      expect(read?.status).toBe(200);
      expect(read?.responseBody).toBe(second.text);
    } finally {
      await again.close();
    }
  });
});
