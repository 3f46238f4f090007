/**
 * A status read refers to its version's status text (answerRef) only when that text is what it
 * answered: an answer a fault spoils or replaces keeps its own body in the journal, so every entry
 * shows what the client got, however the store keeps the texts (run with SANDBOX_TEST_STORE=postgres too).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { DEMO_PAYEE, call, createPayment, memorySandbox } from '../support/http.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

describe('status reads spoiled by a fault in the journal', () => {
  it('carry no answerRef, and every entry shows the body the client got', async () => {
    sandbox = await memorySandbox();
    const { payment_id: id } = await createPayment(sandbox);
    const path = `/openapi/v1/payments/payment/${id}`;
    // The spoiled reads come first: a name they took would hand their text to the plain reads after them.
    const faults = ['error-after-commit=500', 'error=503', 'latency=1', undefined, 'error-after-commit=502', undefined];
    const got: { requestId: string; status: number; text: string }[] = [];
    for (const [i, fault] of faults.entries()) {
      const requestId = `status-${i}`;
      const answer = await call(sandbox, 'GET', path, { headers: { 'Request-Id': requestId, ...(fault ? { 'Sandbox-Fault': fault } : {}) } });
      got.push({ requestId, status: answer.status, text: answer.text });
    }
    expect(got.map((g) => g.status)).toEqual([500, 503, 200, 200, 502, 200]);

    const entries = await sandbox.services.journal.list(DEMO_PAYEE, { method: 'GET', path: id, limit: 20 });
    const shown = got.map(({ requestId }) => entries.find((e) => e.requestId === requestId));
    expect(shown.map((e) => [e?.status, e?.responseBody])).toEqual(got.map((g) => [g.status, g.text]));
    expect(shown.map((e) => e?.answerRef ?? null)).toEqual([null, null, `${id}@1`, `${id}@1`, null, `${id}@1`]);
  });
});
