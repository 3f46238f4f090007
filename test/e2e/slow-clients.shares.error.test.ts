/**
 * SPEC 26: clients from several addresses holding connections with bodies that trickle in
 * (Content-Length 10, 1 byte sent) cannot keep another client from being served: a client under
 * its share of the connection cap gets in (an upload of a client over its share makes room), and
 * a body below the minimum rate is answered 408 in the envelope. Over real sockets from
 * 127.0.0.2-17 and a victim on 127.0.0.100.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningServer, Sandbox } from '../../src/index.js';
import { listen } from '../../src/server.js';
import { DEMO_KEY, createBody, memorySandbox } from '../helpers.js';
import { exchangeFrom, holdConnections, loopbackAddresses } from '../support/clients-from.js';
import type { Attack } from '../support/clients-from.js';
import { until } from '../support/until.js';

const opened: { sandbox: Sandbox; server: RunningServer }[] = [];
const attacks: Attack[] = [];
afterEach(async () => {
  for (const a of attacks.splice(0)) a.stop();
  for (const { sandbox, server } of opened.splice(0)) {
    await server.close(100);
    await sandbox.close();
  }
});

async function live(limits: Parameters<typeof listen>[3]) {
  const sandbox = await memorySandbox();
  const server = await listen(sandbox.app, 0, '127.0.0.1', limits);
  opened.push({ sandbox, server });
  return server;
}

const VICTIM = '127.0.0.100';
const createHead = (length: number) =>
  `POST /openapi/v1/payments/payment HTTP/1.1\r\nHost: x\r\nService-Api-Key: ${DEMO_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\nConnection: close\r\n\r\n`;

/** The victim's create over a fresh connection: its status and time. */
async function victimCreate(port: number): Promise<{ status: number; ms: number }> {
  const body = JSON.stringify(createBody());
  const { status, ms } = await exchangeFrom(port, VICTIM, createHead(Buffer.byteLength(body)) + body);
  return { status, ms };
}

/** Sends `body` after its headers in pieces of `piece` bytes every `everyMs`; resolves with the answer. */
async function trickle(port: number, body: string, piece: number, everyMs: number) {
  const { connect } = await import('node:net');
  return new Promise<{ status: number; body: string; ms: number }>((resolve) => {
    const started = Date.now();
    const socket = connect({ port, host: '127.0.0.1' });
    let text = '';
    let at = 0;
    let drip: NodeJS.Timeout | undefined;
    socket.on('connect', () => {
      socket.write(createHead(Buffer.byteLength(body)));
      drip = setInterval(() => {
        if (at >= body.length || socket.destroyed) return clearInterval(drip);
        socket.write(body.slice(at, (at += piece)));
      }, everyMs);
    });
    socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(drip);
      const end = text.indexOf('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), body: text.slice(end + 4), ms: Date.now() - started });
    });
  });
}

describe('slow bodies from many addresses', () => {
  it('16 addresses filling the cap with 1-byte-of-10 bodies, reconnecting as they are cut: a victim creates 5 of 5 within max(1 s, 5x its quiet p99); the trickles get 408', async () => {
    // 16 clients x 4 per client fill the cap of 64, as 16 x 256 fill the default 4096.
    const server = await live({ maxConnections: 64, maxConnectionsPerClient: 4 });
    const quiet: number[] = [];
    for (let i = 0; i < 10; i++) quiet.push((await victimCreate(server.port)).ms);
    const attack = holdConnections(server.port, loopbackAddresses(2, 16), 4, `${createHead(10)}{`);
    attacks.push(attack);
    // The cap is full of uploads.
    while (attack.open() < 64) await new Promise((r) => setTimeout(r, 20));
    const during: { status: number; ms: number }[] = [];
    const started = Date.now();
    while (during.length < 5 || Date.now() - started < 3500) {
      during.push(await victimCreate(server.port));
      await new Promise((r) => setTimeout(r, 200));
    }
    attack.stop();
    expect(during.map((d) => d.status)).toEqual(during.map(() => 200));
    const bound = Math.max(1000, 5 * Math.max(...quiet));
    expect(Math.max(...during.map((d) => d.ms)), JSON.stringify({ quiet, during })).toBeLessThan(bound);
    // After the 2 s grace, the trickles are answered 408 naming the minimum rate (and the attackers reconnected).
    const slow = attack.answers.filter((a) => a.status === 408);
    expect(slow.length).toBeGreaterThanOrEqual(16);
    expect(JSON.parse(slow[0]!.body)).toEqual({ code: 408, description: expect.stringContaining('a body must keep up with 1024 bytes a second') });
  }, 30_000);

  it('keyless idle connections, 300 from each of 16 addresses (4,800: over the default caps of 256 a client and 4,096): a victim creates 6 of 6 within max(1 s, 5x its quiet p99)', async () => {
    const server = await live({});
    const quiet: number[] = [];
    for (let i = 0; i < 10; i++) quiet.push((await victimCreate(server.port)).ms);
    const attack = holdConnections(server.port, loopbackAddresses(2, 16), 300, '', { reconnectMs: -1 });
    attacks.push(attack);
    while (attack.opened() < 4800) await new Promise((r) => setTimeout(r, 20));
    // Each address holds at most its 256: the surplus was closed as it came.
    await until(() => (attack.open() <= 16 * 256 ? true : undefined), `the surplus to be closed (${attack.open()} open)`, 5000, 50);
    const during: { status: number; ms: number }[] = [];
    for (let i = 0; i < 6; i++) during.push(await victimCreate(server.port));
    attack.stop();
    expect(during.map((d) => d.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(Math.max(...during.map((d) => d.ms)), JSON.stringify({ quiet, during })).toBeLessThan(Math.max(1000, 5 * Math.max(...quiet)));
  }, 30_000);

  it('a body at 1.6 KB/s is served; one at 300 bytes a second is answered 408 in the envelope once it falls behind (~3 s)', async () => {
    const server = await live({});
    const body = JSON.stringify(createBody({ metadata: { note: 'x'.repeat(6000) } }));
    const [fast, slow] = await Promise.all([trickle(server.port, body, 80, 50), trickle(server.port, body, 30, 100)]);
    expect(fast.status, fast.body).toBe(200);
    expect(fast.ms).toBeGreaterThan(3000);
    expect(slow.status).toBe(408);
    expect(JSON.parse(slow.body)).toMatchObject({ code: 408, description: expect.stringMatching(/^The request body arrived too slowly: after 2 s, a body must keep up with 1024 bytes a second/) });
    expect(slow.ms).toBeGreaterThan(2500);
    expect(slow.ms).toBeLessThan(4500);
  }, 20_000);

  it('SANDBOX_BODY_MIN_BYTES_PER_SECOND=0 turns the rate off: the slow body is served', async () => {
    const server = await live({ bodyMinBytesPerSecond: 0 });
    const body = JSON.stringify(createBody({ metadata: { note: 'x'.repeat(700) } }));
    const slow = await trickle(server.port, body, 30, 100);
    expect(slow.status, slow.body).toBe(200);
  }, 20_000);
});
