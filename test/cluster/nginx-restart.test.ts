/**
 * SPEC 19, issue 17: behind Debian's nginx running examples/nginx/payreq-sandbox.conf (only its
 * ports changed), a restart of one of two `serve` processes on one PostgreSQL database under
 * keep-alive load fails at most 0.5 % of requests (nginx cannot read /readyz) and loses no acknowledged create, and one merchant's dropped connections (amount 900.04) never
 * take the instances out for another merchant; without max_fails=0 they do (the control). One address holding slow bodies
 * gets 429 past the per-client limit while another client is served.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/databases.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { killQuietly } from '../support/processes.js';
import type { ServerProcess } from '../support/processes.js';
import { DEMO_KEY, createBody } from '../helpers.js';
import { exchangeFrom, holdConnections } from '../support/clients-from.js';
import { httpRequest } from '../support/raw-http.js';
import { until } from '../support/until.js';
import { debianBinary, drops, enroll, expectAllReadable, expectInReadme, failed, freePorts, instanceEnv, keepAliveLoad, runBalancer, startInstance, templated } from './rolling-restart.js';

const instances: { port: number; dataFile: string; server?: ServerProcess }[] = [];
const balancers: ReturnType<typeof runBalancer>[] = [];
let env: Record<string, string>;
let dir: string;
let base: string;

/** Runs nginx with Debian's main config reduced to what a test needs, including `site` as conf.d would. */
async function startNginx(site: string, port: number): Promise<string> {
  const prefix = path.join(dir, `nginx-${port}`);
  mkdirSync(prefix);
  const main = path.join(prefix, 'nginx.conf');
  writeFileSync(
    main,
    `daemon off;\nworker_processes 1;\npid ${prefix}/nginx.pid;\nerror_log stderr error;\nevents { worker_connections 1024; }\n` +
      `http {\n  access_log off;\n  client_body_temp_path ${prefix}/body;\n  proxy_temp_path ${prefix}/proxy;\n  fastcgi_temp_path ${prefix}/fastcgi;\n  uwsgi_temp_path ${prefix}/uwsgi;\n  scgi_temp_path ${prefix}/scgi;\n  include ${site};\n}\n`,
  );
  const nginx = runBalancer(debianBinary('nginx'), ['-e', 'stderr', '-p', prefix, '-c', main]);
  balancers.push(nginx);
  const url = `http://127.0.0.1:${port}`;
  await until(() => fetch(`${url}/livez`).then((r) => (r.status === 200 ? true : undefined), () => undefined), `nginx on ${port}\n${nginx.output()}`, 10_000, 50);
  return url;
}

beforeAll(async () => {
  debianBinary('nginx');
  env = instanceEnv(await freshDatabase());
  dir = tempDir('payreq-nginx-');
  const [front, a, b] = await freePorts(3);
  instances.push({ port: a!, dataFile: path.join(dir, 'a.json') }, { port: b!, dataFile: path.join(dir, 'b.json') });
  await Promise.all(instances.map(async (i) => (i.server = await startInstance(i.dataFile, i.port, env))));
  base = await startNginx(templated('nginx/payreq-sandbox.conf', { 8080: front!, 8081: a!, 8082: b! }, dir), front!);
}, 60_000);

afterAll(async () => {
  await Promise.all(balancers.map((n) => n.stop()));
  for (const i of instances) killQuietly(i.server);
  removeTempDirs();
});

