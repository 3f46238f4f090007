/** SPEC 15 through a real `serve` process: where it listens, what it logs (and never logs), who gets demo keys. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { signBody } from '../../src/domain/signature.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { CLI } from '../support/processes.js';

interface Running {
  readonly url: string;
  readonly banner: string;
  output(): string;
  stop(): Promise<number | null>;
}

const running: Running[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
});
afterAll(removeTempDirs);

/** `serve --port 0` with nothing else but `env`: the defaults a user gets. */
async function serve(env: Record<string, string> = {}): Promise<Running> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--data', path.join(tempDir(), 'sandbox.json')], {
    env: { ...process.env, NODE_ENV: 'test', SANDBOX_STORE: 'file', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 20_000;
  let match: RegExpExecArray | null = null;
  // The banner ends with its "try:" line.
  while (!(match = /listening on (http:\/\/\S+?:(\d+))/.exec(output)) || !output.includes('try: curl')) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`serve did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const r: Running = {
    url: `http://127.0.0.1:${match[2]}`,
    banner: output.split('\n')[0]!,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
  running.push(r);
  return r;
}

async function post(base: string, route: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${route}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

describe('serve', () => {
  it('binds 127.0.0.1 by default and says so', async () => {
    const server = await serve();
    expect(server.banner).toMatch(/^payreq-sandbox listening on http:\/\/127\.0\.0\.1:\d+ {2}\(store: file /);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('HOST=0.0.0.0 binds every interface, and the banner says that too', async () => {
    const server = await serve({ HOST: '0.0.0.0' });
    expect(server.banner).toMatch(/listening on http:\/\/0\.0\.0\.0:\d+ \(every interface\)/);
  });

  it('HOST=localhost: the banner prints the address localhost resolved to and was bound, not the name', async () => {
    const server = await serve({ HOST: 'localhost' });
    expect(server.banner).toMatch(/^payreq-sandbox listening on http:\/\/(127\.0\.0\.1|\[::1\]):\d+ {2}\(store: file /);
  });

  it('logs one JSON line per request with its pattern, status, latency, payee and id; never a key, salt or sign', async () => {
    const server = await serve();
    const enrolled = await post(server.url, '/sandbox/v1/merchants', { name: 'Log Shop', require_signature: true });
    expect(enrolled.status).toBe(200);
    const { api_key: key, signing_salt: salt, payee_id: payee } = enrolled.body as Record<string, string>;
    const body = { payee, product_type: 'QR_DYNAMIC', merchant_ref_no: 'log-1', amount: 12.5, payer: 'PAYER_PAYS' };
    const sign = signBody(body, salt!);
    const created = await post(server.url, '/openapi/v1/payments/payment', { ...body, sign_type: 'SHA512', sign }, { 'Service-Api-Key': key! });
    expect(created.status).toBe(200);
    const wrong = await post(server.url, '/openapi/v1/payments/payment', { ...body, merchant_ref_no: 'log-2', sign_type: 'SHA512', sign: 'ab'.repeat(64) }, { 'Service-Api-Key': key! });
    expect(wrong.status).toBe(401);
    await fetch(`${server.url}/openapi/v1/payments/payment/${created.body.payment_id}`, { headers: { 'Service-Api-Key': key! } });
    await new Promise((r) => setTimeout(r, 200));
    const lines = server.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
    const requests = lines.filter((l) => l.msg === 'request');
    expect(requests.map((l) => [l.method, l.route, l.status])).toEqual([
      ['POST', '/sandbox/v1/merchants', 200],
      ['POST', '/openapi/v1/payments/payment', 200],
      ['POST', '/openapi/v1/payments/payment', 401],
      ['GET', '/openapi/v1/payments/payment/:payment_id', 200],
    ]);
    expect(requests[1]).toMatchObject({ payee_id: payee, request_id: created.headers.get('request-id') });
    for (const line of requests) expect(line.latency_ms).toEqual(expect.any(Number));
    const all = server.output();
    for (const secret of [key!, salt!, sign, created.body.payment_token as string]) expect(all).not.toContain(secret);
  });

  it('with SANDBOX_ADMIN_TOKEN, enrolls no public demo merchant unless SANDBOX_DEMO_MERCHANTS=on', async () => {
    const hosted = await serve({ SANDBOX_ADMIN_TOKEN: 'admin-secret-1' });
    expect(hosted.output()).not.toContain('demo merchant');
    const demo = await fetch(`${hosted.url}/sandbox/v1/payments`, { headers: { 'Service-Api-Key': 'sk_sandbox_demo_merchant_key' } });
    expect(demo.status).toBe(401);
    const asked = await serve({ SANDBOX_ADMIN_TOKEN: 'admin-secret-1', SANDBOX_DEMO_MERCHANTS: 'on' });
    expect(asked.output()).toContain('demo merchant:');
  });

  it('writes the line of every request answered before a SIGTERM, the last ones too', async () => {
    const server = await serve();
    const answers: Response[] = [];
    // Ten at a time: within the connections one client address may hold.
    for (let i = 0; i < 30; i++) answers.push(...(await Promise.all(Array.from({ length: 10 }, () => fetch(`${server.url}/sandbox/v1/payments?limit=1`, { headers: { 'Service-Api-Key': 'sk_sandbox_demo_merchant_key' } })))));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    const ids = new Set(answers.map((a) => a.headers.get('request-id')));
    expect(await server.stop()).toBe(0);
    const logged = server.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
    const ours = logged.filter((l) => l.msg === 'request' && ids.has(l.request_id as string));
    expect(ours).toHaveLength(300);
  });

  it('SIGTERM stops it with exit code 0', async () => {
    const server = await serve();
    expect(await server.stop()).toBe(0);
  });
});
