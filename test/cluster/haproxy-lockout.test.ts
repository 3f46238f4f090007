/**
 * SPEC 26 through Debian's HAProxy running examples/haproxy/haproxy.cfg as shipped (only its
 * ports changed): a client without a key holding 4,200 idle connections from one address, and 16
 * more addresses holding slow bodies (Content-Length 10, 1 byte sent, reconnecting when cut),
 * cannot keep a victim from being served: its requests all succeed within max(1 s, 5x its quiet
 * p99). The control, the same attack on the config with its per-source limit and keep-alive
 * timeout taken out, shows the victim locked out.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEY, createBody } from '../helpers.js';
import { exchangeFrom, holdConnections, loopbackAddresses } from '../support/clients-from.js';
import type { Attack } from '../support/clients-from.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { killQuietly, startServer } from '../support/processes.js';
import type { ServerProcess } from '../support/processes.js';
import { until } from '../support/until.js';
import { debianBinary, freePorts, runBalancer, templated } from './rolling-restart.js';

const servers: ServerProcess[] = [];
const balancers: ReturnType<typeof runBalancer>[] = [];
const attacks: Attack[] = [];
let dir: string;
let ports: { a: number; b: number };

beforeAll(async () => {
  debianBinary('haproxy');
  dir = tempDir('payreq-haproxy-lockout-');
  const [a, b] = await freePorts(2);
  ports = { a: a!, b: b! };
  // As the config's head says, but on one file store each: the victim's create and the attack need no shared store.
  const env = { SANDBOX_TRUST_PROXY: '1', SANDBOX_KEEPALIVE_TIMEOUT_MS: '65000', SANDBOX_LOG: 'off' };
  servers.push(...(await Promise.all([a!, b!].map((port, i) => startServer(path.join(dir, `${i}.json`), env, ['--port', String(port)])))));
}, 60_000);

afterAll(async () => {
  for (const attack of attacks) attack.stop();
  for (const b of balancers) await b.stop();
  for (const s of servers) killQuietly(s);
  removeTempDirs();
});

/** HAProxy on the example config (`edit` applied for the control); its front port once both instances are UP. */
async function haproxy(edit?: (text: string) => string): Promise<number> {
  const [front, stats] = await freePorts(2);
  const sub = path.join(dir, `h${front}`);
  (await import('node:fs')).mkdirSync(sub);
  const config = templated('haproxy/haproxy.cfg', { 8080: front!, 8081: ports.a, 8082: ports.b, 8404: stats! }, sub, edit);
  const balancer = runBalancer(debianBinary('haproxy'), ['-db', '-f', config]);
  balancers.push(balancer);
  await until(async () => {
    const csv = await fetch(`http://127.0.0.1:${stats}/stats;csv`).then((r) => r.text(), () => '');
    return csv.split('\n').filter((l) => l.startsWith('instances,a,') || l.startsWith('instances,b,')).every((l) => l.includes(',UP,')) && csv.includes('instances,a,') ? true : undefined;
  }, `HAProxy to see both instances UP\n${balancer.output()}`, 15_000, 100);
  return front!;
}

const VICTIM = '127.0.0.200';

/** The victim's create over a fresh connection: its status (0 when none came within 5 s) and time. */
async function victimCreate(port: number): Promise<{ status: number; ms: number }> {
  const body = JSON.stringify(createBody());
  const request = `POST /openapi/v1/payments/payment HTTP/1.1\r\nHost: x\r\nService-Api-Key: ${DEMO_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
  const { status, ms } = await exchangeFrom(port, VICTIM, request, { waitMs: 5000 });
  return { status, ms };
}

/** 4,200 idle connections from 127.0.0.2, and 16 x 64 slow bodies from 127.0.0.3-18 that reconnect when cut. */
async function attack(port: number): Promise<void> {
  const slow = `POST /openapi/v1/payments/payment HTTP/1.1\r\nHost: x\r\nService-Api-Key: ${DEMO_KEY}\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{`;
  attacks.push(holdConnections(port, loopbackAddresses(3, 16), 64, slow, { reconnectMs: 200 }));
  const idle = holdConnections(port, ['127.0.0.2'], 4200, '', { reconnectMs: -1 });
  attacks.push(idle);
  await until(() => (idle.opened() >= 4200 ? true : undefined), 'the idle connections to be opened', 20_000, 50);
  // Let HAProxy take them all in (or refuse them) before the victim is measured.
  await new Promise((r) => setTimeout(r, 1000));
}

function stopAttacks(): void {
  for (const a of attacks.splice(0)) a.stop();
}

describe('HAProxy (examples/haproxy/haproxy.cfg as shipped) under a keyless connection attack', () => {
  it('a victim is served 6 of 6 within max(1 s, 5x its quiet p99) while one address holds 4,200 idle connections and 16 hold slow bodies', async () => {
    const port = await haproxy();
    const quiet: number[] = [];
    for (let i = 0; i < 10; i++) quiet.push((await victimCreate(port)).ms);
    expect(quiet.length).toBe(10);
    await attack(port);
    const during: { status: number; ms: number }[] = [];
    for (let i = 0; i < 6; i++) {
      during.push(await victimCreate(port));
      await new Promise((r) => setTimeout(r, 500));
    }
    stopAttacks();
    expect(during.map((d) => d.status), JSON.stringify(during)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(Math.max(...during.map((d) => d.ms)), JSON.stringify({ quiet, during })).toBeLessThan(Math.max(1000, 5 * Math.max(...quiet)));
  }, 90_000);

  it('the control: without the per-source limit and with 60 s keep-alive, the same attack locks the victim out', async () => {
    const port = await haproxy((text) =>
      text
        .replace(/^\s*tcp-request connection reject .*$/m, '')
        .replace(/timeout http-keep-alive 5s/, 'timeout http-keep-alive 60s')
        .replace(/timeout http-request 10s/, 'timeout http-request 60s'),
    );
    await attack(port);
    const during = [await victimCreate(port), await victimCreate(port)];
    stopAttacks();
    expect(during.map((d) => d.status)).toEqual([0, 0]);
  }, 90_000);
});
