/**
 * The outermost layer, the one every request passes: it opens the request's record (the id taken
 * from the client when it is a sane one, else drawn), refuses an over-long path, notes a
 * Sandbox-Fault header sent where faults do not apply; once answered, it waits for the store's
 * pending write (the one wait, made once: request-record.ts), then makes the journal entry, the
 * metrics and the log line from the record, labelled with the route pattern, never the raw path.
 */
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { matchedRoutes, routePath } from 'hono/route';
import type { Answered } from '../../services/metrics.js';
import { clientAddress } from '../client-address.js';
import type { AppEnv, Services } from '../context.js';
import { asciiHeaderValue } from '../envelope.js';
import { sendError } from '../errors.js';
import { isDroppedResponse } from '../faults.js';
import { RequestRecord } from '../request-record.js';
import { ignoredFaultHeader } from '../sandbox/faults/fault-header.js';
import { HEALTH_ROUTES } from '../service/service.routes.js';
import type { RouteCheck } from './auth.js';
import { longPathRefusal } from './path-length.js';

export function everyRequest(services: Services, isRouted: RouteCheck) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const record = new RequestRecord(c.req.header('request-id'));
    c.set('services', services);
    c.set('record', record);
    const refused = longPathRefusal(c.req.url);
    // Rare, so looked at only when sent: the route is matched only then.
    const ignored = refused === undefined && c.req.header('sandbox-fault') !== undefined ? ignoredFaultHeader(c, isRouted) : undefined;
    if (ignored !== undefined) record.warnings.push(ignored);
    if (refused) c.res = sendError(c, refused);
    else await next();

    await record.journalOnce(c, false);
    // Envelopes carry both already (sendText); touching c.res.headers would rebuild the light response.
    if (record.responseBody === undefined) noteOnOtherAnswer(c.res, record.id, ignored);
    observe(c, services, record);
  });
}

/** Request-Id, and the ignored-fault warning, on an answer that is not an envelope (a page, an image). */
function noteOnOtherAnswer(res: Response, id: string, warning: string | undefined): void {
  try {
    res.headers.set('Request-Id', id);
    if (warning !== undefined && !res.headers.has('sandbox-warning')) res.headers.set('sandbox-warning', asciiHeaderValue(warning));
  } catch {
    // A response with immutable headers keeps them: nothing is lost but the note.
  }
}

/** The request's metrics and log line. */
function observe(c: Context<AppEnv>, services: Services, record: RequestRecord): void {
  const { log, metrics, config } = services;
  const route = routePatternOf(c);
  const seconds = (performance.now() - record.startedAt) / 1000;
  const status = c.res.status;
  metrics?.observeRequest(c.req.method, route, status, seconds, answeredBy(c.res, record));
  // A balancer's probes every few seconds would drown the lines that matter (SANDBOX_LOG_HEALTH=on keeps them).
  if (!log || (HEALTH_ROUTES.has(route) && !config.logHealthChecks)) return;
  const client = clientAddress(c, config.trustProxy);
  log.info({ request_id: record.id, method: c.req.method, route, status, latency_ms: Math.round(seconds * 10_000) / 10, payee_id: c.get('merchant')?.payeeId ?? null, client }, 'request');
}

/** Whether a fault gave the answer (or cut it): what an unknown status is counted as in metrics. */
function answeredBy(res: Response, record: RequestRecord): Answered {
  if (isDroppedResponse(res)) return 'dropped';
  return record.fault === undefined ? 'plain' : 'injected';
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
