/**
 * A timeout fault holds an answer only once its change is committed: when the write the answer
 * waited for fails (the change is undone), the 500 that says so is answered at once, not held,
 * and the journal keeps that 500, not a "held".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { createBody, DEMO_KEY, DEMO_PAYEE, expectEnvelope, memorySandbox, toAnswer } from '../support/http.js';
import { entriesOf } from '../support/held.js';

let sandbox: Sandbox;
beforeAll(async () => {
  // Held by mistake, the request would outlast the test's timeout.
  sandbox = await memorySandbox({ config: { timeoutHoldMs: 60_000 } });
});
afterAll(() => sandbox.close());

describe('a timeout fault over a write that fails', () => {
  it('answers the 500 at once, holds nothing, and journals the 500', async () => {
    const { store } = sandbox.services;
    const saved = { all: store.pendingWrites, one: store.pendingWriteOf };
    let failed = 0;
    // The first write the request waits for fails, as a full disk would make it (a create waits for its payment's).
    const failOnce = (wait: () => Promise<void> | undefined) => {
      if (failed++ > 0) return wait();
      const failing = Promise.reject(new Error('ENOSPC'));
      failing.catch(() => undefined);
      return failing;
    };
    Object.assign(store, {
      pendingWrites: () => failOnce(() => saved.all.call(store)),
      pendingWriteOf: (id: string) => failOnce(() => saved.one.call(store, id)),
    });
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
      expectEnvelope(answer, 500);
      expect(answer.body.description).toMatch(/could not write its data file/);
    } finally {
      Object.assign(store, { pendingWrites: saved.all, pendingWriteOf: saved.one });
    }
    expect(failed).toBeGreaterThan(0);
    expect(sandbox.services.held.count(DEMO_PAYEE)).toBe(0);
    const entries = await entriesOf((request) => sandbox.fetch(request), 'http://sandbox.test', DEMO_KEY, 'write-fails-1');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ status: 500, code: 500 });
  });
});
