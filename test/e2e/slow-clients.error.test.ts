/**
 * Slow or idle clients cannot starve the server: header and request timeouts, a cap on
 * connections per client address (its oldest idle connection makes room for a new one), and
 * normal requests answered within 1 s meanwhile.
 */
import path from 'node:path';
import type { Socket } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { RunningServer, Sandbox } from '../../src/index.js';
import { DEFAULT_SERVER_LIMITS, listen, serverLimitsFromEnv } from '../../src/server.js';
import { DEMO_KEY, createBody, memorySandbox } from '../helpers.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { killQuietly, startServer } from '../support/processes.js';
import type { ServerProcess } from '../support/processes.js';
import { httpRequest, idleSockets, rawExchange } from '../support/raw-http.js';

const opened: { sandbox: Sandbox; server: RunningServer }[] = [];
const processes: ServerProcess[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const p of processes.splice(0)) killQuietly(p);
  for (const { sandbox, server } of opened.splice(0)) {
    await server.close();
    await sandbox.close();
  }
});
afterAll(removeTempDirs);

async function live(limits: Parameters<typeof listen>[3] = {}) {
  const sandbox = await memorySandbox();
  const server = await listen(sandbox.app, 0, '127.0.0.1', limits);
  opened.push({ sandbox, server });
  return server;
}

/** A health check and a create, each over a fresh connection; their latencies in ms. */
async function normalRequests(url: string): Promise<number[]> {
  const timed = async (run: () => Promise<{ status: number }>) => {
    const started = Date.now();
    const { status } = await run();
    expect(status).toBe(200);
    return Date.now() - started;
  };
  return Promise.all([
    timed(() => httpRequest(`${url}/healthz`, 'GET', {}, undefined, false)),
    timed(() =>
      httpRequest(`${url}/openapi/v1/payments/payment`, 'POST', { 'Service-Api-Key': DEMO_KEY, 'Content-Type': 'application/json' }, JSON.stringify(createBody()), false),
    ),
  ]);
}

const closedCount = (list: Socket[]) => list.filter((s) => s.destroyed || s.closed).length;

