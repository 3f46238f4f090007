import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnrolledMerchant, Sandbox } from '../../src/index.js';
import { createBody, jsonRequest, memorySandbox } from '../helpers.js';
import { receiver, signedWith } from '../support/webhook-receiver.js';
import type { Received } from '../support/webhook-receiver.js';
import { until } from '../support/until.js';


/** Every amount field of a JSON text, as written (the number's text). */
function amountsIn(text: string): string[] {
  return [...text.matchAll(/"(?:original_amount|paid_amount|amount)":([^,}\]]*)/g)].map((m) => m[1]!);
}

describe('webhook bodies write amounts with exactly two decimals (SPEC 4)', () => {
  let sandbox: Sandbox;
  let hook: Awaited<ReturnType<typeof receiver>>;
  let merchant: EnrolledMerchant;
  let headers: Record<string, string>;
  let secret: string;

  beforeAll(async () => {
    sandbox = await memorySandbox({ config: { webhookRetryDelaysMs: [0, 20, 40] } });
    hook = await receiver();
    merchant = await sandbox.control.enroll({ name: 'Amount Shop' });
    headers = { 'Service-Api-Key': merchant.apiKey };
    const set = await sandbox.fetch(jsonRequest('PUT', '/sandbox/v1/webhook', { url: hook.url }, headers));
    expect(set.status).toBe(200);
    secret = ((await set.json()) as { secret: string }).secret;
  });
  afterAll(async () => {
    await sandbox.close();
    await hook.close();
  });

  async function paidAtCreate(): Promise<{ id: string; events: Received[] }> {
    const res = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody({ payee: merchant.payeeId, amount: 100, payer: 'PAYER_PAYS' }), headers));
    expect(res.status).toBe(200);
    const id = ((await res.json()) as { payment_id: string }).payment_id;
    const events = await until(() => {
      const mine = hook.received.filter((r) => r.body.payment_id === id);
      return mine.length >= 2 ? mine : undefined;
    }, 'payment.created and payment.paid');
    return { id, events };
  }

  it('the POSTed text carries 100.00 and 0.60, as the status route writes them, and its signature verifies as the README says', async () => {
    const { id, events } = await paidAtCreate();
    const status = await (await sandbox.fetch(jsonRequest('GET', `/openapi/v1/payments/payment/${id}`, undefined, headers))).text();
    expect(amountsIn(status)).toEqual(['100.00', '100.00', '0.60']);
    for (const event of events) {
      expect(event.text).toContain('"original_amount":100.00');
      expect(event.text).toContain('"paid_amount":100.00');
      expect(event.text).toContain('"fee":[{"type":"MDR","currency_code":"SGD","amount":0.60}]');
      expect(amountsIn(event.text)).toEqual(amountsIn(status));
      expect(signedWith(event, secret), event.text).toBe(true);
    }
  });

  it('GET /sandbox/v1/webhook/deliveries shows each body exactly as it was sent', async () => {
    const { events } = await paidAtCreate();
    await until(async () => {
      const all = await sandbox.services.webhooks.deliveries(merchant.payeeId, 10);
      return events.every((e) => all.some((d) => d.eventId === e.body.event_id && d.state === 'delivered')) ? true : undefined;
    }, 'both delivered');
    const res = await sandbox.fetch(jsonRequest('GET', '/sandbox/v1/webhook/deliveries?limit=2', undefined, headers));
    const text = await res.text();
    expect(res.status).toBe(200);
    for (const event of events) expect(text).toContain(`"body":${event.text}`);
    expect(text).not.toMatch(/"(?:original_amount|paid_amount|amount)":\d+(?:\.\d)?[,}]/);
    // Still one JSON document, with the bodies as objects.
    const view = JSON.parse(text) as { deliveries: { event_id: string; body: Record<string, unknown> }[] };
    expect(view.deliveries.map((d) => d.body.event_id).sort()).toEqual(events.map((e) => e.body.event_id).sort());
  });

  it('a replay sends, and its answer shows, the same bytes', async () => {
    const { events } = await paidAtCreate();
    const paid = events.find((e) => e.body.type === 'payment.paid')!;
    const delivery = await until(async () => {
      const all = await sandbox.services.webhooks.deliveries(merchant.payeeId, 10);
      return all.find((d) => d.eventId === paid.body.event_id && d.state === 'delivered');
    }, 'the paid event delivered');
    const before = hook.received.length;
    const res = await sandbox.fetch(jsonRequest('POST', `/sandbox/v1/webhook/deliveries/${delivery.id}/replay`, undefined, headers));
    expect(res.status).toBe(200);
    expect(await res.text()).toContain(`"body":${paid.text}`);
    const again = await until(() => hook.received.slice(before).find((r) => r.body.event_id === paid.body.event_id), 'the replay');
    expect(again.text).toBe(paid.text);
  });

  it('a test event is written and shown the same way', async () => {
    const res = await sandbox.fetch(jsonRequest('POST', '/sandbox/v1/webhook/test', { type: 'payment.paid' }, headers));
    const text = await res.text();
    expect(res.status, text).toBe(200);
    const eventId = (JSON.parse(text) as { delivery: { event_id: string } }).delivery.event_id;
    const sent = await until(() => hook.received.find((r) => r.body.event_id === eventId), 'the test event');
    expect(text).toContain(`"body":${sent.text}`);
    expect(amountsIn(sent.text).length).toBeGreaterThan(0);
    for (const amount of amountsIn(sent.text)) expect(amount).toMatch(/^\d+\.\d\d$/);
    expect(signedWith(sent, secret)).toBe(true);
  });
});
