/** The graceful stop's parts (src/server/drain.ts); the whole stop over real sockets is in test/e2e/signal-drain.error.test.ts. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { capConnections } from '../../src/server/connection-caps.js';
import { drainOnStop, HandlersInFlight } from '../../src/server/drain.js';

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
