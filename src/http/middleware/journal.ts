/**
 * Journals every keyed request of a merchant (what was sent, what was answered, how long it took)
 * and records its readiness evidence: once, when it is answered, or, for an answer a timeout fault
 * holds, as soon as its change is committed (status "held"), so an integration that gave up can
 * read what happened through any instance while the hold goes on (SPEC 19).
 */
import type { Context } from 'hono';
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
  // From the request's arrival (observe), not this layer's turn: a burst sent together arrived together.
  const started = c.get('startedAt') ?? performance.now();
  const path = c.req.path;
  let kept: Promise<void> | undefined;
  // The hold that follows ends up to minutes later: its entry is this one, never a second.
  c.set('journalHeld', () => (kept ??= keep(c, started, path, true)));
  await next();
  // The journal records what the client gets, which depends on the write of this turn.
  await holdUntilWritten(c);
  await (kept ??= keep(c, started, path, false));
});

/** Writes the request's journal entry and evidence; `held`: its answer is being held, and this is the answer held back. */
async function keep(c: Context<AppEnv>, started: number, path: string, held: boolean): Promise<void> {
  const { journal, readiness, merchants } = c.get('services');
  const merchant = c.get('merchant');
  // Only a body the handler read is journaled: an oversized one is never read at all.
  const requestBody = c.get('requestBody') ?? null;
  // Reading c.res.headers would turn the adapter's light response into a full one: check the status first.
  const dropped = !held && isDroppedResponse(c.res);
  const responseBody = dropped ? null : (c.get('responseBody') ?? null);
  const warnings = c.get('warnings');
  const seen = {
    ref: c.get('requestId'),
    at: merchants.realNow(),
    latencyMs: Math.round((performance.now() - started) * 10) / 10,
    method: c.req.method,
    path,
    alias: path.startsWith('/v1/'),
    status: held ? ('held' as const) : dropped ? ('dropped' as const) : c.res.status,
    fault: c.get('fault') ?? null,
    idempotencyKey: idempotencyKeyOf(c.req.header('idempotency-key')),
  };
  // The answer stands whatever happens to its journal entry: a change it reports is already made.
  const entry = journal
    .record(merchant.payeeId, {
      at: seen.at,
      method: seen.method,
      path,
      alias: seen.alias,
      status: seen.status,
      code: responseBody ? envelopeCodeOf(responseBody) : null,
      requestBody: requestBody === null ? null : bodyToKeep(requestBody),
      responseBody: responseBody === null ? null : bodyToKeep(responseBody),
      latencyMs: seen.latencyMs,
      fault: seen.fault,
      warnings: warnings.length === 0 ? NO_WARNINGS : [...warnings],
      requestId: seen.ref,
      ...(seen.idempotencyKey === null ? {} : { idempotencyKey: seen.idempotencyKey }),
    })
    .catch(lost('journal entry'));
  // The evidence reads the whole bodies, not the journal's cut of them; written side by side with
  // the journal entry (the shared store batches both per turn), so a report read next sees it.
  const evidence = readiness
    .record(merchant.payeeId, {
      ref: seen.ref,
      at: seen.at,
      latencyMs: seen.latencyMs,
      method: seen.method,
      path,
      alias: seen.alias,
      status: seen.status,
      fault: seen.fault,
      idempotencyKey: seen.idempotencyKey,
      requestBody,
      responseBody,
      answered: c.get('answered') ?? null,
    })
    .catch(lost('readiness evidence'));
  await entry;
  await evidence;
}

function lost(what: string): (err: unknown) => void {
  return (err) => {
    if (!(err instanceof StoreUnavailableError)) console.error(`${what} lost:`, err instanceof Error ? err.message : err);
  };
}

const NO_WARNINGS: readonly string[] = [];
/** A sane Idempotency-Key as the journal keeps it; null for a missing or malformed one. */
function idempotencyKeyOf(key: string | undefined): string | null {
  return key !== undefined && IDEMPOTENCY_KEY.test(key) ? key : null;
}
