/**
 * SPEC 18: when the connection cap (SANDBOX_MAX_CONNECTIONS) is reached, an idle connection of
 * the client address holding the most connections is closed so a newcomer gets in; only when
 * every connection is busy is the newcomer refused. Over real sockets from several loopback
 * addresses (127.0.0.2, .3, .4 all reach a server on 127.0.0.1).
 */
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningServer, Sandbox } from '../../src/index.js';
import { listen } from '../../src/server.js';
import { DEMO_KEY, createBody, memorySandbox } from '../helpers.js';
import { exchangeFrom } from '../support/clients-from.js';
import { until } from '../support/until.js';

const opened: { sandbox: Sandbox; server: RunningServer }[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const { sandbox, server } of opened.splice(0)) {
    await server.close();
    await sandbox.close();
  }
});

async function live(maxConnections: number) {
  const sandbox = await memorySandbox();
  const server = await listen(sandbox.app, 0, '127.0.0.1', { maxConnections, maxConnectionsPerClient: 0 });
  opened.push({ sandbox, server });
  return server;
}

/** `count` connections from `from` that send nothing, opened one after another (oldest first). */
async function idleFrom(port: number, from: string, count: number): Promise<Socket[]> {
  const mine: Socket[] = [];
  for (let i = 0; i < count; i++) {
    mine.push(
      await new Promise<Socket>((resolve, reject) => {
        const socket = connect({ port, host: '127.0.0.1', localAddress: from }, () => resolve(socket));
        socket.once('error', reject);
      }),
    );
  }
  for (const socket of mine) socket.on('error', () => {});
  sockets.push(...mine);
  return mine;
}

/** A GET /healthz from `from` over a fresh connection: its status, or 0 when the connection was refused. */
function healthFrom(port: number, from: string): Promise<number> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress: from });
    sockets.push(socket);
    let text = '';
    socket.on('connect', () => socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)));
    socket.on('error', () => {});
  });
}

/** Sends `request` over a new connection from `from` and keeps it open; resolves with the answer's status once its head arrives. */
function sendAndKeepOpen(port: number, from: string, request: string): Promise<number> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress: from }, () => socket.write(request));
    sockets.push(socket);
    let text = '';
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (status) resolve(Number(status[1]));
    });
    socket.on('close', () => resolve(0));
    socket.on('error', () => {});
  });
}

const isClosed = (s: Socket) => s.destroyed || s.closed || s.readableEnded;
const closedCount = (list: Socket[]) => list.filter(isClosed).length;

describe('the connection cap makes room fairly', () => {
  it('at the cap, a newcomer gets in: the oldest idle connection of the address holding the most is closed, the others stay', async () => {
    const server = await live(10);
    const heavy = await idleFrom(server.port, '127.0.0.2', 7);
    const light = await idleFrom(server.port, '127.0.0.3', 3);
    expect(await healthFrom(server.port, '127.0.0.4')).toBe(200);
    await until(() => (closedCount(heavy) >= 1 ? true : undefined), 'a connection of the heavy client to close');
    expect(isClosed(heavy[0]!)).toBe(true);
    expect(closedCount(heavy)).toBe(1);
    expect(closedCount(light)).toBe(0);
    // Newcomers that stay take the heavy client's connections until it holds no more than the others...
    const newcomers = await idleFrom(server.port, '127.0.0.4', 4);
    await until(() => (closedCount(heavy) >= 4 ? true : undefined), 'four connections of the heavy client to close');
    expect(closedCount(light)).toBe(0);
    expect(closedCount(newcomers)).toBe(0);
    // ... and then their own address, now the one holding the most, makes room.
    await idleFrom(server.port, '127.0.0.5', 1);
    await until(() => (closedCount(newcomers) >= 1 ? true : undefined), 'the oldest newcomer to close');
    expect(isClosed(newcomers[0]!)).toBe(true);
    expect(closedCount(heavy)).toBe(4);
    expect(closedCount(light)).toBe(0);
  });

  it('a hostile client filling the cap with held requests does not lock a newcomer out: past the held cap its connections answer 429 and turn idle, and one makes room', async () => {
    const server = await live(40);
    const held = `GET /openapi/v1/payments/payment/pay_00000000000000000000000 HTTP/1.1\r\nHost: x\r\nService-Api-Key: ${DEMO_KEY}\r\nSandbox-Fault: latency=3000\r\n\r\n`;
    const attack = Array.from({ length: 40 }, () => sendAndKeepOpen(server.port, '127.0.0.2', held));
    // 32 are held; the other 8 are answered 429 at once and stay open, idle.
    const refused = await until(async () => {
      const settled = await Promise.all(attack.map((a) => Promise.race([a, new Promise<number>((r) => setTimeout(() => r(-1), 20))])));
      return settled.filter((status) => status === 429).length === 8 ? settled : undefined;
    }, 'the 8 requests past the held cap to be answered 429');
    expect(refused.filter((status) => status === -1)).toHaveLength(32);
    expect(await healthFrom(server.port, '127.0.0.3')).toBe(200);
    expect((await Promise.all(attack)).filter((status) => status === 404)).toHaveLength(32);
  });

  it('a connection with a request in progress of a client within its share is never closed for a newcomer: when all are busy, the newcomer is refused', async () => {
    const server = await live(3);
    const body = JSON.stringify(createBody());
    const head = `POST /openapi/v1/payments/payment HTTP/1.1\r\nHost: x\r\nService-Api-Key: ${DEMO_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    // Three uploads in progress (headers read, body unfinished) from three clients, one each: busy connections, none over its share.
    const uploads = ['127.0.0.5', '127.0.0.6', '127.0.0.7'].map((from) => exchangeFrom(server.port, from, head + body.slice(0, 10), { waitMs: 1500 }));
    await new Promise((r) => setTimeout(r, 300));
    expect(await healthFrom(server.port, '127.0.0.4')).toBe(0);
    for (const upload of uploads) expect((await upload).closed).toBe(false);
    // Once they are gone, newcomers get in again.
    await until(async () => ((await healthFrom(server.port, '127.0.0.4')) === 200 ? true : undefined), 'a newcomer to be served again', 3000, 50);
  });
});
