/**
 * The outermost layer, the one every request passes: it makes the request's record (the id taken
 * from the client when it is a sane one, else drawn), refuses an over-long path, warns of a
 * Sandbox-Fault header sent where faults do not apply. Once answered (every change already
 * written: the store writes before it answers), it lets the faults after commit spoil the
 * answer, completes the record, and the journal entry, the evidence, the metrics and the log
 * line read it; only then does a fault hold or cut the answer.
 */
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { clientAddress } from '../client-address.js';
import type { AppEnv, Services } from '../context.js';
import { envelopeOf, warningHeader } from '../envelope.js';
import { sendError } from '../errors.js';
import { committedFaultsOf, cutAnswer, releaseHeldPlaces, spoilCommittedAnswer } from '../faults.js';
import type { Cut } from '../faults.js';
import { RequestRecord } from '../request-record.js';
import type { CompletedAnswer } from '../request-record.js';
import { ignoredFaultHeader } from '../sandbox/faults/fault-header.js';
import { HEALTH_ROUTES } from '../service/service.routes.js';
import { warn } from '../warnings.js';
import type { RouteCheck } from './auth.js';
import { completeRecord } from './complete.js';
import { journal } from './journal.js';
import { longPathRefusal } from './path-length.js';

export function everyRequest(services: Services, isRouted: RouteCheck) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const record = new RequestRecord(c.req.header('request-id'), c.req.method, c.req.path);
    c.set('services', services);
    c.set('record', record);
    const refused = longPathRefusal(c.req.url);
    // Rare, so looked at only when sent: the route is matched only then.
    const ignored = refused === undefined && c.req.header('sandbox-fault') !== undefined ? ignoredFaultHeader(c, isRouted) : undefined;
    if (ignored !== undefined) warn(c, [ignored]);
    if (refused) c.res = sendError(c, refused);
    else await next();

    const faults = committedFaultsOf(c);
    if (faults === undefined) return completeAndRead(c, services, record, undefined);
    try {
      const cut = await spoilCommittedAnswer(c, faults);
      await completeAndRead(c, services, record, cut);
      if (cut) c.res = await cutAnswer(c, cut);
    } finally {
      releaseHeldPlaces(faults);
    }
  });
}

/** Completes the record; its journal entry, evidence, metrics and log line read it. */
async function completeAndRead(c: Context<AppEnv>, services: Services, record: RequestRecord, cut: Cut | undefined): Promise<void> {
  const answer = completeRecord(c, record, cut);
  // Only a keyed request is journaled, and only while the journal is on.
  if (answer.keyedBy && services.journal.enabled) await journal(c, record, answer, answer.keyedBy);
  // Envelopes carry both already (sendText); touching c.res.headers would rebuild the light response.
  if (envelopeOf(c) === undefined) noteOnOtherAnswer(c, record.id);
  observe(c, services, record, answer);
}

/** Request-Id, and the request's warnings (an ignored fault header, unknown query parameters), on an answer that is not an envelope (a page, an image, a stream, a 304). */
function noteOnOtherAnswer(c: Context<AppEnv>, id: string): void {
  const res = c.res;
  try {
    res.headers.set('Request-Id', id);
    const warning = warningHeader(c)['sandbox-warning'];
    if (warning !== undefined && !res.headers.has('sandbox-warning')) res.headers.set('sandbox-warning', warning);
  } catch {
    // A response with immutable headers keeps them: nothing is lost but the note.
  }
}

/** The request's metrics and log line, read from its completed record. */
function observe(c: Context<AppEnv>, services: Services, record: RequestRecord, answer: CompletedAnswer): void {
  const { log, metrics, config } = services;
  const { route, status, latencyMs } = answer;
  metrics?.observeRequest(record.method, route, status, latencyMs / 1000, answer.fault !== null);
  // A balancer's probes every few seconds would drown the lines that matter (SANDBOX_LOG_HEALTH=on keeps them).
  if (!log || (HEALTH_ROUTES.has(route) && !config.logHealthChecks)) return;
  const client = clientAddress(c, config.trustProxy);
  log.info({ request_id: record.id, method: record.method, route, status, latency_ms: latencyMs, payee_id: answer.payeeId, client }, 'request');
}
