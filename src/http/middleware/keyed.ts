/**
 * The layer of keyed routes, in one pass: the key names the merchant (a status read reads its
 * payment in the same store call); then only what applies to this request: the rate limit when
 * the merchant set one, the Idempotency-Key for a POST that sends one, the faults (public routes)
 * when a header or a rule asks for them. A plain status read enters none of them. The faults
 * after commit are applied by the outermost layer, once the answer is kept (http/faults.ts).
 */
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../context.js';
import { authenticate } from './auth.js';
import type { RouteCheck, StatusReadOf } from './auth.js';
import { withFaults } from './faults.js';
import type { ServedRoutes } from './faults.js';
import { withIdempotencyKey } from './idempotency.js';
import { limitRate } from './rate-limit.js';

export interface KeyedOptions {
  /** Whether a route serves the request (a typo's 404 stays a 404 without a key). */
  readonly serves: RouteCheck;
  /** The payment a status read reads, read with the key. */
  readonly readOf?: StatusReadOf;
  /** Public routes: faults apply, with what the app knows of its routes. */
  readonly faults?: ServedRoutes;
}

export function keyedRequests(options: KeyedOptions) {
  const { serves, readOf, faults } = options;
  return createMiddleware<AppEnv>(async (c, next) => {
    const merchant = await authenticate(c, serves, readOf);
    if (merchant === undefined) return next();

    const limit = merchant.settings.rateLimitPerSecond;
    if (limit > 0) await limitRate(c, merchant, limit);

    const header = faults ? c.req.header('sandbox-fault') : undefined;
    const faulted = faults !== undefined && (header !== undefined || (merchant.faultRules?.length ?? 0) > 0) && serves(c);
    const key = c.req.method === 'POST' ? c.req.header('idempotency-key') : undefined;
    const keyed = key !== undefined && serves(c);
    if (!faulted && !keyed) return next();
    const run = faulted ? () => withFaults(c, merchant, header, faults!, next) : () => next().then(RAN);
    if (keyed) return withIdempotencyKey(c, merchant, key, run);
    await run();
  });
}

const RAN = () => true;
