/** A change wakes the delivery pass only when it made deliveries: a merchant without a webhook costs the pass nothing, one with a URL gets its delivery at once. */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { createBody, DEMO_KEY, jsonRequest, memorySandbox } from '../helpers.js';
import { receiver } from '../support/webhook-receiver.js';
import { until } from '../support/until.js';

let sandbox: Sandbox;
let hook: Awaited<ReturnType<typeof receiver>>;
beforeAll(async () => {
  sandbox = await memorySandbox();
  hook = await receiver();
});
afterAll(async () => {
  await sandbox.close();
  await hook.close();
});

async function create(key: string, payee?: string): Promise<void> {
  const res = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody(payee ? { payee } : {}), { 'Service-Api-Key': key }));
  expect(res.status).toBe(200);
}

describe('the delivery pass', () => {
  it('is not run for the changes of a merchant without a webhook', async () => {
    const claims = vi.spyOn(sandbox.services.store.deliveries, 'claimDue');
    for (let i = 0; i < 20; i++) await create(DEMO_KEY);
    await new Promise((r) => setImmediate(r));
    expect(claims).not.toHaveBeenCalled();
    claims.mockRestore();
  });

  it('is run for a change that made a delivery, which reaches the URL at once', async () => {
    const m = await sandbox.control.enroll({ name: 'Pass Shop' });
    const set = await sandbox.fetch(jsonRequest('PUT', '/sandbox/v1/webhook', { url: hook.url }, { 'Service-Api-Key': m.apiKey }));
    expect(set.status).toBe(200);
    const claims = vi.spyOn(sandbox.services.store.deliveries, 'claimDue');
    await create(m.apiKey, m.payeeId);
    await until(() => (hook.received.length === 1 ? true : undefined), 'the delivery at the receiver');
    expect(claims).toHaveBeenCalled();
    claims.mockRestore();
  });
});
