/**
 * Webhook drills (SPEC 16): a sample event on demand, duplicates with the same event_id, the
 * events of one change newest first, and deliveries held in sandbox seconds that a clock advance
 * releases. Every delivery is received by a real HTTP receiver and checked as one would.
 */
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_TYPES } from '../../src/domain/webhook-drills.js';
import { createSandbox } from '../../src/index.js';
import type { EnrolledMerchant, Sandbox } from '../../src/index.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { listeningSandbox } from '../support/http.js';
import { receiver, signedWith } from '../support/webhook-receiver.js';
import type { Received } from '../support/webhook-receiver.js';
import { createBody, jsonRequest, memorySandbox } from '../helpers.js';
import { until } from '../support/until.js';

type Receiver = Awaited<ReturnType<typeof receiver>>;

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

const receivers: Receiver[] = [];
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
});
async function hook(): Promise<Receiver> {
  const r = await receiver();
  receivers.push(r);
  return r;
}

describe('webhook drills, in process', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await memorySandbox({ config: { webhookRetryDelaysMs: [0, 20, 40] } });
  });
  afterAll(() => sandbox.close());

  /** A merchant of its own, with its receiver and (optionally) drills set. */
  async function merchantWith(faults?: Record<string, unknown>) {
    const merchant: EnrolledMerchant = await sandbox.control.enroll({ name: 'Drill Shop' });
    const headers = { 'Service-Api-Key': merchant.apiKey };
    const r = await hook();
    const send = async (method: string, route: string, body?: unknown) => {
      const res = await sandbox.fetch(jsonRequest(method, route, body, headers));
      return { status: res.status, body: (await res.json()) as any };
    };
    const set = await send('PUT', '/sandbox/v1/webhook', { url: r.url, ...(faults ? { faults } : {}) });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const create = async (extra: Record<string, unknown> = {}) => {
      const res = await send('POST', '/openapi/v1/payments/payment', createBody({ payee: merchant.payeeId, ...extra }));
      expect(res.status).toBe(200);
      return res.body.payment_id as string;
    };
    return { merchant, secret: set.body.secret as string, hook: r, send, create };
  }

  it('POST /webhook/test delivers a signed sample event with event_id and test: true, and answers the delivery', async () => {
    const { secret, hook: r, send } = await merchantWith();
    const answer = await send('POST', '/sandbox/v1/webhook/test', { type: 'payment.paid' });
    expect(answer.status).toBe(200);
    const { delivery } = answer.body;
    expect(delivery).toMatchObject({ event_type: 'payment.paid', url: r.url, state: 'delivered', attempts: [{ status: 200 }] });
    expect(delivery.event_id).toMatch(/\S/);
    expect(answer.body.description).toContain(delivery.event_id);

    expect(r.received).toHaveLength(1);
    const [got] = r.received;
    expect(got!.body).toMatchObject({ event_id: delivery.event_id, type: 'payment.paid', test: true, from: 'W', to: 'A' });
    expect(got!.headers['sandbox-event-id']).toBe(delivery.event_id);
    expect(signedWith(got!, secret)).toBe(true);
    // The same delivery is in the log, and no payment was touched.
    const log = await send('GET', '/sandbox/v1/webhook/deliveries');
    expect(log.body.deliveries[0]).toEqual(delivery);
    expect((await send('GET', '/sandbox/v1/payments')).body.total).toBe(0);
  });

  it('every payment.* type the sandbox sends can be sent as a test', async () => {
    const { secret, hook: r, send } = await merchantWith();
    for (const type of WEBHOOK_EVENT_TYPES) {
      const answer = await send('POST', '/sandbox/v1/webhook/test', { type });
      expect(answer.status, type).toBe(200);
      expect(answer.body.delivery.event_type).toBe(type);
    }
    expect(r.received.map((x) => x.body.type)).toEqual(WEBHOOK_EVENT_TYPES);
    expect(r.received.every((x) => x.body.test === true && signedWith(x, secret))).toBe(true);
    expect(new Set(r.received.map((x) => x.body.event_id)).size).toBe(WEBHOOK_EVENT_TYPES.length);
  });

  it('a test the receiver refuses is answered with its failed attempt, and retried', async () => {
    const { hook: r, send } = await merchantWith();
    r.replies.push(500);
    const answer = await send('POST', '/sandbox/v1/webhook/test', { type: 'payment.created' });
    expect(answer.status).toBe(200);
    expect(answer.body.delivery).toMatchObject({ state: 'pending', attempts: [{ status: 500 }] });
    expect(answer.body.description).toMatch(/answered 500; it is retried/);
    await until(() => (r.received.length === 2 ? true : undefined), 'the retry');
    expect(r.received[1]!.body.event_id).toBe(answer.body.delivery.event_id);
  });

  it('GET and PUT show the drills beside the URL; a URL alone keeps them, {} and null turn them off', async () => {
    const { hook: r, send } = await merchantWith({ duplicate: 0.25, reorder: true, delay_seconds: 5 });
    const drills = { duplicate: 0.25, reorder: true, delay_seconds: 5 };
    expect(await send('GET', '/sandbox/v1/webhook')).toMatchObject({ status: 200, body: { url: r.url, faults: drills } });
    expect((await send('GET', '/sandbox/v1/webhook')).body.description).toMatch(/held 5 sandbox seconds/);

    const urlOnly = await send('PUT', '/sandbox/v1/webhook', { url: `${r.url}/v2` });
    expect(urlOnly.body).toMatchObject({ url: `${r.url}/v2`, faults: drills });
    expect((await send('GET', '/sandbox/v1/webhook')).body).toMatchObject({ url: `${r.url}/v2`, faults: drills });

    const partial = await send('PUT', '/sandbox/v1/webhook', { url: r.url, faults: { reorder: true } });
    expect(partial.body.faults).toEqual({ duplicate: 0, reorder: true, delay_seconds: 0 });
    // faults alone keeps the URL.
    const faultsOnly = await send('PUT', '/sandbox/v1/webhook', { faults: { duplicate: 1 } });
    expect(faultsOnly.body).toMatchObject({ url: r.url, faults: { duplicate: 1, reorder: false, delay_seconds: 0 } });
    expect((await send('GET', '/sandbox/v1/webhook')).body).toMatchObject({ url: r.url, faults: { duplicate: 1, reorder: false, delay_seconds: 0 } });

    const none = { duplicate: 0, reorder: false, delay_seconds: 0 };
    await send('PUT', '/sandbox/v1/webhook', { url: r.url, faults: drills });
    expect((await send('PUT', '/sandbox/v1/webhook', { url: r.url, faults: {} })).body.faults).toEqual(none);
    await send('PUT', '/sandbox/v1/webhook', { url: r.url, faults: drills });
    expect((await send('PUT', '/sandbox/v1/webhook', { url: r.url, faults: null })).body.faults).toEqual(none);
    expect((await send('GET', '/sandbox/v1/webhook')).body.faults).toEqual(none);
  });

  it('a new merchant has no URL and no drills', async () => {
    const merchant = await sandbox.control.enroll({ name: 'Fresh Shop' });
    const res = await sandbox.fetch(jsonRequest('GET', '/sandbox/v1/webhook', undefined, { 'Service-Api-Key': merchant.apiKey }));
    expect(await res.json()).toMatchObject({ url: null, faults: { duplicate: 0, reorder: false, delay_seconds: 0 } });
  });

  it('duplicate: 1 sends each event twice, with the same event_id and body', async () => {
    const { secret, hook: r, send, create } = await merchantWith({ duplicate: 1 });
    const id = await create();
    await send('POST', `/sandbox/v1/payments/${id}/pay`);
    const got = await until(() => (r.received.length >= 4 ? r.received : undefined), 'four deliveries');
    await pause(100);
    expect(r.received).toHaveLength(4);
    const byEvent = new Map<string, Received[]>();
    for (const x of got) byEvent.set(x.body.event_id as string, [...(byEvent.get(x.body.event_id as string) ?? []), x]);
    expect([...byEvent.values()].map((copies) => copies.length)).toEqual([2, 2]);
    for (const [, [a, b]] of byEvent) {
      expect(b!.body).toEqual(a!.body);
      expect(signedWith(a!, secret)).toBe(true);
    }
    expect([...byEvent.values()].map((copies) => copies[0]!.body.type).sort()).toEqual(['payment.created', 'payment.paid']);
    // The log keeps both copies, each with its own delivery id.
    const log = (await send('GET', '/sandbox/v1/webhook/deliveries')).body.deliveries as { id: string; event_id: string }[];
    expect(log).toHaveLength(4);
    expect(new Set(log.map((d) => d.id)).size).toBe(4);
    expect(new Set(log.map((d) => d.event_id)).size).toBe(2);
  });

  it('reorder: the events of one change arrive newest first', async () => {
    const { hook: r, create } = await merchantWith({ reorder: true });
    // Created with a payer who pays at once: created and paid, in one change.
    const id = await create({ payer: 'PAYER_PAYS' });
    await until(() => (r.received.length >= 2 ? true : undefined), 'two deliveries');
    expect(r.received.map((x) => [x.body.payment_id, x.body.type])).toEqual([
      [id, 'payment.paid'],
      [id, 'payment.created'],
    ]);
  });

  it('reorder, duplicate and delay together: released by the clock, newest first, each copy after its original', async () => {
    const { hook: r, send, create } = await merchantWith({ reorder: true, duplicate: 1, delay_seconds: 60 });
    await create({ payer: 'PAYER_PAYS' });
    await pause(150);
    expect(r.received).toHaveLength(0);
    expect((await send('POST', '/sandbox/v1/clock/advance', { seconds: 60 })).status).toBe(200);
    await until(() => (r.received.length >= 4 ? true : undefined), 'four deliveries');
    expect(r.received.map((x) => x.body.type)).toEqual(['payment.paid', 'payment.paid', 'payment.created', 'payment.created']);
  });

  it('delay_seconds are sandbox seconds: nothing arrives until the clock is advanced past them', async () => {
    const { hook: r, send, create } = await merchantWith({ delay_seconds: 600 });
    const id = await create();
    await pause(200);
    expect(r.received).toHaveLength(0);
    const [held] = (await send('GET', '/sandbox/v1/webhook/deliveries')).body.deliveries;
    expect(held).toMatchObject({ state: 'pending', attempts: [] });
    expect(Date.parse(held.next_attempt_at) - Date.now()).toBeGreaterThan(590_000);

    // Half the hold: still held.
    expect((await send('POST', '/sandbox/v1/clock/advance', { seconds: 300 })).status).toBe(200);
    await pause(200);
    expect(r.received).toHaveLength(0);
    // The rest of it: released at once.
    expect((await send('POST', '/sandbox/v1/clock/advance', { seconds: 300 })).status).toBe(200);
    const got = await until(() => r.received[0], 'the held delivery');
    expect(got.body).toMatchObject({ payment_id: id, type: 'payment.created' });
    await until(async () => ((await send('GET', '/sandbox/v1/webhook/deliveries')).body.deliveries[0].state === 'delivered' ? true : undefined), 'delivered');
  });

  it('a change applied by the clock advance is held from when it happened on the sandbox clock', async () => {
    const { hook: r, send, create } = await merchantWith();
    const id = await create({ payer: 'PAYER_PAYS_LATER' }); // pays 30 sandbox seconds after assignment
    await until(() => (r.received.length >= 1 ? true : undefined), 'created');
    await send('PUT', '/sandbox/v1/webhook', { url: r.url, faults: { delay_seconds: 100 } });
    // Paid at +30, held to +130: an advance of 100 applies the payment but does not release it...
    await send('POST', '/sandbox/v1/clock/advance', { seconds: 100 });
    expect((await send('GET', `/sandbox/v1/payments/${id}`)).body.payment.payment_status).toBe('A');
    await pause(200);
    expect(r.received.map((x) => x.body.type)).toEqual(['payment.created']);
    // ...30 more do.
    await send('POST', '/sandbox/v1/clock/advance', { seconds: 30 });
    // Released by the advance, sent by the next delivery pass: a loaded PostgreSQL run took over 5 s once.
    const paid = await until(() => r.received.find((x) => x.body.type === 'payment.paid'), 'paid', 15_000);
    expect(paid.body.payment_id).toBe(id);
  });

  it("a clock advance releases only this merchant's held deliveries", async () => {
    const a = await merchantWith({ delay_seconds: 600 });
    const b = await merchantWith({ delay_seconds: 600 });
    await a.create();
    await b.create();
    await a.send('POST', '/sandbox/v1/clock/advance', { seconds: 600 });
    await until(() => a.hook.received[0], "a's delivery");
    await pause(200);
    expect(b.hook.received).toHaveLength(0);
    await b.send('POST', '/sandbox/v1/clock/advance', { seconds: 600 });
    await until(() => b.hook.received[0], "b's delivery");
  });
});

