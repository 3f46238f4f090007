/**
 * The journal and webhook deliveries are durable in the file store (SPEC 15, issue 10): a
 * delivery whose first attempt failed is retried by the next process on the same data file,
 * after a SIGKILL as after a clean stop, and the journal a merchant reads is the one it left.
 */
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../support/files.js';
import { DEMO_KEY, createBody } from '../support/http.js';
import { killQuietly, startServer } from '../support/processes.js';
import type { ServerProcess } from '../support/processes.js';
import { receiver } from '../support/webhook-receiver.js';
import { until as waitUntil } from '../support/until.js';

afterAll(removeTempDirs);
let running: ServerProcess[] = [];
const receivers: Awaited<ReturnType<typeof receiver>>[] = [];
afterEach(async () => {
  for (const s of running) killQuietly(s);
  running = [];
  for (const r of receivers.splice(0)) await r.close();
});

async function start(dataFile: string): Promise<ServerProcess> {
  const server = await startServer(dataFile);
  running.push(server);
  return server;
}

const headers = { 'Service-Api-Key': DEMO_KEY, 'Content-Type': 'application/json' };

async function call(server: ServerProcess, method: string, route: string, body?: unknown): Promise<any> {
  const response = await fetch(`${server.url}${route}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: response.status, body: await response.json() };
}

const until = <T>(check: () => T | undefined | Promise<T | undefined>, what: string, ms = 10_000) => waitUntil(check, what, ms, 20);

interface DeliveryView {
  id: string;
  event_id: string;
  state: string;
  attempts: { status: number | null }[];
}

async function deliveries(server: ServerProcess): Promise<DeliveryView[]> {
  return (await call(server, 'GET', '/sandbox/v1/webhook/deliveries')).body.deliveries as DeliveryView[];
}

/** A server on a fresh data file whose webhook goes to a receiver that answers the first attempt 500; one create made. */
async function firstAttemptFailed() {
  const hook = await receiver();
  receivers.push(hook);
  hook.replies.push(500);
  const dataFile = path.join(tempDir('payreq-hooks-'), 's.json');
  const first = await start(dataFile);
  expect((await call(first, 'PUT', '/sandbox/v1/webhook', { url: hook.url })).status).toBe(200);
  const created = await call(first, 'POST', '/openapi/v1/payments/payment', createBody({ merchant_ref_no: 'hooked' }));
  expect(created.status).toBe(200);
  await until(() => (hook.received.length > 0 ? true : undefined), 'the first attempt');
  // The failed attempt is recorded (the retry is due 1 s after it): the pending delivery shows it.
  const [failed] = await until(async () => {
    const list = await deliveries(first);
    return list.length === 1 && list[0]!.attempts.length === 1 ? list : undefined;
  }, 'the failed attempt recorded');
  expect(failed).toMatchObject({ state: 'pending', attempts: [{ status: 500 }] });
  // Its record rides the write at the end of the turn that recorded it.
  await new Promise((r) => setTimeout(r, 50));
  return { hook, dataFile, first, failed: failed!, paymentId: created.body.payment_id as string };
}

async function retryArrives(hook: Awaited<ReturnType<typeof receiver>>, dataFile: string, failed: DeliveryView): Promise<void> {
  // Nothing was retried by the first process before it stopped.
  expect(hook.received).toHaveLength(1);
  const second = await start(dataFile);
  await until(() => (hook.received.length >= 2 ? true : undefined), 'the retry from the restarted server');
  expect(hook.received[1]!.headers['sandbox-event-id']).toBe(failed.event_id);
  expect(hook.received[1]!.body).toEqual(hook.received[0]!.body);
  const [delivered] = await until(async () => {
    const list = await deliveries(second);
    return list[0]?.state === 'delivered' ? list : undefined;
  }, 'the delivery marked delivered');
  expect(delivered).toMatchObject({ id: failed.id, state: 'delivered', attempts: [{ status: 500 }, { status: 200 }] });
  await new Promise((r) => setTimeout(r, 1_200));
  expect(hook.received).toHaveLength(2);
}

describe('webhook deliveries and the journal across a restart of the serve process', () => {
  it('SIGKILL after a failed first attempt: the restarted server sends the retry, once', async () => {
    const { hook, dataFile, first, failed } = await firstAttemptFailed();
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    await retryArrives(hook, dataFile, failed);
  });

  it('SIGTERM after a failed first attempt: the restarted server sends the retry, once', async () => {
    const { hook, dataFile, first, failed } = await firstAttemptFailed();
    first.child.kill('SIGTERM');
    expect(await first.exited).toEqual({ code: 0, signal: null });
    await retryArrives(hook, dataFile, failed);
  });

  it('the journal read after a restart (SIGKILL, then SIGTERM) holds the requests made before it', async () => {
    const dataFile = path.join(tempDir('payreq-journal-'), 's.json');
    const first = await start(dataFile);
    const made = [];
    for (let i = 0; i < 3; i++) {
      const created = await call(first, 'POST', '/openapi/v1/payments/payment', createBody({ merchant_ref_no: `journal-${i}` }));
      expect(created.status).toBe(200);
      made.push(created.body.payment_id as string);
    }
    expect((await call(first, 'GET', `/openapi/v1/payments/payment/${made[0]}`)).status).toBe(200);
    const before = (await call(first, 'GET', '/sandbox/v1/requests?limit=10')).body.requests;
    expect(before).toHaveLength(4);
    await new Promise((r) => setTimeout(r, 50));
    first.child.kill('SIGKILL');
    await first.exited;

    const second = await start(dataFile);
    const afterKill = (await call(second, 'GET', '/sandbox/v1/requests?limit=10')).body.requests;
    // The newest entry is the read of the journal itself.
    expect(afterKill.slice(1)).toEqual(before);
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);

    const third = await start(dataFile);
    const afterStop = (await call(third, 'GET', '/sandbox/v1/requests?limit=10')).body.requests;
    expect(afterStop.slice(1)).toEqual(afterKill);
    expect(afterStop.map((e: { path: string }) => e.path).slice(2)).toEqual([
      `/openapi/v1/payments/payment/${made[0]}`,
      '/openapi/v1/payments/payment',
      '/openapi/v1/payments/payment',
      '/openapi/v1/payments/payment',
    ]);
  });
});
