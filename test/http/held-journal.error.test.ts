/**
 * A timeout fault holds an answer only once its change is stored: when the store cannot write
 * the change (a full disk), the 503 that says so is answered at once, not held, and the journal
 * keeps that 503, not a "held".
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { StoreUnavailableError } from '../../src/store/unavailable.js';
import { createBody, DEMO_KEY, DEMO_PAYEE, expectEnvelope, memorySandbox, toAnswer } from '../support/http.js';
import { entriesOf } from '../support/held.js';

let sandbox: Sandbox;
beforeAll(async () => {
  // Held by mistake, the request would outlast the test's timeout.
  sandbox = await memorySandbox({ config: { timeoutHoldMs: 60_000 } });
});
afterAll(() => sandbox.close());

describe('a timeout fault over a write that fails', () => {
  it('answers the 503 at once, holds nothing, and journals the 503', async () => {
    const { store } = sandbox.services;
    const refused = new StoreUnavailableError('disk full', false, 'The sandbox could not write its data file (ENOSPC): nothing was changed. Free disk space or check the data directory, then retry.');
    const insert = vi.spyOn(store, 'insertPayment').mockRejectedValueOnce(refused);
    try {
      const res = await sandbox.fetch(
        new Request('http://sandbox.test/openapi/v1/payments/payment', {
          method: 'POST',
          headers: { 'Service-Api-Key': DEMO_KEY, 'Content-Type': 'application/json', 'Sandbox-Fault': 'timeout', 'Request-Id': 'write-fails-1' },
          body: JSON.stringify(createBody()),
          signal: AbortSignal.timeout(5_000),
        }),
      );
      const answer = await toAnswer(res);
      expectEnvelope(answer, 503);
      expect(answer.body.description).toMatch(/could not write its data file/);
    } finally {
      insert.mockRestore();
    }
    expect(sandbox.services.held.count(DEMO_PAYEE)).toBe(0);
    const entries = await entriesOf((request) => sandbox.fetch(request), 'http://sandbox.test', DEMO_KEY, 'write-fails-1');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ status: 503, code: 503 });
  });
});
