/**
 * A listening HTTP server for the app, composed of: timeouts and connection caps against slow or
 * idle clients (server/connection-caps.ts), JSON answers to malformed and odd HTTP
 * (server/malformed-http.ts, server/odd-requests.ts), and a graceful stop (server/drain.ts).
 */
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { Hono } from 'hono';
import type { AppEnv } from './http/context.js';
import { loggerOr } from './logger.js';
import type { Logger } from './logger.js';
import { capConnections } from './server/connection-caps.js';
import { drainOnStop, HandlersInFlight } from './server/drain.js';
import { checkedLimits, serverLimitsFromEnv } from './server/limits.js';
import type { ServerLimits } from './server/limits.js';
import { answerClientErrors } from './server/malformed-http.js';
import { answerOddRequests, answerOddRequestsFirst, answerRequestError, methodsServed } from './server/odd-requests.js';
import { enforceBodyRate } from './server/slow-bodies.js';

export { DEFAULT_SERVER_LIMITS, drainDelayFromEnv, serverLimitsFromEnv } from './server/limits.js';
export type { ServerLimits } from './server/limits.js';
export { protocolAnswer } from './server/malformed-http.js';

export interface RunningServer {
  readonly port: number;
  readonly url: string;
  /** The address the socket is bound to (127.0.0.1 for localhost, 0.0.0.0 or :: for every interface). */
  readonly address: string;
  readonly limits: ServerLimits;
  /**
   * Keeps serving for `delayMs` (0 unless given: a balancer takes the instance out meanwhile),
   * every answer then with Connection: close; then stops accepting; closes connections with no
   * request on them; answers in flight finish, held ones at most `graceMs`, then the connections
   * left are cut. Resolves once no request is being handled (or a second after the grace), so
   * the store can be closed. Calling it again gives the same stop.
   */
  close(graceMs?: number, delayMs?: number): Promise<void>;
}

/**
 * Listens for `app`. `limits` defaults to serverLimitsFromEnv(process.env); the fields given
 * override it. `logger` hears of errors thrown before the app (the sandbox's, services.logger).
 */
export function listen(app: Hono<AppEnv>, port: number, hostname?: string, limits: Partial<ServerLimits> = {}, logger: Logger = loggerOr(undefined)): Promise<RunningServer> {
  const settings = checkedLimits({ ...serverLimitsFromEnv(process.env), ...limits });
  const handlers = new HandlersInFlight();
  const fetch = handlers.wrap((request: Request, env: unknown) => app.fetch(request, env as Parameters<typeof app.fetch>[1]));
  const allow = methodsServed(app.routes);
  const server = createServer(
    {
      headersTimeout: settings.headersTimeoutMs,
      requestTimeout: settings.requestTimeoutMs,
      keepAliveTimeout: settings.keepAliveTimeoutMs,
      // Node looks for expired headers and requests this often (30 s by default, which would double the timeouts).
      connectionsCheckingInterval: 1000,
      // Node's check answers an empty 400; answerOddRequestsFirst answers it in the envelope.
      requireHostHeader: false,
    },
    answerOddRequestsFirst(getRequestListener(fetch, { ...(hostname ? { hostname } : {}), errorHandler: (err) => answerRequestError(err, logger) }), allow),
  );
  const connections = capConnections(server, settings);
  answerClientErrors(server, connections, settings);
  enforceBodyRate(server, connections, settings);
  answerOddRequests(server, allow);
  const stop = drainOnStop(server, connections, handlers);

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, hostname, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      const host = hostname && hostname !== '0.0.0.0' && hostname !== '::' ? hostname : 'localhost';
      let stopping: Promise<void> | undefined;
      resolve({
        port: address.port,
        url: `http://${host}:${address.port}`,
        address: address.address,
        limits: settings,
        close: (graceMs = 5000, delayMs = 0) => (stopping ??= stop(graceMs, delayMs)),
      });
    });
  });
}
