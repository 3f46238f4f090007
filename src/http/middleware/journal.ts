/** Journals every keyed request of a merchant: what was sent, what was answered, how long it took. */
import { createMiddleware } from 'hono/factory';
import { bodyToKeep } from '../../services/journal.js';
import { StoreUnavailableError } from '../../store/unavailable.js';
import type { AppEnv } from '../context.js';
import { envelopeCodeOf } from '../envelope.js';
import { IDEMPOTENCY_KEY } from './idempotency.js';
import { holdUntilWritten } from '../durable.js';
import { isDroppedResponse } from '../faults.js';

export const journalRequests = createMiddleware<AppEnv>(async (c, next) => {
  const { journal } = c.get('services');
  if (!journal.enabled || !c.get('merchant')) return next();
  const started = performance.now();
  const path = c.req.path;
  await next();
  // The journal records what the client gets, which depends on the write of this turn.
  await holdUntilWritten(c);
  const merchant = c.get('merchant');
  // Only a body the handler read is journaled: an oversized one is never read at all.
  const requestBody = c.get('requestBody') ?? null;
  // Reading c.res.headers would turn the adapter's light response into a full one: check the status first.
  const dropped = isDroppedResponse(c.res);
  const responseBody = c.get('responseBody') ?? null;
  const warnings = c.get('warnings');
  // The answer stands whatever happens to its journal entry: a change it reports is already made.
  await journal.record(merchant.payeeId, {
    at: c.get('services').merchants.realNow(),
    method: c.req.method,
    path,
    alias: path.startsWith('/v1/'),
    status: dropped ? 'dropped' : c.res.status,
    code: dropped || !responseBody ? null : envelopeCodeOf(responseBody),
    requestBody: requestBody === null ? null : bodyToKeep(requestBody),
    responseBody: dropped || responseBody === null ? null : bodyToKeep(responseBody),
    latencyMs: Math.round((performance.now() - started) * 10) / 10,
    fault: c.get('fault') ?? null,
    warnings: warnings.length === 0 ? NO_WARNINGS : [...warnings],
    requestId: c.get('requestId'),
    ...idempotencyKeyOf(c.req.header('idempotency-key')),
  }).catch((err: unknown) => {
    if (!(err instanceof StoreUnavailableError)) console.error('journal entry lost:', err instanceof Error ? err.message : err);
  });
});

const NO_WARNINGS: readonly string[] = [];
/** A sane Idempotency-Key as the journal keeps it; none for a missing or malformed one. */
function idempotencyKeyOf(key: string | undefined): { idempotencyKey?: string } {
  return key !== undefined && IDEMPOTENCY_KEY.test(key) ? { idempotencyKey: key } : {};
}