describe('nginx (examples/nginx/payreq-sandbox.conf) in front of two instances on PostgreSQL', () => {
  it('is the configuration docs/hosting.md shows', () => expectInReadme('nginx/payreq-sandbox.conf'));

  it('restarting one instance under keep-alive creates and status reads fails at most 0.5 % of requests, and loses no acknowledged create', { timeout: 40_000 }, async () => {
    const load = keepAliveLoad(base, { prefix: 'nginx' });
    await until(() => (load.outcomes.length >= 200 ? true : undefined), 'the load to get going', 10_000);
    const [a] = instances;
    a!.server!.child.kill('SIGTERM');
    expect((await a!.server!.exited).code, a!.server!.output()).toBe(0);
    a!.server = await startInstance(a!.dataFile, a!.port, env);
    await new Promise((r) => setTimeout(r, 1500));
    const outcomes = await load.stop();
    expect(outcomes.filter((o) => o.kind === 'create').length).toBeGreaterThan(200);
    // nginx cannot read /readyz: a request queued in the kernel as the listener closes is reset
    // (the README says so, and how to avoid it: `down` and a reload first). A few of thousands at
    // most; HAProxy's test, which reads /readyz, allows none.
    expect(failed(outcomes).length, `${JSON.stringify(failed(outcomes))}\n${balancers[0]!.output()}`).toBeLessThanOrEqual(Math.ceil(outcomes.length / 200));
    await expectAllReadable(base, outcomes);
  });

  it("one merchant's burst of dropped connections leaves every request of another merchant answered", async () => {
    const dropper = await enroll(base, 'Dropping Shop');
    const load = keepAliveLoad(base, { prefix: 'nginx-drops', clients: 4 });
    await until(() => (load.outcomes.length >= 50 ? true : undefined), 'the load to get going', 10_000);
    const dropped = await drops(base, dropper, 6);
    // nginx's fail_timeout is 10 s: an instance taken out would still be out now.
    const after = load.outcomes.length;
    await until(() => (load.outcomes.length >= after + 100 ? true : undefined), 'the load to go on', 10_000);
    const outcomes = await load.stop();
    expect(dropped).toEqual([502, 502, 502, 502, 502, 502]);
    expect(failed(outcomes)).toEqual([]);
  }, 30_000);

  it('one address holding 80 slow bodies gets its requests past 64 answered 429 in the envelope at once, and another client is served meanwhile', async () => {
    const port = Number(new URL(base).port);
    const slow = `POST /openapi/v1/payments/payment HTTP/1.1\r\nHost: x\r\nService-Api-Key: ${DEMO_KEY}\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{`;
    const attack = holdConnections(port, ['127.0.0.2'], 80, slow, { reconnectMs: -1 });
    try {
      const refused = await until(() => (attack.answers.filter((a) => a.status === 429).length >= 16 ? attack.answers.filter((a) => a.status === 429) : undefined), 'the 16 past the limit to be answered 429', 10_000, 20);
      expect(refused).toHaveLength(16);
      expect(refused[0]!.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(refused[0]!.body)).toEqual({ code: 429, description: 'Too many requests at once from your address (64 at most): wait for some to finish, then retry.' });
      // A merchant of its own: the demo merchant's storage is filled by the loads above.
      const shop = await enroll(base, 'Victim Shop');
      const victim = [];
      for (let i = 0; i < 6; i++) {
        const body = JSON.stringify(createBody({ payee: shop.payee }));
        const create = `POST /openapi/v1/payments/payment HTTP/1.1\r\nHost: x\r\nService-Api-Key: ${shop.key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
        victim.push((await exchangeFrom(port, '127.0.0.3', create, { waitMs: 5000 })).status);
      }
      expect(victim).toEqual([200, 200, 200, 200, 200, 200]);
    } finally {
      attack.stop();
    }
  }, 30_000);

  it('the control: the same file without max_fails=0 lets those drops answer another merchant 502 (no live upstreams)', async () => {
    const [front] = await freePorts(1);
    const control = path.join(dir, 'control');
    mkdirSync(control);
    const withoutMaxFails = (text: string) => {
      expect(text).toContain(' max_fails=0;');
      return text.replaceAll(' max_fails=0;', ';');
    };
    const url = await startNginx(templated('nginx/payreq-sandbox.conf', { 8080: front!, 8081: instances[0]!.port, 8082: instances[1]!.port }, control, withoutMaxFails), front!);
    expect((await drops(url, await enroll(url, 'Dropping Shop 2'), 3)).every((s) => s === 502)).toBe(true);
    const reads = await Promise.all(Array.from({ length: 10 }, () => httpRequest(`${url}/livez`, 'GET', {}, undefined, false).then((r) => r.status)));
    expect(reads).toContain(502);
  }, 30_000);
});
