/**
 * The outermost layer of every request: a request id (taken from the client when it is a sane
 * one, else drawn), then, once answered, one log line and the request metrics, labelled with
 * the route pattern, never the raw path.
 */
import { createMiddleware } from 'hono/factory';
import type { Context } from 'hono';
import { matchedRoutes, routePath } from 'hono/route';
import { newRequestId } from '../../domain/ids.js';
import type { Answered } from '../../services/metrics.js';
import type { AppEnv } from '../context.js';
import { clientAddress } from '../client-address.js';
import { HEALTH_ROUTES } from '../service/service.routes.js';
import { isDroppedResponse } from '../faults.js';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

export const observeRequests = createMiddleware<AppEnv>(async (c, next) => {
  const started = performance.now();
  c.set('startedAt', started);
  const sent = c.req.header('request-id');
  const requestId = sent !== undefined && CLIENT_REQUEST_ID.test(sent) ? sent : newRequestId();
  c.set('requestId', requestId);
  await next();
  // Envelopes carry it already (sendText); touching c.res.headers would rebuild the light response.
  if (c.get('responseBody') === undefined) c.res.headers.set('Request-Id', requestId);
  const { log, metrics, config } = c.get('services');
  const route = routePatternOf(c);
  const seconds = (performance.now() - started) / 1000;
  const status = c.res.status;
  metrics?.observeRequest(c.req.method, route, status, seconds, answeredBy(c));
  // A balancer's probes every few seconds would drown the lines that matter (SANDBOX_LOG_HEALTH=on keeps them).
  if (!log || (HEALTH_ROUTES.has(route) && !config.logHealthChecks)) return;
  const client = clientAddress(c, config.trustProxy);
  log.info({ request_id: requestId, method: c.req.method, route, status, latency_ms: Math.round(seconds * 10_000) / 10, payee_id: c.get('merchant')?.payeeId ?? null, client }, 'request');
});

/** Whether a fault gave the answer (or cut it): what an unknown status is counted as in metrics. */
function answeredBy(c: Context<AppEnv>): Answered {
  if (isDroppedResponse(c.res)) return 'dropped';
  return c.get('fault') === undefined ? 'plain' : 'injected';
}

/**
 * The route pattern of the answer, for labels: after next(), the index is the one that answered.
 * When middleware answered (a 401, a rate limit, an injected fault; its pattern ends in *), the
 * route is the handler Hono matched for this method, so those answers are counted per route too.
 */
function routePatternOf(c: Context<AppEnv>): string {
  const pattern = routePath(c);
  if (pattern && !pattern.endsWith('*')) return pattern;
  const method = c.req.method === 'HEAD' ? 'GET' : c.req.method;
  return matchedRoutes(c).find((route) => route.method === method)?.path ?? 'unmatched';
}
