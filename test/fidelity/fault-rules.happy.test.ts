import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { createBody, jsonRequest, memorySandbox } from '../helpers.js';

describe('fault rules', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await memorySandbox();
  });
  afterAll(() => sandbox.close());
  afterEach(async () => {
    await sandbox.fetch(jsonRequest('DELETE', '/sandbox/v1/faults'));
  });

  async function addRule(rule: Record<string, unknown>): Promise<string> {
    const res = await sandbox.fetch(jsonRequest('POST', '/sandbox/v1/faults', rule));
    expect(res.status).toBe(200);
    return ((await res.json()) as { rule: { id: string } }).rule.id;
  }

  const create = () => sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody()));

  it('a rule with a * wildcard fires on matching requests, times counts down, then stops', async () => {
    await addRule({ match: { method: 'POST', path: '*/payments/payment' }, fault: 'error=503', times: 2 });
    expect((await create()).status).toBe(503);
    expect((await create()).status).toBe(503);
    expect((await create()).status).toBe(200);
    const list = (await (await sandbox.fetch(jsonRequest('GET', '/sandbox/v1/faults'))).json()) as { rules: { times_left: number; fired: number }[] };
    expect(list.rules[0]).toMatchObject({ times_left: 0, fired: 2 });
  });

  it('a rule on one method and path leaves others alone', async () => {
    await addRule({ match: { method: 'GET', path: '/openapi/v1/payments/payment/*' }, fault: 'error=500' });
    const created = await create();
    expect(created.status).toBe(200);
    const id = ((await created.json()) as { payment_id: string }).payment_id;
    expect((await sandbox.fetch(jsonRequest('GET', `/openapi/v1/payments/payment/${id}`))).status).toBe(500);
    expect((await sandbox.fetch(jsonRequest('GET', `/v1/payments/payment/${id}`))).status).toBe(200);
  });

  it('seeded probability: the same seed fails the same requests', async () => {
    async function pattern(): Promise<number[]> {
      await sandbox.fetch(jsonRequest('DELETE', '/sandbox/v1/faults'));
      await addRule({ match: { path: '*' }, fault: 'error=500', probability: 0.5, seed: 1234 });
      const statuses: number[] = [];
      for (let i = 0; i < 16; i++) statuses.push((await create()).status);
      return statuses;
    }
    const first = await pattern();
    const second = await pattern();
    expect(second).toEqual(first);
    expect(first).toContain(500);
    expect(first).toContain(200);
  });

  it('rules survive as part of the merchant and are listed with their counters', async () => {
    const id = await addRule({ match: { method: 'post', path: '/v1/x' }, fault: 'latency=10' });
    const list = (await (await sandbox.fetch(jsonRequest('GET', '/sandbox/v1/faults'))).json()) as { rules: Record<string, unknown>[] };
    expect(list.rules).toEqual([{ id, match: { method: 'POST', path: '/v1/x' }, fault: 'latency=10', probability: 1, times_left: null, seed: 42, matched: 0, fired: 0 }]);
    const del = await sandbox.fetch(jsonRequest('DELETE', `/sandbox/v1/faults/${id}`));
    expect(await del.json()).toMatchObject({ code: 200, deleted: 1 });
  });

  it('rules are per merchant: another merchant is not affected and cannot see them', async () => {
    await addRule({ match: { path: '*' }, fault: 'error=500' });
    const other = await sandbox.control.enroll();
    const res = await sandbox.fetch(
      jsonRequest('POST', '/openapi/v1/payments/payment', createBody({ payee: other.payeeId }), { 'Service-Api-Key': other.apiKey }),
    );
    expect(res.status).toBe(200);
    const rules = (await (await sandbox.fetch(jsonRequest('GET', '/sandbox/v1/faults', undefined, { 'Service-Api-Key': other.apiKey }))).json()) as { rules: unknown[] };
    expect(rules.rules).toEqual([]);
  });
});
