import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { createBody, jsonRequest, memorySandbox } from '../helpers.js';

describe('smoke: create then read a payment', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await memorySandbox();
  });
  afterAll(() => sandbox.close());

  it('creates a payment in P and reads it back with two-decimal amounts', async () => {
    const created = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody({ amount: 100 })));
    expect(created.status).toBe(200);
    const body = (await created.json()) as { payment_id: string };
    const status = await sandbox.fetch(jsonRequest('GET', `/openapi/v1/payments/payment/${body.payment_id}`));
    const text = await status.text();
    expect(text).toContain('"original_amount":100.00');
    expect(JSON.parse(text)).toMatchObject({ code: 200, payment_status: 'P', payment_date: null });
  });
});
