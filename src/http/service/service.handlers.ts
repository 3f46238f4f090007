/** Handlers of the service routes (contracts in service.routes.ts): the health routes and /metrics. */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { Code } from '../../domain/codes.js';
import { bearerToken } from '../bearer.js';
import type { AppEnv, Services } from '../context.js';
import { ok, send } from '../envelope.js';
import { toJsonText } from '../json-text.js';

/** What fails while the store is not ready, by store: the file store answers reads from memory. */
const WHILE_NOT_READY = {
  memory: 'Requests that read or change data fail until the store is back.',
  file: 'Changes may be refused (503, nothing kept) until it is fixed; reads are still answered, from memory.',
  postgres: 'Requests that read or change data fail until the store is back.',
} as const;

/** GET /livez: 200 while the process answers at all; it touches no store, so a database outage does not restart instances. */
export function live() {
  return (c: Context<AppEnv>): Response => {
    return ok(c, 'alive: this process answers. Whether it should get work is GET /readyz.');
  };
}

/**
 * GET /readyz and GET /healthz (one handler each, from this factory): 200 while the store can be
 * read and written and the instance is not draining, else 503 saying which (never a stack).
 */
export function ready(services: Services) {
  return async (c: Context<AppEnv>): Promise<Response> => {
    const { store, drain } = services;
    const draining = drain.reason;
    if (draining !== undefined) {
      return notReady(c, 'draining', `Not ready: this instance is draining (${draining}); it still answers what it is sent, but a balancer should send new requests to another instance.`, store.kind);
    }
    try {
      await store.ready();
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      return notReady(c, 'store', `Not ready: ${why}. ${WHILE_NOT_READY[store.kind]}`, store.kind);
    }
    return ok(c, `ok: the ${store.kind} store can be read and written.`, { store: store.kind });
  };
}

function notReady(c: Context<AppEnv>, reason: 'draining' | 'store', description: string, store: string): Response {
  // A load balancer reads the status, so it is 503 whatever SANDBOX_HTTP_STATUS says.
  const body = { code: Code.UNAVAILABLE, description, store, reason };
  return c.body(toJsonText(body), 503, { 'content-type': 'application/json; charset=UTF-8' });
}

/** GET /metrics: the Prometheus text; with SANDBOX_METRICS_TOKEN, only for Authorization: Bearer <that token>. */
export function metrics(services: Services) {
  const expected = services.config.metricsToken === undefined ? undefined : digest(services.config.metricsToken);
  return async (c: Context<AppEnv>): Promise<Response> => {
    const { metrics } = services;
    if (!metrics) return send(c, { code: Code.NOT_FOUND, description: 'Metrics are turned off on this sandbox (SANDBOX_METRICS=off).' });
    if (expected) {
      const refused = refusedMetricsCall(c.req.header('authorization'), expected);
      // A scraper reads the status, so it is 401 whatever SANDBOX_HTTP_STATUS says; the token sent is never repeated.
      if (refused) return c.body(toJsonText({ code: Code.UNAUTHENTICATED, description: refused }), 401, { 'content-type': 'application/json; charset=UTF-8', 'www-authenticate': 'Bearer realm="metrics"' });
    }
    return c.body(await metrics.registry.metrics(), 200, { 'content-type': metrics.registry.contentType });
  };
}

const SEND_TOKEN = 'send Authorization: Bearer <token>, with the token set in SANDBOX_METRICS_TOKEN (ask the operator of this sandbox)';

/** Why a call to /metrics is refused, or undefined when it carries the token. */
function refusedMetricsCall(header: string | undefined, expected: Buffer): string | undefined {
  if (header === undefined) return `GET /metrics on this sandbox needs the metrics token and no Authorization header was sent: ${SEND_TOKEN}.`;
  const token = bearerToken(header);
  if (token === undefined) return `The Authorization header is not of the form "Bearer <token>": ${SEND_TOKEN}.`;
  // Digests of equal length, compared in constant time: neither the token nor its length shows in the timing.
  if (!timingSafeEqual(digest(token), expected)) return `The bearer token sent is not the metrics token of this sandbox: ${SEND_TOKEN}.`;
  return undefined;
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();