async function until(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

describe('slow and idle clients', () => {
  it('300 idle sockets and a byte-by-byte sender: normal requests answer within 1 s, the idle surplus is closed at once, the rest at the headers timeout, the slow sender gets 408', async () => {
    const server = await live({ headersTimeoutMs: 2000, requestTimeoutMs: 4000, maxConnectionsPerClient: 100 });
    const started = Date.now();
    const idle = await idleSockets(server.port, 300);
    sockets.push(...idle);
    // One address holds at most 100: the 200 oldest idle connections made room for the newer ones.
    // At once, but a busy machine may take a moment to tell the 200 clients their connection closed.
    await until(() => closedCount(idle) >= 200, 2000);
    expect(closedCount(idle)).toBe(200);
    expect(idle.slice(200).every((s) => !s.destroyed && !s.closed)).toBe(true);

    // A request written one byte every 100 ms (it would take 9 s).
    const slowStarted = Date.now();
    const slow = rawExchange(server.port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: ${'p'.repeat(60)}\r\n\r\n`, { byteEveryMs: 100, waitMs: 8000 });

    const latencies: number[] = [];
    while (Date.now() - slowStarted < 2500) {
      latencies.push(...(await normalRequests(server.url)));
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(latencies.length).toBeGreaterThanOrEqual(10);
    expect(Math.max(...latencies)).toBeLessThan(1000);

    const reply = await slow;
    expect(reply.status, reply.text).toBe(408);
    expect(reply.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(reply.body)).toMatchObject({ code: 408 });
    expect(Date.now() - slowStarted).toBeLessThan(4000);
    // Idle connections that never sent a byte are closed at the headers timeout (no answer).
    await until(() => closedCount(idle) === 300, 4000 - (Date.now() - started));
    expect(closedCount(idle)).toBe(300);
    expect(Math.max(...(await normalRequests(server.url)))).toBeLessThan(1000);
  }, 20_000);

  it('a client whose connections are all busy cannot open another until one is free', async () => {
    const server = await live({ maxConnectionsPerClient: 3 });
    // Three uploads in progress (headers read, body unfinished): busy connections, never closed to make room.
    const body = JSON.stringify(createBody());
    const head = `POST /openapi/v1/payments/payment HTTP/1.1\r\nHost: x\r\nService-Api-Key: ${DEMO_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const uploads = Array.from({ length: 3 }, () => rawExchange(server.port, head + body.slice(0, 10), { waitMs: 1500 }));
    await new Promise((r) => setTimeout(r, 200));
    await expect(httpRequest(`${server.url}/healthz`, 'GET', {}, undefined, false)).rejects.toThrow(/ECONNRESET|socket hang up/);
    // The uploads were not cut to make room; once they are gone, the client can connect again.
    for (const upload of uploads) expect((await upload).closed).toBe(false);
    await new Promise((r) => setTimeout(r, 100));
    expect(Math.max(...(await normalRequests(server.url)))).toBeLessThan(1000);
  });

  it('listen() applies the documented defaults', async () => {
    const server = await live();
    expect(server.limits).toEqual(DEFAULT_SERVER_LIMITS);
    expect(DEFAULT_SERVER_LIMITS).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      bodyMinBytesPerSecond: 1024,
      keepAliveTimeoutMs: 5_000,
      maxConnections: 4096,
      maxConnectionsPerClient: 256,
      shutdownGraceMs: 10_000,
    });
  });

  it('the environment sets the limits, and a wrong value is refused by name', () => {
    expect(
      serverLimitsFromEnv({
        SANDBOX_HEADERS_TIMEOUT_MS: '5000',
        SANDBOX_REQUEST_TIMEOUT_MS: '0',
        SANDBOX_BODY_MIN_BYTES_PER_SECOND: '0',
        SANDBOX_KEEPALIVE_TIMEOUT_MS: '65000',
        SANDBOX_MAX_CONNECTIONS: '100',
        SANDBOX_MAX_CONNECTIONS_PER_CLIENT: '10',
        SANDBOX_SHUTDOWN_GRACE_MS: '25000',
      }),
    ).toEqual({ headersTimeoutMs: 5000, requestTimeoutMs: 0, bodyMinBytesPerSecond: 0, keepAliveTimeoutMs: 65000, maxConnections: 100, maxConnectionsPerClient: 10, shutdownGraceMs: 25000 });
    // Behind a proxy every connection has the proxy's address: no per-client cap unless asked.
    expect(serverLimitsFromEnv({ SANDBOX_TRUST_PROXY: '1' }).maxConnectionsPerClient).toBe(0);
    expect(serverLimitsFromEnv({ SANDBOX_TRUST_PROXY: '1', SANDBOX_MAX_CONNECTIONS_PER_CLIENT: '50' }).maxConnectionsPerClient).toBe(50);
    expect(() => serverLimitsFromEnv({ SANDBOX_HEADERS_TIMEOUT_MS: '1.5' })).toThrow(/SANDBOX_HEADERS_TIMEOUT_MS must be a whole number/);
    expect(() => serverLimitsFromEnv({ SANDBOX_SHUTDOWN_GRACE_MS: '0' })).toThrow(/SANDBOX_SHUTDOWN_GRACE_MS must be a whole number of at least 1/);
    expect(() => serverLimitsFromEnv({ SANDBOX_HEADERS_TIMEOUT_MS: '40000' })).toThrow(/must not be over SANDBOX_REQUEST_TIMEOUT_MS/);
  });

  it('serve takes the limits from the environment', async () => {
    const dataFile = path.join(tempDir(), 'sandbox.json');
    const server = await startServer(dataFile, { SANDBOX_HEADERS_TIMEOUT_MS: '1000', SANDBOX_REQUEST_TIMEOUT_MS: '2000', SANDBOX_MAX_CONNECTIONS_PER_CLIENT: '20' });
    processes.push(server);
    const port = Number(new URL(server.url).port);
    const idle = await idleSockets(port, 40);
    sockets.push(...idle);
    await until(() => closedCount(idle) >= 20, 1000);
    expect(closedCount(idle)).toBe(20);
    const reply = await rawExchange(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ', { waitMs: 4000 });
    expect(reply.status).toBe(408);
    expect(JSON.parse(reply.body).description).toMatch(/headers within 1 s, the whole request within 2 s/);
    await expect(startServer(path.join(tempDir(), 'sandbox.json'), { SANDBOX_REQUEST_TIMEOUT_MS: 'soon' })).rejects.toThrow(/SANDBOX_REQUEST_TIMEOUT_MS must be a whole number/);
  });
});
