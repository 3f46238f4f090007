/**
 * A TCP proxy on 127.0.0.1 in front of a server (the run's PostgreSQL), so a test can make the
 * database go away and come back without touching the cluster others use: `cut` closes every
 * connection and refuses new ones; `hold` keeps connections open but passes nothing (a silent
 * database); `restore` serves again (held bytes go through in order); `dropNewAtFirstStatement`
 * lets a new connection log in, then drops it as the client sends its first statement.
 */
import { createServer, connect } from 'node:net';
import type { Server, Socket } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  cut(): Promise<void>;
  hold(): void;
  restore(): Promise<void>;
  dropNewAtFirstStatement(on: boolean): void;
  close(): Promise<void>;
}

export async function tcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const pairs = new Set<{ client: Socket; upstream: Socket }>();
  let held = false;
  let dropAtFirstStatement = false;
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, targetHost);
    const pair = { client, upstream };
    pairs.add(pair);
    if (!held) client.pipe(upstream);
    upstream.pipe(client);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    if (dropAtFirstStatement) dropAfterLogin(client, upstream, end);
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  const listen = (port: number) => new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', () => resolve()));
  await listen(0);
  const port = (server.address() as { port: number }).port;
  const cut = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
    });
  return {
    port,
    cut,
    hold() {
      held = true;
      for (const { client, upstream } of pairs) client.unpipe(upstream);
    },
    dropNewAtFirstStatement(on: boolean) {
      dropAtFirstStatement = on;
    },
    async restore() {
      if (held) {
        held = false;
        for (const { client, upstream } of pairs) client.pipe(upstream);
      }
      if (!server.listening) await listen(port);
    },
    async close() {
      held = false;
      if (server.listening) await cut();
    },
  };
}

/** Once the server said ReadyForQuery (message 'Z') the login is over: the client's next bytes are its first statement, and end the connection instead. */
function dropAfterLogin(client: Socket, upstream: Socket, end: () => void): void {
  let pending = Buffer.alloc(0);
  let loggedIn = false;
  upstream.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    while (!loggedIn && pending.length >= 5) {
      const length = pending.readUInt32BE(1);
      if (pending.length < 1 + length) break;
      loggedIn = pending[0] === 0x5a;
      pending = pending.subarray(1 + length);
    }
  });
  client.prependListener('data', () => {
    if (loggedIn) end();
  });
}
