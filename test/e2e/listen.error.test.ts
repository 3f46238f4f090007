/** payreq-sandbox listen when it cannot run (exit 2, as the other commands) and when its stream drops (it reconnects by itself). */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../support/files.js';
import { call, listenersPerTest } from '../support/listener.js';
import { freePort } from '../support/ports.js';
import { serversPerTest } from '../support/processes.js';
import { receiver } from '../support/webhook-receiver.js';
import { until } from '../support/until.js';

afterAll(removeTempDirs);
const servers = serversPerTest();
const listen = listenersPerTest();

async function enroll(base: string): Promise<{ key: string; payee: string }> {
  const { body } = await call(base, 'POST', '/sandbox/v1/merchants', undefined, { name: 'Flaky Laptop' });
  return { key: body.api_key as string, payee: body.payee_id as string };
}

describe('payreq-sandbox listen, unhappy', () => {
  it('a wrong key exits 2 with a clear message', async () => {
    const server = await servers.start(path.join(tempDir('payreq-listen-err-'), 'data.json'));
    const listener = listen(['--base-url', server.url, '--key', 'sk_sandbox_wrong', '--forward-to', 'http://127.0.0.1:9/hooks']);
    expect(await listener.exited).toBe(2);
    expect(listener.output()).toMatch(/^listen: the sandbox at http:\/\/127\.0\.0\.1:\d+ refused the key \(401\): /m);
  });

  it('a sandbox that cannot be reached exits 2 saying so', async () => {
    const port = await freePort();
    const listener = listen(['--base-url', `http://127.0.0.1:${port}`, '--key', 'sk_sandbox_any', '--forward-to', 'http://127.0.0.1:9/hooks']);
    expect(await listener.exited).toBe(2);
    expect(listener.output()).toMatch(new RegExp(`^listen: could not reach the sandbox at http://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\)`, 'm'));
  });

  it('a --forward-to that is not an http URL is a usage error (exit 2)', async () => {
    const listener = listen(['--key', 'sk_sandbox_any', '--forward-to', 'localhost:3000']);
    expect(await listener.exited).toBe(2);
    expect(listener.output()).toContain('--forward-to must be an http or https URL such as http://localhost:3000/hooks.');
  });

  it('a stream cut by the sandbox going away is taken up again by itself, saying so, and deliveries go on arriving', async () => {
    const hook = await receiver();
    try {
      const port = await freePort();
      const dataFile = path.join(tempDir('payreq-listen-drop-'), 'data.json');
      const first = await servers.start(dataFile, {}, ['--port', String(port)]);
      const m = await enroll(first.url);
      const listener = listen(['--base-url', first.url, '--key', m.key, '--forward-to', hook.url]);
      await listener.secret();
      first.child.kill('SIGKILL');
      await first.exited;
      await until(() => (/stream lost \(.+\); reconnecting in \d+ s/.test(listener.output()) ? true : undefined), 'the reconnecting line', 10_000);
      const second = await servers.start(dataFile, {}, ['--port', String(port)]);
      await until(() => ((listener.output().match(/Webhook secret:/g) ?? []).length === 2 ? true : undefined), 'connected again', 20_000);
      const created = await fetch(`${second.url}/openapi/v1/payments/payment`, {
        method: 'POST',
        headers: { 'Service-Api-Key': m.key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ payee: m.payee, product_type: 'QR_DYNAMIC', merchant_ref_no: 'after-drop', amount: 3 }),
      });
      expect(created.status).toBe(200);
      await until(() => (hook.received.some((r) => r.body.merchant_ref_no === 'after-drop') ? true : undefined), 'the delivery after the drop', 15_000);
      expect(listener.child.exitCode).toBeNull();
    } finally {
      await hook.close();
    }
  }, 60_000);
});
