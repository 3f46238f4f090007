import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { createBody, jsonRequest, memorySandbox } from '../helpers.js';

describe('bad faults are 400 and change nothing', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await memorySandbox();
  });
  afterAll(() => sandbox.close());

  for (const header of ['latency=abc', 'latency=-5', 'latency=600000', 'error=200', 'error=5000', 'error', 'explode', 'timeout=5', ',']) {
    it(`Sandbox-Fault: ${header}`, async () => {
      const body = createBody();
      const res = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', body, { 'Sandbox-Fault': header }));
      expect(res.status).toBe(400);
      const json = (await res.json()) as { code: number; description: string };
      expect(json.code).toBe(400);
      expect(json.description).toMatch(/Sandbox-Fault/);
      const list = await sandbox.fetch(jsonRequest('GET', `/sandbox/v1/payments?merchant_ref_no=${body.merchant_ref_no as string}`));
      expect(((await list.json()) as { total: number }).total).toBe(0);
    });
  }

  const badRules: [string, unknown][] = [
    ['no match', { fault: 'error=500' }],
    ['match not an object', { match: 'POST /x', fault: 'error=500' }],
    ['no path', { match: { method: 'POST' }, fault: 'error=500' }],
    ['bad method', { match: { method: 'PO ST', path: '/openapi/v1/x' }, fault: 'error=500' }],
    ['unknown fault', { match: { path: '/openapi/v1/x' }, fault: 'meteor' }],
    ['probability above 1', { match: { path: '/openapi/v1/x' }, fault: 'drop', probability: 1.5 }],
    ['times 0', { match: { path: '/openapi/v1/x' }, fault: 'drop', times: 0 }],
    ['times fractional', { match: { path: '/openapi/v1/x' }, fault: 'drop', times: 1.5 }],
    ['string probability', { match: { path: '/openapi/v1/x' }, fault: 'drop', probability: '0.5' }],
  ];
  for (const [name, rule] of badRules) {
    it(`fault rule with ${name}`, async () => {
      const res = await sandbox.fetch(jsonRequest('POST', '/sandbox/v1/faults', rule));
      expect(res.status).toBe(400);
      expect(((await res.json()) as { description: string }).description.length).toBeGreaterThan(10);
      const rules = (await (await sandbox.fetch(jsonRequest('GET', '/sandbox/v1/faults'))).json()) as { rules: unknown[] };
      expect(rules.rules).toHaveLength(0);
    });
  }

  it('deleting an unknown rule is 404', async () => {
    const res = await sandbox.fetch(jsonRequest('DELETE', '/sandbox/v1/faults/flt_nope'));
    expect(res.status).toBe(404);
  });
});
