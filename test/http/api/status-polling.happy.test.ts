import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { createBody, DEMO_KEY, jsonRequest, memorySandbox } from '../../helpers.js';

describe('polling the status of one payment', () => {
  let sandbox: Sandbox;
  let now = Date.UTC(2030, 0, 1);
  beforeAll(async () => {
    sandbox = await memorySandbox({ clock: () => now });
  });
  afterAll(() => sandbox.close());

  async function status(id: string): Promise<{ text: string; json: { payment_status: string; payment_date: number | null } }> {
    const text = await (await sandbox.fetch(jsonRequest('GET', `/openapi/v1/payments/payment/${id}`))).text();
    return { text, json: JSON.parse(text) as { payment_status: string; payment_date: number | null } };
  }

  it('answers the same text while nothing changes, and the new state as soon as anything does', async () => {
    const created = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody({ amount: 7 })));
    const id = ((await created.json()) as { payment_id: string }).payment_id;
    const first = await status(id);
    expect((await status(id)).text).toBe(first.text);
    await sandbox.control.pickup(DEMO_KEY, id, 'poller');
    expect((await status(id)).json.payment_status).toBe('W');
    await sandbox.control.pay(DEMO_KEY, id);
    const paid = await status(id);
    expect(paid.json).toMatchObject({ payment_status: 'A', payment_date: Math.floor(now / 1000) });
    expect(paid.text).toContain('"original_amount":7.00');
  });

  it('shows an expiry that fell due on the clock between two polls', async () => {
    const created = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody()));
    const id = ((await created.json()) as { payment_id: string }).payment_id;
    expect((await status(id)).json.payment_status).toBe('P');
    now += 15 * 60 * 1000 + 1;
    expect((await status(id)).json.payment_status).toBe('E');
  });
});
