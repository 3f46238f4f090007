/**
 * The stream payreq-sandbox listen reads (SPEC 22), on every store: its first event carries the
 * secret, each attempt comes signed as a direct one, and the listener's answer is the attempt's.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { call } from '../support/http.js';
import { EACH_STORE } from '../support/sandboxes.js';
import { answer, listeningMerchant } from '../support/webhook-stream.js';
import type { OpenStream } from '../support/webhook-stream.js';
import { receiver, signedWith } from '../support/webhook-receiver.js';
import type { Received } from '../support/webhook-receiver.js';
import { until } from '../support/until.js';

describe.each(EACH_STORE)('the webhook stream on the %s store', (_store, make) => {
  let sandbox: Sandbox;
  const streams: OpenStream[] = [];
  afterEach(async () => {
    for (const s of streams.splice(0)) await s.close();
    await sandbox?.close();
  });

  /** The attempts the delivery log shows for `deliveryId` once it is delivered: found by id, whatever else was delivered meanwhile. */
  async function attemptsOf(key: string, deliveryId: string, deliveries: () => Promise<readonly { id: string; state: string }[]>): Promise<any[]> {
    await until(async () => (await deliveries()).find((d) => d.id === deliveryId)?.state === 'delivered', `${deliveryId} delivered`);
    const log = await call(sandbox, 'GET', '/sandbox/v1/webhook/deliveries?limit=50', { key });
    return (log.body.deliveries as any[]).find((d) => d.id === deliveryId).attempts;
  }

  /** A listening merchant whose stream said hello, and the first delivery of a payment created for `ref`. */
  async function firstDelivery(ref: string) {
    const merchant = await setUp();
    const s = await merchant.open();
    await s.next('hello');
    await merchant.create(ref);
    return { ...merchant, s, event: await s.next('delivery') };
  }

  async function setUp() {
    sandbox = await make({ config: { webhookRetryDelaysMs: [0, 50, 100] } });
    return listeningMerchant(sandbox, streams, 'Stream Shop');
  }

  /** The attempt as a receiver would get it, for the README's signature check. */
  const asReceived = (event: { headers: Record<string, string>; body: string }): Received => ({
    headers: Object.fromEntries(Object.entries(event.headers).map(([k, v]) => [k.toLowerCase(), v])),
    body: JSON.parse(event.body) as Record<string, unknown>,
    text: event.body,
    raw: Buffer.from(event.body),
    localAddress: undefined,
  });

  it('answers text/event-stream whose first event carries a secret made for a merchant without one, which signs its attempts', async () => {
    const { m, open, create, deliveries } = await setUp();
    const s = await open();
    expect(s.response.status).toBe(200);
    expect(s.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const hello = await s.next('hello');
    expect(hello).toMatchObject({ payee_id: m.payeeId, events: null, url: null });
    expect(hello.secret).toMatch(/^whsec_[A-Za-z0-9_-]{32}$/);
    const id = await create('stream-1');
    const event = await s.next('delivery');
    expect(event).toMatchObject({ attempt: 1, event_type: 'payment.created', payment_id: id });
    expect(event.headers['Sandbox-Event-Id']).toBe(JSON.parse(event.body).event_id);
    expect(event.headers['Content-Type']).toBe('application/json');
    expect(signedWith(asReceived(event), hello.secret)).toBe(true);
    const taken = await answer(sandbox, m.apiKey, { delivery_id: event.delivery_id, attempt: 1, status: 204, latency_ms: 3, error: null });
    expect(taken.status).toBe(200);
    const [d] = await until(async () => ((await deliveries())[0]?.state === 'delivered' ? await deliveries() : undefined), 'delivered');
    expect(d!.attempts.map((a) => a.status)).toEqual([204]);
    // The same secret again on the next connection: connecting does not rotate it.
    await s.close();
    expect((await (await open()).next('hello')).secret).toBe(hello.secret);
  });

  it("the log's latency of an attempt a listener answered is the local receiver's, as the listener reports it", async () => {
    const { m, event, deliveries } = await firstDelivery('stream-latency');
    // The relay took 300 ms or more; the receiver says it took 7.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await answer(sandbox, m.apiKey, { delivery_id: event.delivery_id, attempt: 1, status: 204, latency_ms: 7, error: null })).status).toBe(200);
    expect(await attemptsOf(m.apiKey, event.delivery_id, deliveries)).toEqual([expect.objectContaining({ status: 204, error: null, latency_ms: 7 })]);
  });

  it('a latency a listener reports beyond what the sandbox waited for it is cut to that wait', async () => {
    const { m, event, deliveries } = await firstDelivery('stream-latency-long');
    expect((await answer(sandbox, m.apiKey, { delivery_id: event.delivery_id, attempt: 1, status: 204, latency_ms: 3_600_000, error: null })).status).toBe(200);
    const [attempt] = await attemptsOf(m.apiKey, event.delivery_id, deliveries);
    expect(attempt.latency_ms).toBeGreaterThanOrEqual(0);
    // The attempt waits 5 s at most for a listener's answer.
    expect(attempt.latency_ms).toBeLessThanOrEqual(5_000);
  });

  it("a listener's 500 is retried as for a URL, to the listener, with the next attempt's number", async () => {
    const { m, open, create, deliveries } = await setUp();
    const s = await open();
    await s.next('hello');
    await create('stream-retry');
    const first = await s.next('delivery');
    await answer(sandbox, m.apiKey, { delivery_id: first.delivery_id, attempt: 1, status: 500, latency_ms: 1, error: null });
    const second = await s.next('delivery');
    expect(second).toMatchObject({ delivery_id: first.delivery_id, attempt: 2 });
    await answer(sandbox, m.apiKey, { delivery_id: second.delivery_id, attempt: 2, status: 200, latency_ms: 1, error: null });
    const [d] = await until(async () => ((await deliveries())[0]?.state === 'delivered' ? await deliveries() : undefined), 'delivered');
    expect(d!.attempts.map((a) => a.status)).toEqual([500, 200]);
  });

  it('while a listener is connected a set URL gets nothing; once it leaves, deliveries go to the URL again', async () => {
    const { m, open, create, deliveries } = await setUp();
    const hook = await receiver();
    try {
      const set = await call(sandbox, 'PUT', '/sandbox/v1/webhook', { key: m.apiKey, body: { url: hook.url } });
      expect(set.status).toBe(200);
      const s = await open('?events=payment.created');
      const hello = await s.next('hello');
      expect(hello.url).toBe(hook.url);
      expect(hello.secret).not.toBe(set.body.secret);
      await create('stream-url-1');
      const event = await s.next('delivery');
      await answer(sandbox, m.apiKey, { delivery_id: event.delivery_id, attempt: 1, status: 200, latency_ms: 1, error: null });
      await until(async () => ((await deliveries())[0]?.state === 'delivered' ? true : undefined), 'delivered to the listener');
      expect(hook.received).toHaveLength(0);
      await s.close();
      await until(() => (sandbox.services.webhooks.listeners.has(m.payeeId) ? undefined : true), 'the listener gone');
      const id = await create('stream-url-2');
      const got = await until(() => hook.received.find((r) => r.body.payment_id === id), 'the URL gets the next one');
      // Signed with the URL's secret, as before the listener came.
      expect(signedWith(got, set.body.secret as string)).toBe(true);
      expect(signedWith(got, hello.secret as string)).toBe(false);
    } finally {
      await hook.close();
    }
  });

  it('the duplicate drill sends both copies to the listener, and both answered 2xx pass the readiness checks webhook and webhook-duplicate', async () => {
    const { m, open, create, deliveries } = await setUp();
    expect((await call(sandbox, 'PUT', '/sandbox/v1/webhook', { key: m.apiKey, body: { faults: { duplicate: 1 } } })).status).toBe(200);
    const s = await open();
    await s.next('hello');
    await create('stream-duplicate');
    const copies = [await s.next('delivery'), await s.next('delivery')];
    expect(new Set(copies.map((e) => JSON.parse(e.body).event_id)).size).toBe(1);
    expect(new Set(copies.map((e) => e.delivery_id)).size).toBe(2);
    for (const e of copies) expect((await answer(sandbox, m.apiKey, { delivery_id: e.delivery_id, attempt: 1, status: 200, latency_ms: 1, error: null })).status).toBe(200);
    await until(async () => ((await deliveries()).filter((d) => d.state === 'delivered').length === 2 ? true : undefined), 'both copies delivered');
    const report = await call(sandbox, 'GET', '/sandbox/v1/readiness', { key: m.apiKey });
    const status = (id: string) => report.body.checks.find((c: { id: string }) => c.id === id).status;
    expect([status('webhook'), status('webhook-duplicate')]).toEqual(['pass', 'pass']);
  });

  it('a delivery the listener answers 500, with no URL set, fails the readiness check webhook instead of reading as not tried', async () => {
    const { m, s, event, deliveries } = await firstDelivery('stream-refused');
    expect((await answer(sandbox, m.apiKey, { delivery_id: event.delivery_id, attempt: 1, status: 500, latency_ms: 1, error: null })).status).toBe(200);
    await until(async () => ((await deliveries())[0]?.attempts.length === 1 ? true : undefined), 'the refused attempt recorded');
    const report = await call(sandbox, 'GET', '/sandbox/v1/readiness', { key: m.apiKey });
    const webhook = report.body.checks.find((c: { id: string }) => c.id === 'webhook');
    expect(webhook.status).toBe('fail');
    expect(webhook.title).toMatch(/payreq-sandbox listen/);
    await s.close();
  });

  it('a draining instance ends its streams, so a stop does not wait for them', async () => {
    const { m, open } = await setUp();
    const s = await open();
    await s.next('hello');
    expect(s.ended()).toBe(false);
    sandbox.services.drain.start('a test stop');
    await until(() => (s.ended() ? true : undefined), 'the stream ended for its reader', 3_000);
    expect(sandbox.services.webhooks.listeners.has(m.payeeId)).toBe(false);
  });

  it('an event type the listener does not take is not forwarded: the delivery fails at once, saying why', async () => {
    const { open, create, deliveries } = await setUp();
    const s = await open('?events=payment.paid');
    expect((await s.next('hello')).events).toEqual(['payment.paid']);
    await create('stream-filtered');
    const [d] = await until(async () => ((await deliveries())[0]?.state === 'failed' ? await deliveries() : undefined), 'the created event failed');
    expect(d!.attempts).toHaveLength(1);
    expect(d!.attempts[0]!.error).toMatch(/not forwarded: the listener connected does not take payment\.created \(payreq-sandbox listen --events\)/);
    expect(s.events.filter((e) => e.event === 'delivery')).toHaveLength(0);
  });
});
