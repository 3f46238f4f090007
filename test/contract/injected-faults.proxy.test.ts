/**
 * Issue 19 through a validating proxy: an injected answer carries the headers /openapi.json
 * declares for its status (429 and 503 Retry-After, 405 the path's Allow), from the header or a
 * rule, before or after commit; and a fault sent to a request no route serves changes nothing
 * the document does not say (404 or 405 as without it).
 */
import { describe, expect, it } from 'vitest';
import { describeViolations } from '../support/validating-proxy.js';
import { createBody, DEMO_KEY } from '../helpers.js';
import { proxiedSandbox } from './support.js';

describe('injected statuses through a validating proxy', () => {
  const live = proxiedSandbox();

  async function send(method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { 'Service-Api-Key': DEMO_KEY, ...options.headers };
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(`${live.proxy.url}${path}`, { method, headers, ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }) });
    const json = (await res.json()) as { code: number; description: string };
    return { status: res.status, headers: res.headers, json };
  }

  const created = async () => (await send('POST', '/openapi/v1/payments/payment', { body: createBody() })).json as unknown as { payment_id: string };

  it.each(['error', 'error-after-commit'])('%s=429, 405 and 503 on create, status and cancel carry Retry-After and Allow', async (kind) => {
    // Each request on its own payment: one committed after the fault must not refuse the next.
    const targets = [
      { method: 'POST', path: async () => '/openapi/v1/payments/payment', body: () => createBody(), allow: 'POST' },
      { method: 'GET', path: async () => `/openapi/v1/payments/payment/${(await created()).payment_id}`, allow: 'GET, HEAD' },
      { method: 'POST', path: async () => `/v1/payments/payment/${(await created()).payment_id}/cancel`, body: () => ({ reason: 'changed mind' }), allow: 'POST' },
    ];
    for (const target of targets) {
      for (const status of [429, 405, 503]) {
        const path = await target.path();
        const answer = await send(target.method, path, { body: target.body?.(), headers: { 'Sandbox-Fault': `${kind}=${status}` } });
        const what = `${kind}=${status} on ${target.method} ${path}`;
        expect(answer.status, what).toBe(status);
        expect(answer.json.code, what).toBe(status);
        expect(answer.headers.get('retry-after'), what).toBe(status === 405 ? null : '1');
        expect(answer.headers.get('allow'), what).toBe(status === 405 ? target.allow : null);
      }
    }
    expect(live.proxy.violations, describeViolations(live.proxy.violations)).toEqual([]);
  });

  it('a rule injects them with the same headers', async () => {
    for (const status of [429, 405, 503]) {
      const rule = await send('POST', '/sandbox/v1/faults', { body: { match: { method: 'POST', path: '/openapi/v1/payments/payment' }, fault: `error=${status}`, times: 1 } });
      expect(rule.status).toBe(200);
      const answer = await send('POST', '/openapi/v1/payments/payment', { body: createBody() });
      expect(answer.status).toBe(status);
      expect(answer.headers.get('retry-after')).toBe(status === 405 ? null : '1');
      expect(answer.headers.get('allow')).toBe(status === 405 ? 'POST' : null);
    }
    expect(live.proxy.violations, describeViolations(live.proxy.violations)).toEqual([]);
  });

  it('a fault on a request no route serves answers the 404 or 405 the document declares, with the warning', async () => {
    for (const fault of ['error=500', 'error=429', 'error-after-commit=503', 'timeout', 'drop', 'latency=60000']) {
      const unknown = await send('GET', '/openapi/v1/nope', { headers: { 'Sandbox-Fault': fault } });
      expect(unknown.status, fault).toBe(404);
      expect(unknown.headers.get('sandbox-warning'), fault).toMatch(/^Sandbox-Fault ignored: no route serves GET \/openapi\/v1\/nope/);
      const wrongMethod = await send('PUT', '/openapi/v1/payments/payment', { body: createBody(), headers: { 'Sandbox-Fault': fault } });
      expect(wrongMethod.status, fault).toBe(405);
      expect(wrongMethod.headers.get('allow'), fault).toBe('POST');
    }
    expect(live.proxy.violations, describeViolations(live.proxy.violations)).toEqual([]);
  });
});
