import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnrolledMerchant, Sandbox } from '../../src/index.js';
import { createBody, jsonRequest, memorySandbox } from '../helpers.js';
import { receiver, signedWith } from '../support/webhook-receiver.js';
import { until } from '../support/until.js';


describe('webhooks', () => {
  let sandbox: Sandbox;
  let hook: Awaited<ReturnType<typeof receiver>>;
  let merchant: EnrolledMerchant;
  let headers: Record<string, string>;
  let secret: string;

  beforeAll(async () => {
    sandbox = await memorySandbox({ config: { webhookRetryDelaysMs: [0, 20, 40] } });
    hook = await receiver();
    merchant = await sandbox.control.enroll({ name: 'Hook Shop' });
    headers = { 'Service-Api-Key': merchant.apiKey };
    const set = await sandbox.fetch(jsonRequest('PUT', '/sandbox/v1/webhook', { url: hook.url }, headers));
    expect(set.status).toBe(200);
    secret = ((await set.json()) as { secret: string }).secret;
  });
  afterAll(async () => {
    await sandbox.close();
    await hook.close();
  });

  async function create(extra: Record<string, unknown> = {}): Promise<string> {
    const res = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody({ payee: merchant.payeeId, ...extra }), headers));
    expect(res.status).toBe(200);
    return ((await res.json()) as { payment_id: string }).payment_id;
  }

  it('GET /sandbox/v1/webhook shows the URL', async () => {
    const res = await sandbox.fetch(jsonRequest('GET', '/sandbox/v1/webhook', undefined, headers));
    expect(await res.json()).toMatchObject({ code: 200, url: hook.url });
  });

  it('POSTs each state change, signed with the webhook secret in Sandbox-Signature', async () => {
    const id = await create();
    await sandbox.fetch(jsonRequest('POST', `/sandbox/v1/payments/${id}/pay`, undefined, headers));
    const events = await until(() => {
      const mine = hook.received.filter((r) => r.body.payment_id === id);
      return mine.length >= 2 ? mine : undefined;
    }, 'two events');
    expect(events.map((e) => e.body.type).sort()).toEqual(['payment.created', 'payment.paid']);
    const paid = events.find((e) => e.body.type === 'payment.paid')!;
    expect(paid.body).toMatchObject({ from: 'P', to: 'A', actor: 'sandbox', payment: { payment_status: 'A', payment_id: id } });
    expect(paid.headers['sandbox-event-id']).toBe(paid.body.event_id);
    // The body carries no signature of its own (sign with the salt could be made through tools/sign).
    expect(paid.body).not.toHaveProperty('sign');
    expect(paid.body).not.toHaveProperty('sign_type');
    expect(paid.headers['sandbox-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(signedWith(paid, secret)).toBe(true);
    expect(signedWith(paid, merchant.signingSalt)).toBe(false);
  });

  it('retries with back-off until the receiver answers 2xx, and logs every attempt', async () => {
    hook.replies.push(500, 503);
    const id = await create();
    // The receiver sees a request before the sandbox sees its answer: wait for the sandbox's verdict.
    await until(async () => (await sandbox.services.webhooks.deliveries(merchant.payeeId, 10)).find((d) => d.paymentId === id && d.state !== 'pending'), 'a final state');
    expect(hook.received.filter((r) => r.body.payment_id === id)).toHaveLength(3);
    const log = (await (await sandbox.fetch(jsonRequest('GET', '/sandbox/v1/webhook/deliveries?limit=5', undefined, headers))).json()) as {
      deliveries: { payment_id: string; state: string; attempts: { status: number }[] }[];
    };
    const entry = log.deliveries.find((d) => d.payment_id === id)!;
    expect(entry.state).toBe('delivered');
    expect(entry.attempts.map((a) => a.status)).toEqual([500, 503, 200]);
  });

  it('gives up after the last retry and marks the delivery failed', async () => {
    hook.replies.push(500, 500, 500);
    const id = await create();
    const entry = await until(async () => (await sandbox.services.webhooks.deliveries(merchant.payeeId, 10)).find((d) => d.paymentId === id && d.state !== 'pending'), 'a final state');
    expect(entry.state).toBe('failed');
    expect(entry.attempts).toHaveLength(3);
  });

  it('replays a delivery with the same event id', async () => {
    const [latest] = await sandbox.services.webhooks.deliveries(merchant.payeeId, 1);
    const before = hook.received.length;
    const res = await sandbox.fetch(jsonRequest('POST', `/sandbox/v1/webhook/deliveries/${latest!.id}/replay`, undefined, headers));
    expect(res.status).toBe(200);
    const again = await until(() => hook.received.slice(before).find((r) => r.body.event_id === latest!.eventId), 'the replay');
    expect(again.body.payment_id).toBe(latest!.paymentId);
  });

  it('another merchant sees none of these deliveries and cannot replay them', async () => {
    const [latest] = await sandbox.services.webhooks.deliveries(merchant.payeeId, 1);
    const list = (await (await sandbox.fetch(jsonRequest('GET', '/sandbox/v1/webhook/deliveries'))).json()) as { deliveries: unknown[] };
    expect(list.deliveries).toEqual([]);
    const replay = await sandbox.fetch(jsonRequest('POST', `/sandbox/v1/webhook/deliveries/${latest!.id}/replay`));
    expect(replay.status).toBe(404);
  });

  it('PUT {url: null} turns webhooks off', async () => {
    await sandbox.fetch(jsonRequest('PUT', '/sandbox/v1/webhook', { url: null }, headers));
    const before = (await sandbox.services.webhooks.deliveries(merchant.payeeId, 200)).length;
    await create();
    await new Promise((r) => setTimeout(r, 50));
    expect((await sandbox.services.webhooks.deliveries(merchant.payeeId, 200)).length).toBe(before);
  });
});

describe('webhook settings: bad input', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await memorySandbox();
  });
  afterAll(() => sandbox.close());

  for (const body of [{}, { url: 'ftp://x.test/' }, { url: 'not a url' }, { url: 42 }, { url: `https://x.test/${'a'.repeat(2100)}` }]) {
    it(`PUT /sandbox/v1/webhook ${JSON.stringify(body).slice(0, 40)} is 400 and changes nothing`, async () => {
      const res = await sandbox.fetch(jsonRequest('PUT', '/sandbox/v1/webhook', body));
      expect(res.status).toBe(400);
      expect(((await res.json()) as { description: string }).description).toMatch(/url/);
      const get = (await (await sandbox.fetch(jsonRequest('GET', '/sandbox/v1/webhook'))).json()) as { url: string | null };
      expect(get.url).toBeNull();
    });
  }

  it('replaying an unknown delivery is 404', async () => {
    const res = await sandbox.fetch(jsonRequest('POST', '/sandbox/v1/webhook/deliveries/whd_nope/replay'));
    expect(res.status).toBe(404);
  });
});
