/** A listening HTTP server for the app, with graceful shutdown. */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import type { AppEnv } from './http/context.js';

export interface RunningServer {
  readonly port: number;
  readonly url: string;
  /** Stops accepting, lets in-flight requests finish (held ones at most `graceMs`), then resolves. */
  close(graceMs?: number): Promise<void>;
}

export function listen(app: Hono<AppEnv>, port: number, hostname?: string): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port, ...(hostname ? { hostname } : {}) }) as Server;
    server.once('error', reject);
    server.once('listening', () => {
      server.off('error', reject);
      // A dropped connection or a client that went away must never take the process down.
      server.on('clientError', (_err, socket) => socket.destroy());
      const address = server.address() as AddressInfo;
      const host = hostname && hostname !== '0.0.0.0' && hostname !== '::' ? hostname : 'localhost';
      resolve({
        port: address.port,
        url: `http://${host}:${address.port}`,
        close: (graceMs = 5000) =>
          new Promise<void>((done) => {
            const force = setTimeout(() => server.closeAllConnections(), graceMs);
            force.unref();
            // A keep-alive socket whose request finishes after close() starts turns idle later; close it then too.
            const sweep = setInterval(() => server.closeIdleConnections(), 50);
            sweep.unref();
            server.close(() => {
              clearTimeout(force);
              clearInterval(sweep);
              done();
            });
            server.closeIdleConnections();
          }),
      });
    });
  });
}
