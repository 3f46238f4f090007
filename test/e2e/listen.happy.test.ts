/**
 * payreq-sandbox listen (SPEC 22, issue 20): a sandbox that refuses private targets still
 * delivers a merchant's webhooks to a receiver on 127.0.0.1 through the listener, signed as sent,
 * with the receiver's answers driving the delivery log and its retries.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../support/files.js';
import { call, listenersPerTest } from '../support/listener.js';
import { CLI, serversPerTest } from '../support/processes.js';
import { receiver, signedWith } from '../support/webhook-receiver.js';
import { until } from '../support/until.js';

afterAll(removeTempDirs);
const servers = serversPerTest();
const listen = listenersPerTest();

async function hostedSandbox() {
  const server = await servers.start(path.join(tempDir('payreq-listen-'), 'data.json'), { SANDBOX_WEBHOOK_PRIVATE: 'deny' });
  const enrolled = await call(server.url, 'POST', '/sandbox/v1/merchants', undefined, { name: 'Laptop Shop' });
  return { url: server.url, key: enrolled.body.api_key as string, payee: enrolled.body.payee_id as string };
}

async function createPayment(base: string, m: { key: string; payee: string }, ref: string): Promise<string> {
  const created = await call(base, 'POST', '/openapi/v1/payments/payment', m.key, { payee: m.payee, product_type: 'QR_DYNAMIC', merchant_ref_no: ref, amount: 12.5 });
  expect(created.status).toBe(200);
  return created.body.payment_id as string;
}

async function deliveriesOf(base: string, key: string): Promise<any[]> {
  return (await call(base, 'GET', '/sandbox/v1/webhook/deliveries', key)).body.deliveries as any[];
}

describe('payreq-sandbox listen', () => {
  it('forwards a created and paid payment to a receiver on 127.0.0.1, signed with the secret it prints, one line per event', async () => {
    const hook = await receiver();
    try {
      const sandbox = await hostedSandbox();
      // The hosted sandbox would refuse to connect to the receiver as a URL; while the listener is connected, deliveries go to it instead.
      // A name (an address written out is refused when set): taken, and refused at delivery, but the listener gets them first.
      const direct = await call(sandbox.url, 'PUT', '/sandbox/v1/webhook', sandbox.key, { url: hook.url.replace('127.0.0.1', 'localhost') });
      expect(direct.status).toBe(200);
      const listener = listen(['--base-url', sandbox.url, '--key', sandbox.key, '--forward-to', hook.url]);
      const secret = await listener.secret();
      expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{32}$/);
      // The listener's own secret: the stream never shows the URL's, which a public receiver trusts.
      expect(secret).not.toBe(direct.body.secret);
      const id = await createPayment(sandbox.url, sandbox, 'laptop-1');
      expect((await call(sandbox.url, 'POST', `/sandbox/v1/payments/${id}/pay`, sandbox.key)).status).toBe(200);
      const got = await until(() => (hook.received.length >= 2 ? hook.received : undefined), 'two deliveries at the receiver', 15_000);
      expect(got.map((r) => r.body.type).sort()).toEqual(['payment.created', 'payment.paid']);
      for (const r of got) {
        expect(signedWith(r, secret)).toBe(true);
        expect(signedWith(r, direct.body.secret as string)).toBe(false);
        expect(r.headers['sandbox-event-id']).toBe(r.body.event_id);
        expect(r.headers['content-type']).toBe('application/json');
        expect(r.body.payment_id).toBe(id);
      }
      const log = await until(async () => {
        const all = await deliveriesOf(sandbox.url, sandbox.key);
        return all.length === 2 && all.every((d) => d.state === 'delivered') ? all : undefined;
      }, 'both deliveries delivered in the log');
      expect(log.map((d) => d.attempts.map((a: { status: number }) => a.status))).toEqual([[200], [200]]);
      await until(() => (/payment\.paid\s+\S+\s+-> 200\s+\d+ ms/.test(listener.output()) ? true : undefined), 'the payment.paid line');
      expect(listener.output()).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\S+Z\\s+payment\\.created\\s+${id}\\s+-> 200\\s+\\d+ ms$`, 'm'));
      // Not a terminal: no colour codes.
      expect(listener.output()).not.toContain('\u001b[');
      const readiness = await call(sandbox.url, 'GET', '/sandbox/v1/readiness', sandbox.key);
      expect(readiness.body.checks.find((c: { id: string }) => c.id === 'webhook').status).toBe('pass');
    } finally {
      await hook.close();
    }
  });

  it("the receiver's 500 makes the sandbox retry, and the retry reaches the receiver again", async () => {
    const hook = await receiver();
    try {
      const sandbox = await hostedSandbox();
      const listener = listen(['--base-url', sandbox.url, '--key', sandbox.key, '--forward-to', hook.url, '--events', 'payment.created']);
      await listener.secret();
      hook.replies.push(500);
      const id = await createPayment(sandbox.url, sandbox, 'laptop-retry');
      const delivery = await until(async () => (await deliveriesOf(sandbox.url, sandbox.key)).find((d) => d.state === 'delivered'), 'the retry delivered', 15_000);
      expect(delivery.payment_id).toBe(id);
      expect(delivery.attempts.map((a: { status: number }) => a.status)).toEqual([500, 200]);
      expect(hook.received.map((r) => r.body.event_id)).toEqual([delivery.event_id, delivery.event_id]);
      expect(listener.output()).toMatch(/payment\.created\s+\S+\s+-> 500/);
      expect(listener.output()).toMatch(/payment\.created\s+\S+\s+-> 200\s+\d+ ms \(attempt 2\)/);
    } finally {
      await hook.close();
    }
  });

  it('a listener stopped and started again gets what fell due meanwhile', async () => {
    const hook = await receiver();
    try {
      const sandbox = await hostedSandbox();
      const first = listen(['--base-url', sandbox.url, '--key', sandbox.key, '--forward-to', hook.url]);
      const secret = await first.secret();
      first.child.kill('SIGINT');
      expect(await first.exited).toBe(0);
      const id = await createPayment(sandbox.url, sandbox, 'laptop-offline');
      // No URL and no listener: the delivery waits.
      await new Promise((r) => setTimeout(r, 700));
      expect(hook.received).toHaveLength(0);
      expect((await deliveriesOf(sandbox.url, sandbox.key)).map((d) => [d.state, d.attempts.length])).toEqual([['pending', 0]]);
      const second = listen(['--base-url', sandbox.url, '--key', sandbox.key, '--forward-to', hook.url]);
      expect(await second.secret()).toBe(secret);
      const [got] = await until(() => (hook.received.length >= 1 ? hook.received : undefined), 'the delivery after reconnecting', 15_000);
      expect(got!.body).toMatchObject({ type: 'payment.created', payment_id: id });
      expect(signedWith(got!, secret)).toBe(true);
    } finally {
      await hook.close();
    }
  });

  it('paints on a terminal, and not with NO_COLOR or --no-color', async () => {
    const sandbox = await hostedSandbox();
    const args = ['--base-url', sandbox.url, '--key', sandbox.key, '--forward-to', 'http://127.0.0.1:9/hooks'];
    // `script` gives the listener a terminal; its output comes back through script's.
    const onTerminal = async (extra: string[], env: Record<string, string> = {}) => {
      const command = [process.execPath, CLI, 'listen', ...args, ...extra].map((a) => `'${a}'`).join(' ');
      const child = spawn('script', ['-qefc', command, '/dev/null'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d.toString()));
      try {
        await until(() => (output.includes('Webhook secret:') ? true : undefined), `the secret line on a terminal (output: ${output})`, 15_000);
      } finally {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('exit', resolve));
      }
      return output;
    };
    expect(await onTerminal([])).toContain('\u001b[32mReady.\u001b[0m');
    expect(await onTerminal([], { NO_COLOR: '1' })).not.toContain('\u001b[');
    expect(await onTerminal(['--no-color'])).not.toContain('\u001b[');
  }, 60_000);
});
