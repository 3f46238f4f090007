/**
 * Webhooks are shared fairly (SPEC 18, 26): a merchant whose receiver hangs holds at most
 * MAX_DELIVERIES_PER_MERCHANT places, the rest of its deliveries wait in the log; however many
 * merchants' receivers hang (five, twenty), another merchant's first attempt starts at once, in a
 * place of its own. Real HTTP receivers on 127.0.0.1, on each store.
 */
import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EnrolledMerchant, Sandbox } from '../../src/index.js';
import { MAX_DELIVERIES_IN_FLIGHT, MAX_DELIVERIES_PER_MERCHANT, SHARED_PLACES, WEBHOOK_TIMEOUT_MS } from '../../src/services/webhook-sender.js';
import { createBody, jsonRequest } from '../helpers.js';
import { removeTempDirs } from '../support/files.js';
import { EACH_STORE } from '../support/sandboxes.js';
import { receiver } from '../support/webhook-receiver.js';
import { until } from '../support/until.js';

afterAll(removeTempDirs);

type HangingReceiver = Awaited<ReturnType<typeof hangingReceiver>>;

/** A receiver that takes the connection, reads the request and never answers. */
async function hangingReceiver(): Promise<{ url: string; held: () => number; holding: () => ServerResponse[]; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const waiting = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    req.resume();
    waiting.add(res);
    // A response closes only when its connection does: the sender gave up (or we let go).
    res.on('close', () => waiting.delete(res));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hangs`,
    held: () => waiting.size,
    holding: () => [...waiting],
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

interface DeliveryView {
  state: string;
  attempts: unknown[];
  payment_id: string;
}

describe.each(EACH_STORE)('webhook fairness between merchants on the %s store', (_store, make) => {
  let sandbox: Sandbox;
  let hanging: HangingReceiver[];
  let answering: Awaited<ReturnType<typeof receiver>>;

  beforeEach(async () => {
    sandbox = await make();
    hanging = [];
    answering = await receiver();
  });
  afterEach(async () => {
    // The hanging receivers let go first, so the attempts they held end before the store closes.
    await Promise.all(hanging.map((h) => h.close()));
    await new Promise((r) => setTimeout(r, 200));
    await sandbox.close();
    await answering.close();
  });

  async function hangingMerchant(payments: number): Promise<{ merchant: EnrolledMerchant; headers: Record<string, string>; receiver: HangingReceiver }> {
    const hangs = await hangingReceiver();
    hanging.push(hangs);
    const shop = await merchantWithHook(hangs.url);
    for (let i = 0; i < payments; i++) await create(shop.merchant, shop.headers);
    return { ...shop, receiver: hangs };
  }

  async function merchantWithHook(url: string): Promise<{ merchant: EnrolledMerchant; headers: Record<string, string> }> {
    const merchant = await sandbox.control.enroll({ name: 'Fair Shop' });
    const headers = { 'Service-Api-Key': merchant.apiKey };
    const set = await sandbox.fetch(jsonRequest('PUT', '/sandbox/v1/webhook', { url }, headers));
    expect(set.status).toBe(200);
    return { merchant, headers };
  }

  async function create(merchant: EnrolledMerchant, headers: Record<string, string>): Promise<string> {
    const res = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody({ payee: merchant.payeeId }), headers));
    expect(res.status).toBe(200);
    return ((await res.json()) as { payment_id: string }).payment_id;
  }

  async function deliveriesOf(headers: Record<string, string>): Promise<DeliveryView[]> {
    const res = await sandbox.fetch(jsonRequest('GET', '/sandbox/v1/webhook/deliveries?limit=100', undefined, headers));
    return ((await res.json()) as { deliveries: DeliveryView[] }).deliveries;
  }

  it("a merchant whose URL hangs holds a few places; another merchant's delivery arrives within 1.5 s", async () => {
    expect(MAX_DELIVERIES_PER_MERCHANT).toBeLessThan(MAX_DELIVERIES_IN_FLIGHT);
    const a = await hangingMerchant(30);
    // A's first deliveries reach its receiver and are held there (5 s until they time out).
    await until(() => (a.receiver.held() >= MAX_DELIVERIES_PER_MERCHANT ? true : undefined), "A's deliveries held by its receiver", 3_000);

    const b = await merchantWithHook(answering.url);
    answering.replies.push(204);
    const started = Date.now();
    const paymentId = await create(b.merchant, b.headers);
    await until(() => (answering.received.some((r) => r.body.payment_id === paymentId) ? true : undefined), "B's delivery", 1_500);
    const waited = Date.now() - started;

    // A's are still stuck: none answered, at most its places held, the rest queued in the log.
    expect(a.receiver.held()).toBe(MAX_DELIVERIES_PER_MERCHANT);
    const ofA = await deliveriesOf(a.headers);
    expect(ofA).toHaveLength(30);
    expect(ofA.every((d) => d.state === 'pending' && d.attempts.length === 0)).toBe(true);
    const ofB = await until(async () => {
      const [d] = await deliveriesOf(b.headers);
      return d?.state === 'delivered' ? d : undefined;
    }, "B's delivery recorded", 1_000);
    expect(ofB).toMatchObject({ payment_id: paymentId, state: 'delivered', attempts: [{ status: 204 }] });
    expect(waited).toBeLessThan(1_500);
  });

  it("while five merchants' receivers hang, a sixth merchant's first attempt starts within 5 s of its event, in a place no hanging attempt gave up", async () => {
    // Five hanging merchants want 5 x 4 = 20 places, more than the instance's 12 shared ones; one after another, the worst case.
    const stuck: Awaited<ReturnType<typeof hangingMerchant>>[] = [];
    for (let i = 0; i < 5; i++) stuck.push(await hangingMerchant(10));
    const heldInAll = () => stuck.reduce((n, m) => n + m.receiver.held(), 0);
    await until(() => (heldInAll() >= SHARED_PLACES ? true : undefined), 'the hanging merchants holding the shared places', 3_000);

    const sixth = await merchantWithHook(answering.url);
    answering.replies.push(204);
    // What the hanging receivers hold at the event: the sixth must not wait for one of these to time out.
    const heldAtEvent = stuck.flatMap((m) => m.receiver.holding());
    const started = Date.now();
    const paymentId = await create(sixth.merchant, sixth.headers);
    await until(() => (answering.received.some((r) => r.body.payment_id === paymentId) ? true : undefined), "the sixth merchant's first attempt", 5_000);
    const waited = Date.now() - started;
    const stillHeld = new Set(stuck.flatMap((m) => m.receiver.holding()));

    expect(waited).toBeLessThan(5_000);
    expect(heldAtEvent.filter((res) => !stillHeld.has(res))).toEqual([]);
    // The bounds stay: each hanging merchant at most its places, all within the shared ones and one each of their own.
    for (const m of stuck) expect(m.receiver.held()).toBeLessThanOrEqual(MAX_DELIVERIES_PER_MERCHANT);
    expect(heldInAll()).toBeLessThanOrEqual(SHARED_PLACES + stuck.length);
    // The rest of the hanging merchants' deliveries wait in the log, unattempted.
    for (const m of stuck) {
      const pending = await deliveriesOf(m.headers);
      expect(pending).toHaveLength(10);
      expect(pending.every((d) => d.state === 'pending' && d.attempts.length === 0)).toBe(true);
    }
  });

  it("while twenty merchants' receivers hang, a newcomer's first attempt starts within 5 s, at once and again after their attempts time out", { timeout: 40_000 }, async () => {
    const stuck: Awaited<ReturnType<typeof hangingMerchant>>[] = [];
    for (let i = 0; i < 20; i++) stuck.push(await hangingMerchant(5));
    const heldInAll = () => stuck.reduce((n, m) => n + m.receiver.held(), 0);
    // More hanging merchants than the instance had places (16): each holds at least one.
    await until(() => (stuck.every((m) => m.receiver.held() > 0) ? true : undefined), 'every hanging merchant holding a place', 5_000);

    const firstAttempt = async (): Promise<number> => {
      const newcomer = await merchantWithHook(answering.url);
      answering.replies.push(204);
      const started = Date.now();
      const paymentId = await create(newcomer.merchant, newcomer.headers);
      await until(() => (answering.received.some((r) => r.body.payment_id === paymentId) ? true : undefined), "the newcomer's first attempt", 30_000);
      return Date.now() - started;
    };
    const atOnce = await firstAttempt();
    // Their first attempts time out and are retried: the hanging merchants' backlog is older than any newcomer's event.
    await new Promise((r) => setTimeout(r, WEBHOOK_TIMEOUT_MS + 500));
    const later = await firstAttempt();
    console.log(`newcomer's first attempt with 20 receivers hanging: ${atOnce} ms at once, ${later} ms after their timeouts`);
    expect(atOnce).toBeLessThan(5_000);
    expect(later).toBeLessThan(5_000);
    // The bounds stay: each hanging merchant at most its places, all within the shared ones and one each of their own.
    for (const m of stuck) expect(m.receiver.held()).toBeLessThanOrEqual(MAX_DELIVERIES_PER_MERCHANT);
    expect(heldInAll()).toBeLessThanOrEqual(SHARED_PLACES + stuck.length);
    expect(heldInAll()).toBeLessThanOrEqual(MAX_DELIVERIES_IN_FLIGHT);
  });
});
