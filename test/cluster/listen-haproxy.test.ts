/**
 * SPEC 22 through a balancer: a `payreq-sandbox listen` stream behind Debian's HAProxy running
 * examples/haproxy/haproxy.cfg, its idle timeouts cut to 2 s, stays open across quiet spells
 * longer than that (heartbeats), and still delivers what falls due after them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/index.js';
import type { Sandbox } from '../../src/index.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { call, listenersPerTest } from '../support/listener.js';
import { until } from '../support/until.js';
import { receiver, signedWith } from '../support/webhook-receiver.js';
import { debianBinary, freePorts, runBalancer, templated } from './rolling-restart.js';

const listen = listenersPerTest();
let sandbox: Sandbox;
let haproxy: ReturnType<typeof runBalancer> | undefined;
let front = '';

/** The example's client and server timeouts, 150 s there, cut to 2 s: a stream with nothing on it for longer is closed by HAProxy. */
const shortIdle = (text: string) => text.replace('timeout client 150s', 'timeout client 2s').replace('timeout server 150s', 'timeout server 2s');

beforeAll(async () => {
  sandbox = await createSandbox({ store: 'memory', scheduler: false, config: { streamHeartbeatMs: 500 } });
  const { port } = await sandbox.listen(0, '127.0.0.1');
  const [frontPort, stats, spare] = await freePorts(3);
  const config = templated('haproxy/haproxy.cfg', { 8080: frontPort!, 8081: port, 8082: spare!, 8404: stats! }, tempDir('payreq-listen-haproxy-'), shortIdle);
  haproxy = runBalancer(debianBinary('haproxy'), ['-db', '-f', config]);
  front = `http://127.0.0.1:${frontPort}`;
  await until(async () => ((await fetch(`${front}/livez`).then((r) => r.status).catch(() => 0)) === 200 ? true : undefined), `HAProxy to answer\n${haproxy.output()}`, 15_000, 100);
}, 30_000);

afterAll(async () => {
  await haproxy?.stop();
  await sandbox?.close();
  removeTempDirs();
});

describe('payreq-sandbox listen behind HAProxy', () => {
  it('keeps its stream through quiet spells longer than the proxy idle timeout, and delivers after them', async () => {
    const hook = await receiver();
    try {
      const enrolled = await call(front, 'POST', '/sandbox/v1/merchants', undefined, { name: 'Behind The Balancer' });
      const key = enrolled.body.api_key as string;
      const payee = enrolled.body.payee_id as string;
      const listener = listen(['--base-url', front, '--key', key, '--forward-to', hook.url]);
      const secret = await listener.secret();
      // Three times HAProxy's idle timeout with nothing but heartbeats on the stream.
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      const created = await call(front, 'POST', '/openapi/v1/payments/payment', key, { payee, product_type: 'QR_DYNAMIC', merchant_ref_no: 'through-haproxy', amount: 3.5 });
      expect(created.status).toBe(200);
      const [got] = await until(() => (hook.received.length >= 1 ? hook.received : undefined), 'the delivery through HAProxy', 15_000);
      expect(got!.body).toMatchObject({ type: 'payment.created', payment_id: created.body.payment_id });
      expect(signedWith(got!, secret)).toBe(true);
      expect(listener.output()).not.toMatch(/reconnecting/);
    } finally {
      await hook.close();
    }
  }, 40_000);
});
