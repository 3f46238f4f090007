/**
 * One merchant's broken receiver must not starve the others (issue 10): while merchant A's URL
 * hangs, A holds at most MAX_DELIVERIES_PER_MERCHANT places, the rest of its deliveries wait in
 * the log, and merchant B's delivery goes at once. Real HTTP receivers; with
 * SANDBOX_TEST_STORE=postgres the deliveries are claimed from PostgreSQL.
 */
import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnrolledMerchant, Sandbox } from '../../src/index.js';
import { MAX_DELIVERIES_IN_FLIGHT, MAX_DELIVERIES_PER_MERCHANT } from '../../src/services/webhooks.js';
import { createBody, jsonRequest, memorySandbox } from '../helpers.js';
import { receiver } from '../support/webhook-receiver.js';
import { until } from '../support/until.js';

/** A receiver that takes the connection, reads the request and never answers. */
async function hangingReceiver(): Promise<{ url: string; held: () => number; close(): Promise<void> }> {
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

describe('webhook fairness between merchants', () => {
  let sandbox: Sandbox;
  let hanging: Awaited<ReturnType<typeof hangingReceiver>>;
  let answering: Awaited<ReturnType<typeof receiver>>;

  beforeAll(async () => {
    sandbox = await memorySandbox();
    hanging = await hangingReceiver();
    answering = await receiver();
  });
  afterAll(async () => {
    // The hanging receiver lets go first, so the attempts it held end before the store closes.
    await hanging.close();
    await new Promise((r) => setTimeout(r, 200));
    await sandbox.close();
    await answering.close();
  });

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
    const a = await merchantWithHook(hanging.url);
    for (let i = 0; i < 30; i++) await create(a.merchant, a.headers);
    // A's first deliveries reach its receiver and are held there (5 s until they time out).
    await until(() => (hanging.held() >= MAX_DELIVERIES_PER_MERCHANT ? true : undefined), "A's deliveries held by its receiver", 3_000);

    const b = await merchantWithHook(answering.url);
    answering.replies.push(204);
    const started = Date.now();
    const paymentId = await create(b.merchant, b.headers);
    await until(() => (answering.received.some((r) => r.body.payment_id === paymentId) ? true : undefined), "B's delivery", 1_500);
    const waited = Date.now() - started;

    // A's are still stuck: none answered, at most its places held, the rest queued in the log.
    expect(hanging.held()).toBe(MAX_DELIVERIES_PER_MERCHANT);
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
});
