/**
 * A bug in a handler (anything that is not a SandboxError) answers a 500 envelope that names no
 * internals, changes nothing, and is said to the operator in one error line of the sandbox's
 * logger (issue 18): the request id the client got, method, path, the error's message and type;
 * no key, no stack. The stack is in a debug line only (LOG_LEVEL=debug).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { memorySandbox } from '../helpers.js';
import { call, createPayment, DEMO_KEY, expectEnvelope, statusOf } from '../support/http.js';
import type { Answer } from '../support/http.js';
import { capturedLog, LEVEL, STACK_TRACE } from '../support/log.js';
import type { CapturedLog } from '../support/log.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await sandbox?.close();
  sandbox = undefined;
});

/** A sandbox whose cancel throws what a bug would; its log captured at `level`. */
async function buggySandbox(level: 'info' | 'debug' = 'info'): Promise<{ sandbox: Sandbox; captured: CapturedLog; bug: TypeError; paymentId: string }> {
  const captured = capturedLog(level);
  sandbox = await memorySandbox({ log: captured.log });
  const { payment_id: paymentId } = await createPayment(sandbox);
  const bug = new TypeError("Cannot read properties of undefined (reading 'reason')");
  vi.spyOn(sandbox.services.payments, 'cancel').mockRejectedValue(bug);
  return { sandbox, captured, bug, paymentId };
}

function expectInternalErrorAnswer(answer: Answer): void {
  expectEnvelope(answer, 500);
  expect(answer.body.description).toBe('Internal error in the sandbox: nothing was changed. Please report it with the request that caused it.');
  expect(answer.text).not.toContain('reading');
}

describe('an internal error in a handler', () => {
  it('through app.request: a 500 envelope, nothing changed, one error line with the request id and no stack', async () => {
    const { sandbox, captured, paymentId } = await buggySandbox();
    const answer = await call(sandbox, 'POST', `/openapi/v1/payments/payment/${paymentId}/cancel`, { body: { reason: 'customer left' } });
    expectInternalErrorAnswer(answer);
    expect((await statusOf(sandbox, paymentId)).payment_status).toBe('P');

    expect(captured.events()).toEqual([
      {
        level: LEVEL.error, time: expect.any(Number), request_id: answer.headers.get('request-id'), method: 'POST', path: `/openapi/v1/payments/payment/${paymentId}/cancel`,
        err: "Cannot read properties of undefined (reading 'reason')", type: 'TypeError', msg: 'internal error',
      },
    ]);
    expect(captured.text()).not.toMatch(STACK_TRACE);
    expect(captured.text()).not.toContain(DEMO_KEY);
  });

  it('through a listening server and fetch: the same answer and line', async () => {
    const { sandbox, captured, paymentId } = await buggySandbox();
    const server = await sandbox.listen(0, '127.0.0.1');
    const res = await fetch(`${server.url}/openapi/v1/payments/payment/${paymentId}/cancel`, {
      method: 'POST',
      headers: { 'Service-Api-Key': DEMO_KEY, 'Content-Type': 'application/json' },
      body: JSON.stringify({ reason: 'customer left' }),
    });
    const text = await res.text();
    expectInternalErrorAnswer({ status: res.status, headers: res.headers, text, body: JSON.parse(text) });
    const [line, ...more] = captured.events();
    expect(more).toEqual([]);
    expect(line).toMatchObject({ level: LEVEL.error, request_id: res.headers.get('request-id'), method: 'POST', type: 'TypeError', msg: 'internal error' });
    expect(captured.text()).not.toMatch(STACK_TRACE);
    expect((await statusOf(sandbox, paymentId)).payment_status).toBe('P');
  });

  it('at LOG_LEVEL=debug, the stack follows in a debug line of the same request', async () => {
    const { sandbox, captured, bug, paymentId } = await buggySandbox('debug');
    const answer = await call(sandbox, 'POST', `/openapi/v1/payments/payment/${paymentId}/cancel`, { body: { reason: 'customer left' } });
    expectInternalErrorAnswer(answer);
    const requestId = answer.headers.get('request-id');
    expect(captured.events().filter((l) => l.request_id === requestId).map((l) => [l.level, l.msg])).toEqual([
      [LEVEL.error, 'internal error'],
      [LEVEL.debug, 'internal error: its stack'],
    ]);
    expect(captured.events().find((l) => l.level === LEVEL.debug)?.stack).toBe(bug.stack);
  });
});
