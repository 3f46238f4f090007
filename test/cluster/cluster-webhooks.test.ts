/**
 * Issue 9, webhooks across instances (SPEC 14): each expiry sends one webhook whichever instance
 * applies it, and a retry outlives the instance that started it.
 */
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/databases.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { killQuietly, startServer } from '../support/processes.js';
import type { ServerProcess } from '../support/processes.js';
import { receiver } from '../support/webhook-receiver.js';
import { until as waitUntil } from '../support/until.js';

const started: ServerProcess[] = [];
afterEach(() => {
  for (const server of started.splice(0)) killQuietly(server);
});
afterAll(removeTempDirs);

async function instances(url: string, count: number): Promise<ServerProcess[]> {
  const dir = tempDir('payreq-cluster-hooks-');
  const servers = await Promise.all(Array.from({ length: count }, (_, i) => startServer(path.join(dir, `${i}.json`), { SANDBOX_STORE: url })));
  started.push(...servers);
  return servers;
}

async function call(base: string, method: string, route: string, key?: string, body?: unknown): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {};
  if (key) headers['Service-Api-Key'] = key;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${base}${route}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  return { status: response.status, body: await response.json() };
}

async function enroll(base: string, settings: Record<string, unknown>): Promise<{ key: string; payee: string }> {
  const answer = await call(base, 'POST', '/sandbox/v1/merchants', undefined, { name: 'Hook Shop', ...settings });
  expect(answer.status).toBe(200);
  return { key: answer.body.api_key as string, payee: answer.body.payee_id as string };
}

const until = <T>(check: () => T | undefined | Promise<T | undefined>, what: string, ms = 15_000) => waitUntil(check, what, ms, 50);

describe('webhooks on a cluster', () => {
  it('20 expiries applied through one instance while both tick send exactly one payment.expired each', async () => {
    const hook = await receiver();
    try {
      const [a, b] = await instances(await freshDatabase(), 2);
      const m = await enroll(a!.url, { qr_ttl_seconds: 60 });
      expect((await call(b!.url, 'PUT', '/sandbox/v1/webhook', m.key, { url: hook.url })).status).toBe(200);
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) {
        const created = await call(i % 2 ? a!.url : b!.url, 'POST', '/openapi/v1/payments/payment', m.key, { payee: m.payee, product_type: 'QR_DYNAMIC', merchant_ref_no: `hook-${i}`, amount: 5 });
        expect(created.status).toBe(200);
        ids.push(created.body.payment_id as string);
      }
      expect((await call(a!.url, 'POST', '/sandbox/v1/clock/advance', m.key, { seconds: 61 })).body.changed).toBe(20);
      for (const id of ids) expect((await call(b!.url, 'GET', `/openapi/v1/payments/payment/${id}`, m.key)).body.payment_status).toBe('E');
      const expiredOf = () => hook.received.filter((r) => r.body.type === 'payment.expired');
      await until(() => (expiredOf().length >= 20 ? true : undefined), '20 payment.expired deliveries');
      // Both schedulers tick every second and both pump deliveries twice a second: give a duplicate time to show.
      await new Promise((r) => setTimeout(r, 2_500));
      const expired = expiredOf().map((r) => r.body.payment_id as string);
      expect([...expired].sort()).toEqual([...ids].sort());
      expect(hook.received.filter((r) => r.body.type === 'payment.created')).toHaveLength(20);
    } finally {
      await hook.close();
    }
  }, 60_000);

  it('a retry pending when its instance is killed is delivered by another instance', async () => {
    const hook = await receiver();
    try {
      const url = await freshDatabase();
      const [first] = await instances(url, 1);
      const m = await enroll(first!.url, {});
      await call(first!.url, 'PUT', '/sandbox/v1/webhook', m.key, { url: hook.url });
      // The first attempt fails; the next is due a second later (the default back-off).
      hook.replies.push(500);
      const created = await call(first!.url, 'POST', '/openapi/v1/payments/payment', m.key, { payee: m.payee, product_type: 'QR_DYNAMIC', merchant_ref_no: 'retry-1', amount: 7 });
      expect(created.status).toBe(200);
      const id = created.body.payment_id as string;
      await until(async () => {
        const log = await call(first!.url, 'GET', '/sandbox/v1/webhook/deliveries', m.key);
        const delivery = log.body.deliveries.find((d: any) => d.payment_id === id);
        return delivery?.attempts.length === 1 ? delivery : undefined;
      }, 'the first, failed attempt');
      first!.child.kill('SIGKILL');
      await first!.exited;
      expect(hook.received.filter((r) => r.body.payment_id === id)).toHaveLength(1);

      const [second] = await instances(url, 1);
      const delivered = await until(async () => {
        const log = await call(second!.url, 'GET', '/sandbox/v1/webhook/deliveries', m.key);
        const delivery = log.body.deliveries.find((d: any) => d.payment_id === id);
        return delivery?.state === 'delivered' ? delivery : undefined;
      }, 'the retry, sent by the second instance');
      expect(delivered.attempts.map((a: any) => a.status)).toEqual([500, 200]);
      const sent = hook.received.filter((r) => r.body.payment_id === id);
      expect(sent).toHaveLength(2);
      expect(sent[1]!.body.event_id).toBe(sent[0]!.body.event_id);
    } finally {
      await hook.close();
    }
  }, 60_000);
});
