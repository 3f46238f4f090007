/**
 * Issue 19: faults never apply to a request no route serves (an unknown public path, a method the
 * path does not serve). It answers its 404 or 405 exactly as without the fault, the header's
 * Sandbox-Warning says it was ignored and why, and a fault rule is neither matched nor used up.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { faultHeaderUnserved } from '../../src/http/sandbox/faults/fault-header.js';
import { call, createBody, expectEnvelope, quietSandbox, stateOf } from '../support/http.js';
import type { Answer } from '../support/http.js';

let sandbox: Sandbox;
beforeAll(async () => {
  // A hold would outlast the test by far: an applied latency or timeout cannot pass unnoticed.
  sandbox = await quietSandbox({ config: { timeoutHoldMs: 60_000 } });
});
afterAll(() => sandbox.close());
afterEach(async () => {
  await call(sandbox, 'DELETE', '/sandbox/v1/faults');
});

const KINDS = ['latency=60000', 'error=500', 'error=429', 'error-after-commit=502', 'timeout', 'drop'] as const;

/** Unserved requests, with what each answers without any fault. */
const UNSERVED: readonly { what: string; method: string; path: string; body?: unknown; status: 404 | 405; allow?: string }[] = [
  { what: 'an unknown public path', method: 'GET', path: '/openapi/v1/nope', status: 404 },
  { what: 'an unknown path under the alias', method: 'POST', path: '/v1/payments/refund', body: {}, status: 404 },
  { what: 'a method the create path does not serve', method: 'PUT', path: '/openapi/v1/payments/payment', body: createBody(), status: 405, allow: 'POST' },
  { what: 'a method the status path does not serve', method: 'DELETE', path: '/openapi/v1/payments/payment/pay_0000000000000000000000', status: 405, allow: 'GET, HEAD' },
];

/** Sends it with a bound on time: a fault applied by mistake (a 60 s hold) fails the test instead of hanging it. */
async function send(method: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const signal = AbortSignal.timeout(5_000);
  const init: RequestInit = { method, headers: { 'Service-Api-Key': 'sk_sandbox_demo_merchant_key', 'Content-Type': 'application/json', ...headers }, signal };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await sandbox.fetch(new Request(`http://sandbox.test${path}`, init));
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: JSON.parse(text) };
}

async function lastJournalEntry(): Promise<Record<string, unknown>> {
  const journal = await call(sandbox, 'GET', '/sandbox/v1/requests?limit=1&method=GET');
  return journal.body.requests[0] as Record<string, unknown>;
}

describe('Sandbox-Fault on a request no route serves', () => {
  for (const u of UNSERVED) {
    it.each(KINDS)(`${u.what} (${u.method} ${u.path}) with %s: ${u.status} as without the header, a warning, nothing changed`, async (fault) => {
      const plain = await send(u.method, u.path, u.body);
      expectEnvelope(plain, u.status);
      const before = await stateOf(sandbox);
      const faulted = await send(u.method, u.path, u.body, { 'Sandbox-Fault': fault });
      expectEnvelope(faulted, u.status);
      expect(faulted.body).toEqual(plain.body);
      expect(faulted.headers.get('allow')).toBe(u.allow ?? null);
      expect(faulted.headers.get('retry-after')).toBeNull();
      expect(faulted.headers.get('sandbox-warning')).toBe(faultHeaderUnserved(u.method, u.path));
      expect(faulted.headers.get('sandbox-warning')).toMatch(/^Sandbox-Fault ignored: no route serves .+, so it answers as it would without the header; faults apply only to requests a public route serves$/);
      expect(await stateOf(sandbox)).toBe(before);
    });
  }

  it('a header that is not even a fault is ignored too: the 404, not a 400', async () => {
    const answer = await send('GET', '/openapi/v1/nope', undefined, { 'Sandbox-Fault': 'explode' });
    expectEnvelope(answer, 404);
    expect(answer.headers.get('sandbox-warning')).toBe(faultHeaderUnserved('GET', '/openapi/v1/nope'));
  });

  it('the journal keeps the 404 with no fault and the warning', async () => {
    await send('GET', '/openapi/v1/journaled-nope', undefined, { 'Sandbox-Fault': 'error=503' });
    expect(await lastJournalEntry()).toMatchObject({ path: '/openapi/v1/journaled-nope', status: 404, fault: null, warnings: [faultHeaderUnserved('GET', '/openapi/v1/journaled-nope')] });
  });

  it('the same header on a served request still applies (the ignoring is not everywhere)', async () => {
    const answer = await send('POST', '/openapi/v1/payments/payment', createBody(), { 'Sandbox-Fault': 'error=500' });
    expectEnvelope(answer, 500);
    expect(answer.headers.get('sandbox-warning')).toBeNull();
  });
});

describe('a fault rule and a request no route serves', () => {
  async function rule(fault: string): Promise<Record<string, unknown>> {
    const answer = await call(sandbox, 'POST', '/sandbox/v1/faults', { body: { match: { method: '*', path: '*' }, fault, times: 1 } });
    expectEnvelope(answer, 200);
    return answer.body.rule as Record<string, unknown>;
  }
  const rules = async () => (await call(sandbox, 'GET', '/sandbox/v1/faults')).body.rules as Record<string, unknown>[];

  for (const u of UNSERVED) {
    it.each(KINDS)(`${u.what} with a rule of %s: ${u.status} as without it, the rule neither matched nor used up`, async (fault) => {
      const plain = await send(u.method, u.path, u.body);
      const added = await rule(fault);
      const before = await stateOf(sandbox);
      const answer = await send(u.method, u.path, u.body);
      expectEnvelope(answer, u.status);
      expect(answer.body).toEqual(plain.body);
      expect(answer.headers.get('allow')).toBe(u.allow ?? null);
      expect(await rules()).toEqual([{ ...added, matched: 0, fired: 0, times_left: 1 }]);
      expect(await stateOf(sandbox)).toBe(before);
    });
  }

  it('the rule still fires on the next served request, once', async () => {
    await rule('error=503');
    expectEnvelope(await send('GET', '/openapi/v1/nope', undefined), 404);
    expectEnvelope(await send('POST', '/openapi/v1/payments/payment', createBody()), 503);
    expect((await rules())[0]).toMatchObject({ matched: 1, fired: 1, times_left: 0 });
    expectEnvelope(await send('POST', '/openapi/v1/payments/payment', createBody()), 200);
  });
});
