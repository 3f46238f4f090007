/**
 * The one place a request's record is completed: once its answer is known, from what each layer
 * kept of the request in its own variable (the body read, the envelope answered, the faults
 * applied, what the handler said, the warnings, the key's merchant).
 */
import type { Context } from 'hono';
import { matchedRoutes, routePath } from 'hono/route';
import { answeredOf } from '../answered.js';
import { requestBodyOf } from '../body.js';
import type { AppEnv } from '../context.js';
import { envelopeOf } from '../envelope.js';
import { faultNoteOf } from '../faults.js';
import type { Cut } from '../faults.js';
import type { CompletedAnswer, RequestRecord } from '../request-record.js';
import { warningsOf } from '../warnings.js';
import { keyedOf } from './auth.js';

const NO_WARNINGS: readonly string[] = [];

/** Completes `record` with the answer now in `c`, or with the `cut` a fault gives that answer (held, dropped). */
export function completeRecord(c: Context<AppEnv>, record: RequestRecord, cut: Cut | undefined): CompletedAnswer {
  const envelope = cut === 'dropped' ? undefined : envelopeOf(c);
  const warnings = warningsOf(c);
  return record.complete({
    status: cut ?? c.res.status,
    latencyMs: record.sinceArrivalMs(),
    route: routePatternOf(c),
    requestBody: requestBodyOf(c) ?? null,
    responseBody: envelope?.text ?? null,
    answerRef: envelope?.ref,
    answered: answeredOf(c) ?? null,
    fault: faultNoteOf(c) ?? null,
    warnings: warnings.length === 0 ? NO_WARNINGS : [...warnings],
    keyedBy: keyedOf(c)?.merchant,
    payeeId: c.get('merchant')?.payeeId ?? null,
  });
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
