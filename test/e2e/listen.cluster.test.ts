/**
 * payreq-sandbox listen on two instances sharing PostgreSQL (SPEC 22, 14): a listener connected to
 * one instance gets the events of payments changed through the other, and follows the listener
 * when it moves to the other instance.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/databases.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { call, listenersPerTest } from '../support/listener.js';
import { serversPerTest } from '../support/processes.js';
import { parseEvent } from '../../src/listen-command.js';
import { receiver, signedWith } from '../support/webhook-receiver.js';
import { until } from '../support/until.js';

afterAll(removeTempDirs);
const servers = serversPerTest();
const listen = listenersPerTest();

describe('payreq-sandbox listen on two instances sharing PostgreSQL', () => {
  it('a listener on instance 1 gets the events of payments changed through instance 2, once each, and follows it to instance 2', async () => {
    const hook = await receiver();
    try {
      const url = await freshDatabase();
      const dir = tempDir('payreq-listen-cluster-');
      const env = { SANDBOX_STORE: url, SANDBOX_WEBHOOK_PRIVATE: 'deny' };
      const [one, two] = await Promise.all([servers.start(path.join(dir, '1.json'), env), servers.start(path.join(dir, '2.json'), env)]);
      const m = (await call(one!.url, 'POST', '/sandbox/v1/merchants', undefined, { name: 'Cluster Laptop' })).body as { api_key: string; payee_id: string };
      const first = listen(['--base-url', one!.url, '--key', m.api_key, '--forward-to', hook.url]);
      const secret = await first.secret();
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) {
        const created = await call(two!.url, 'POST', '/openapi/v1/payments/payment', m.api_key, { payee: m.payee_id, product_type: 'QR_DYNAMIC', merchant_ref_no: `cluster-${i}`, amount: 7 });
        expect(created.status).toBe(200);
        ids.push(created.body.payment_id as string);
        expect((await call(two!.url, 'POST', `/sandbox/v1/payments/${created.body.payment_id}/pay`, m.api_key)).status).toBe(200);
      }
      await until(() => (hook.received.length >= 8 ? true : undefined), 'eight deliveries', 20_000);
      for (const r of hook.received) expect(signedWith(r, secret)).toBe(true);
      const log = await until(async () => {
        const all = (await call(two!.url, 'GET', '/sandbox/v1/webhook/deliveries', m.api_key)).body.deliveries as { state: string; attempts: unknown[] }[];
        return all.length === 8 && all.every((d) => d.state === 'delivered') ? all : undefined;
      }, 'all eight delivered', 15_000);
      // Exactly one attempt each: instance 2 never sent one to nowhere while the listener was on instance 1.
      expect(log.map((d) => d.attempts.length)).toEqual(Array(8).fill(1));
      // Give a stray second attempt time to show, then count per event.
      await new Promise((r) => setTimeout(r, 1_000));
      expect(new Set(hook.received.map((r) => r.body.event_id)).size).toBe(hook.received.length);

      // The listener moves to instance 2; a change through instance 1 follows it.
      first.child.kill('SIGINT');
      expect(await first.exited).toBe(0);
      const second = listen(['--base-url', two!.url, '--key', m.api_key, '--forward-to', hook.url]);
      expect(await second.secret()).toBe(secret);
      const created = await call(one!.url, 'POST', '/openapi/v1/payments/payment', m.api_key, { payee: m.payee_id, product_type: 'QR_DYNAMIC', merchant_ref_no: 'cluster-moved', amount: 7 });
      expect(created.status).toBe(200);
      const moved = await until(() => hook.received.find((r) => r.body.payment_id === created.body.payment_id), 'the delivery after the move', 20_000);
      expect(signedWith(moved, secret)).toBe(true);
      // The line is printed once the receiver has answered.
      await until(() => (second.output().includes(created.body.payment_id as string) ? true : undefined), 'its line from the moved listener');
    } finally {
      await hook.close();
    }
  }, 90_000);

  it('an answer that reaches the other instance (as behind a balancer) is passed on: the attempt is answered, once', async () => {
    const url = await freshDatabase();
    const dir = tempDir('payreq-listen-relay-');
    const [one, two] = await Promise.all([servers.start(path.join(dir, '1.json'), { SANDBOX_STORE: url }), servers.start(path.join(dir, '2.json'), { SANDBOX_STORE: url })]);
    const m = (await call(one!.url, 'POST', '/sandbox/v1/merchants', undefined, { name: 'Balanced Laptop' })).body as { api_key: string; payee_id: string };
    const cut = new AbortController();
    try {
      const res = await fetch(`${one!.url}/sandbox/v1/webhook/stream`, { headers: { 'Service-Api-Key': m.api_key }, signal: cut.signal });
      const reader = res.body!.getReader();
      let buffer = '';
      const nextEvent = async (name: string): Promise<any> => {
        for (;;) {
          const end = buffer.indexOf('\n\n');
          if (end >= 0) {
            const { event, data } = parseEvent(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
            if (event === name) return JSON.parse(data);
            continue;
          }
          const chunk = await reader.read();
          if (chunk.done) throw new Error('the stream ended');
          buffer += new TextDecoder().decode(chunk.value);
        }
      };
      await nextEvent('hello');
      const created = await call(two!.url, 'POST', '/openapi/v1/payments/payment', m.api_key, { payee: m.payee_id, product_type: 'QR_DYNAMIC', merchant_ref_no: 'relay-1', amount: 4 });
      expect(created.status).toBe(200);
      const delivery = await nextEvent('delivery');
      const answered = await call(two!.url, 'POST', '/sandbox/v1/webhook/stream/answers', m.api_key, { delivery_id: delivery.delivery_id, attempt: delivery.attempt, status: 202, latency_ms: 5, error: null });
      expect(answered.status).toBe(200);
      expect(answered.body.description).toContain('passed on to the instance that sent it');
      const log = await until(async () => {
        const all = (await call(one!.url, 'GET', '/sandbox/v1/webhook/deliveries', m.api_key)).body.deliveries as { state: string; attempts: { status: number }[] }[];
        return all[0]?.state === 'delivered' ? all : undefined;
      }, 'the passed-on answer recorded', 10_000);
      expect(log[0]!.attempts.map((a) => a.status)).toEqual([202]);
      // Taken once: the same answer again finds nothing waiting.
      const again = await call(two!.url, 'POST', '/sandbox/v1/webhook/stream/answers', m.api_key, { delivery_id: delivery.delivery_id, attempt: delivery.attempt, status: 202, latency_ms: 5, error: null });
      expect(again.status).toBe(404);
    } finally {
      cut.abort();
    }
  }, 60_000);

  it('the stream cap holds per instance: a third stream of a merchant on one instance answers 429, while the other instance still takes one', async () => {
    const url = await freshDatabase();
    const dir = tempDir('payreq-listen-cap-');
    const [one, two] = await Promise.all([servers.start(path.join(dir, '1.json'), { SANDBOX_STORE: url }), servers.start(path.join(dir, '2.json'), { SANDBOX_STORE: url })]);
    const m = (await call(one!.url, 'POST', '/sandbox/v1/merchants', undefined, { name: 'Capped Laptop' })).body as { api_key: string };
    const cut = new AbortController();
    try {
      const open = (base: string) => fetch(`${base}/sandbox/v1/webhook/stream`, { headers: { 'Service-Api-Key': m.api_key }, signal: cut.signal });
      expect((await open(one!.url)).status).toBe(200);
      expect((await open(one!.url)).status).toBe(200);
      const third = await open(one!.url);
      expect(third.status).toBe(429);
      const body = (await third.json()) as { code: number; description: string };
      expect(body.code).toBe(429);
      expect(body.description).toMatch(/the most it may hold \(2\)/);
      expect((await open(two!.url)).status).toBe(200);
    } finally {
      cut.abort();
    }
  }, 60_000);
});
