/** The graceful stop's parts (src/server/drain.ts); the whole stop over real sockets is in test/e2e/signal-drain.error.test.ts. */
import { createServer } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { capConnections } from '../../src/server/connection-caps.js';
import { drainOnStop, HandlersInFlight } from '../../src/server/drain.js';
import { parseReply } from '../support/raw-http.js';
import type { RawReply } from '../support/raw-http.js';

function deferred() {
  let resolve!: (res: Response) => void;
  const promise = new Promise<Response>((r) => (resolve = r));
  return { promise, resolve };
}

describe('HandlersInFlight', () => {
  it('counts handlers whose answer is pending, and idle() resolves when the last one ends', async () => {
    const handlers = new HandlersInFlight();
    const pending = [deferred(), deferred()];
    const fetch = handlers.wrap((_request: Request, i: number) => pending[i]!.promise);
    const answers = [fetch(new Request('http://x/'), 0), fetch(new Request('http://x/'), 1)];
    expect(handlers.count).toBe(2);
    let idle = false;
    const waiting = handlers.idle(60_000).then(() => (idle = true));
    pending[0]!.resolve(new Response('a'));
    await answers[0];
    expect(idle).toBe(false);
    pending[1]!.resolve(new Response('b'));
    await Promise.all([answers[1], waiting]);
    expect(handlers.count).toBe(0);
    expect(idle).toBe(true);
  });

  it('an answer given at once is not counted; idle() gives up after its time when a handler never ends', async () => {
    const handlers = new HandlersInFlight();
    handlers.wrap(() => new Response('now'))(new Request('http://x/'), undefined);
    expect(handlers.count).toBe(0);
    handlers.wrap(() => new Promise<Response>(() => {}))(new Request('http://x/'), undefined);
    await handlers.idle(20);
    expect(handlers.count).toBe(1);
  });
});

describe('drainOnStop', () => {
  it('answers begun while stopping say Connection: close, and the stop waits for them', async () => {
    let release!: () => void;
    const server = createServer((_req, res) => {
      release = () => res.end('done');
    });
    const handlers = new HandlersInFlight();
    const stop = drainOnStop(server, capConnections(server, { maxConnections: 0, maxConnectionsPerClient: 0 }), handlers);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const answer = fetch(`http://127.0.0.1:${port}/`);
    await new Promise((r) => setTimeout(r, 100));
    let stopped = false;
    const stopping = stop(5000).then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(stopped).toBe(false);
    release();
    const res = await answer;
    expect(res.headers.get('connection')).toBe('close');
    expect(await res.text()).toBe('done');
    await stopping;
    expect(stopped).toBe(true);
  });
});

/** A keep-alive connection sending one request at a time, its answers read as bytes. */
async function keepAliveConnection(port: number) {
  const socket: Socket = await new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
  let received = '';
  let waiting: ((reply: RawReply) => void) | undefined;
  const closedAt = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())));
  socket.on('error', () => {});
  socket.on('data', (d: Buffer) => {
    received += d.toString('latin1');
    const reply = parseReply(received, false);
    if (reply.status > 0 && reply.body.length >= Number(reply.headers['content-length'])) {
      received = '';
      waiting?.(reply);
    }
  });
  return {
    closedAt,
    get destroyed() {
      return socket.destroyed;
    },
    send(path: string): Promise<RawReply> {
      return new Promise((resolve, reject) => {
        waiting = resolve;
        socket.once('close', () => reject(new Error(`connection closed without an answer to ${path}`)));
        socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
      });
    },
  };
}

describe('drainOnStop with a delay', () => {
  it('serves on (new connections too) for the delay, each answer its connection\'s last; idle connections close and new ones are refused only after it', async () => {
    const server = createServer((req, res) => res.end(req.url));
    const stop = drainOnStop(server, capConnections(server, { maxConnections: 0, maxConnectionsPerClient: 0 }), new HandlersInFlight());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    // Two keep-alive connections, each used once before the stop and idle then.
    const used = await keepAliveConnection(port);
    const idle = await keepAliveConnection(port);
    for (const c of [used, idle]) expect((await c.send('/before')).headers.connection).not.toBe('close');

    const delayMs = 600;
    const stoppedAt = Date.now();
    let stopped = false;
    const stopping = stop(5000, delayMs).then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 150));
    // A request on an idle connection during the delay is answered, and told the connection ends.
    const during = await used.send('/during');
    expect([during.status, during.body, during.headers.connection]).toEqual([200, '/during', 'close']);
    await used.closedAt;
    // A new connection is still taken in, and answered the same way.
    const fresh = await fetch(`http://127.0.0.1:${port}/fresh`);
    expect([fresh.status, await fresh.text(), fresh.headers.get('connection')]).toEqual([200, '/fresh', 'close']);
    // The connection that sent nothing during the delay stays open through it.
    expect(idle.destroyed).toBe(false);
    expect(stopped).toBe(false);

    const idleClosedAfter = (await idle.closedAt) - stoppedAt;
    expect(idleClosedAfter).toBeGreaterThanOrEqual(delayMs - 20);
    expect(idleClosedAfter).toBeLessThan(delayMs + 1000);
    await stopping;
    await expect(fetch(`http://127.0.0.1:${port}/after`)).rejects.toThrow();
  });

  it('without a delay the idle connections close at once', async () => {
    const server = createServer((req, res) => res.end(req.url));
    const stop = drainOnStop(server, capConnections(server, { maxConnections: 0, maxConnectionsPerClient: 0 }), new HandlersInFlight());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const idle = await keepAliveConnection(port);
    await idle.send('/before');
    const stoppedAt = Date.now();
    await stop(5000);
    expect((await idle.closedAt) - stoppedAt).toBeLessThan(300);
  });
});
