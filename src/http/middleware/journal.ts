/**
 * A keyed request's journal entry and readiness evidence, made from its record: once, when it is
 * answered, or, for an answer a timeout fault holds, as soon as its change is committed (status
 * "held"), so an integration that gave up can read what happened through any instance while the
 * hold goes on (SPEC 19).
 */
import type { Context } from 'hono';
import type { Merchant } from '../../domain/merchant.js';
import { bodyToKeep } from '../../services/journal.js';
import { errorFields } from '../../logger.js';
import { StoreUnavailableError } from '../../store/unavailable.js';
import type { AppEnv } from '../context.js';
import { envelopeCodeOf } from '../envelope.js';
import { isDroppedResponse } from '../faults.js';
import { IDEMPOTENCY_KEY } from './idempotency.js';
import type { RequestRecord } from '../request-record.js';

/** Writes the entry and the evidence; `held`: the answer is being held, and this is the answer held back. */
export async function journal(c: Context<AppEnv>, record: RequestRecord, merchant: Merchant, held: boolean): Promise<void> {
  const { journal, readiness, merchants } = c.get('services');
  const path = c.req.path;
  // Reading c.res.headers would turn the adapter's light response into a full one: check the status first.
  const dropped = !held && isDroppedResponse(c.res);
  const responseBody = dropped ? null : (record.responseBody ?? null);
  const requestBody = record.requestBody ?? null;
  const at = merchants.realNow();
  const latencyMs = Math.round((performance.now() - record.startedAt) * 10) / 10;
  const status = held ? ('held' as const) : dropped ? ('dropped' as const) : c.res.status;
  const fault = record.fault ?? null;
  const alias = path.startsWith('/v1/');
  const idempotencyKey = idempotencyKeyOf(c.req.header('idempotency-key'));
  // The answer stands whatever happens to its journal entry: a change it reports is already made.
  const entry = journal
    .record(merchant.payeeId, {
      at,
      method: c.req.method,
      path,
      alias,
      status,
      code: responseBody ? envelopeCodeOf(responseBody) : null,
      requestBody: requestBody === null ? null : bodyToKeep(requestBody),
      responseBody: responseBody === null ? null : bodyToKeep(responseBody),
      ...(record.answerRef === undefined || responseBody === null ? {} : { answerRef: record.answerRef }),
      latencyMs,
      fault,
      warnings: record.warnings.length === 0 ? NO_WARNINGS : [...record.warnings],
      requestId: record.id,
      ...(idempotencyKey === null ? {} : { idempotencyKey }),
    })
    .catch(lost(c, 'journal entry'));
  // The evidence reads the whole bodies, not the journal's cut of them; written side by side with
  // the journal entry (the shared store batches both per turn), so a report read next sees it.
  const evidence = readiness
    .record(merchant.payeeId, { ref: record.id, at, latencyMs, method: c.req.method, path, alias, status, fault, idempotencyKey, requestBody, responseBody, answered: record.answered ?? null })
    .catch(lost(c, 'readiness evidence'));
  await entry;
  await evidence;
}

function lost(c: Context<AppEnv>, what: string): (err: unknown) => void {
  return (err) => {
    if (err instanceof StoreUnavailableError) return;
    c.get('services').logger.error({ ...errorFields(err), request_id: c.get('record').id }, `${what} lost`);
  };
}

const NO_WARNINGS: readonly string[] = [];

/** A sane Idempotency-Key as the journal keeps it; null for a missing or malformed one. */
function idempotencyKeyOf(key: string | undefined): string | null {
  return key !== undefined && IDEMPOTENCY_KEY.test(key) ? key : null;
}