describe('webhook drills through a listening server', () => {
  const live = listeningSandbox({ config: { webhookRetryDelaysMs: [0, 20] } });

  it('drills set, a test event and a held delivery released by the clock, all over HTTP', async () => {
    const r = await hook();
    const key = { 'Service-Api-Key': live.sandbox.demoMerchants[0]!.apiKey };
    const merchant = live.sandbox.demoMerchants[0]!;
    const call = async (method: string, route: string, body?: unknown) => {
      const res = await fetch(`${live.server.url}${route}`, {
        method,
        headers: { ...key, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const set = await call('PUT', '/sandbox/v1/webhook', { url: r.url, faults: { delay_seconds: 600, duplicate: 1 } });
    expect(set).toMatchObject({ status: 200, body: { code: 200, url: r.url, faults: { duplicate: 1, reorder: false, delay_seconds: 600 } } });

    // A test event is sent now, whatever the drills.
    const test = await call('POST', '/sandbox/v1/webhook/test', { type: 'payment.expired' });
    expect(test).toMatchObject({ status: 200, body: { code: 200, delivery: { state: 'delivered', url: r.url } } });
    expect(r.received.map((x) => [x.body.type, x.body.test, x.body.event_id])).toEqual([['payment.expired', true, test.body.delivery.event_id]]);
    expect(signedWith(r.received[0]!, set.body.secret)).toBe(true);

    const created = await call('POST', '/openapi/v1/payments/payment', createBody({ payee: merchant.payeeId }));
    expect(created.status).toBe(200);
    await pause(200);
    expect(r.received).toHaveLength(1);
    expect((await call('POST', '/sandbox/v1/clock/advance', { seconds: 600 })).status).toBe(200);
    await until(() => (r.received.length >= 3 ? true : undefined), 'the held event and its duplicate');
    const [original, copy] = r.received.slice(1);
    expect(original!.body).toMatchObject({ type: 'payment.created', payment_id: created.body.payment_id });
    expect(copy!.body).toEqual(original!.body);
    expect(original!.body.test).toBeUndefined();
    expect(signedWith(original!, set.body.secret)).toBe(true);
  });
});

describe('webhook drills on the file store', () => {
  afterAll(removeTempDirs);

  it('a delivery released by a clock advance is written: after a restart it is still due, not held again', async () => {
    const dataFile = path.join(tempDir(), 'sandbox.json');
    const r = await hook();
    const first = await createSandbox({ store: 'file', dataFile, scheduler: false });
    const merchant = first.demoMerchants[0]!;
    const headers = { 'Service-Api-Key': merchant.apiKey };
    expect((await first.fetch(jsonRequest('PUT', '/sandbox/v1/webhook', { url: r.url, faults: { delay_seconds: 3600 } }, headers))).status).toBe(200);
    expect((await first.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody({ payee: merchant.payeeId }), headers))).status).toBe(200);
    const [held] = await first.services.webhooks.deliveries(merchant.payeeId, 1);
    expect(held!.nextAttemptAt! - Date.now()).toBeGreaterThan(3_500_000);
    // Closed before anything is sent: the release is in the file only.
    first.services.webhooks.close();
    expect((await first.fetch(jsonRequest('POST', '/sandbox/v1/clock/advance', { seconds: 3600 }, headers))).status).toBe(200);
    await first.close();
    expect(r.received).toHaveLength(0);

    const second = await createSandbox({ store: 'file', dataFile, scheduler: false });
    try {
      const got = await until(() => r.received[0], 'the released delivery after the restart');
      expect(got.body).toMatchObject({ event_id: held!.eventId, type: 'payment.created' });
    } finally {
      await second.close();
    }
  });
});
