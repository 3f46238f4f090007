/**
 * A keyed request's journal entry and readiness evidence, read from its completed record: once,
 * when its answer is known; for an answer a timeout fault holds, that is as soon as its change
 * is committed (status "held"), so an integration that gave up can read what happened through
 * any instance while the hold goes on (SPEC 19).
 */
import type { Context } from 'hono';
import type { Merchant } from '../../domain/merchant.js';
import { bodyToKeep } from '../../services/journal.js';
import { errorFields } from '../../logger.js';
import { StoreUnavailableError } from '../../store/unavailable.js';
import type { AppEnv } from '../context.js';
import { envelopeCodeOf } from '../envelope.js';
import { IDEMPOTENCY_KEY } from './idempotency.js';
import type { CompletedAnswer, RequestRecord } from '../request-record.js';

/** Writes the entry and the evidence of `record`, completed with `answer`, to `merchant`'s journal. */
export async function journal(c: Context<AppEnv>, record: RequestRecord, answer: CompletedAnswer, merchant: Merchant): Promise<void> {
  const { journal, readiness, merchants } = c.get('services');
  const { method, path } = record;
  const { status, latencyMs, responseBody, requestBody, fault } = answer;
  const at = merchants.realNow();
  const alias = path.startsWith('/v1/');
  const idempotencyKey = idempotencyKeyOf(c.req.header('idempotency-key'));
  // The answer stands whatever happens to its journal entry: a change it reports is already made.
  const entry = journal
    .record(merchant.payeeId, {
      at,
      method,
      path,
      alias,
      status,
      code: responseBody ? envelopeCodeOf(responseBody) : null,
      requestBody: requestBody === null ? null : bodyToKeep(requestBody),
      responseBody: responseBody === null ? null : bodyToKeep(responseBody),
      ...(answer.answerRef === undefined || responseBody === null ? {} : { answerRef: answer.answerRef }),
      latencyMs,
      fault,
      warnings: answer.warnings,
      requestId: record.id,
      ...(idempotencyKey === null ? {} : { idempotencyKey }),
    })
    .catch(lost(c, record, 'journal entry'));
  // The evidence reads the whole bodies, not the journal's cut of them; written side by side with
  // the journal entry (the shared store batches both per turn), so a report read next sees it.
  const evidence = readiness
    .record(merchant.payeeId, { ref: record.id, at, latencyMs, method, path, alias, status, fault, idempotencyKey, requestBody, responseBody, answered: answer.answered })
    .catch(lost(c, record, 'readiness evidence'));
  await entry;
  await evidence;
}

function lost(c: Context<AppEnv>, record: RequestRecord, what: string): (err: unknown) => void {
  return (err) => {
    if (err instanceof StoreUnavailableError) return;
    c.get('services').logger.error({ ...errorFields(err), request_id: record.id }, `${what} lost`);
  };
}

/** A sane Idempotency-Key as the journal keeps it; null for a missing or malformed one. */
function idempotencyKeyOf(key: string | undefined): string | null {
  return key !== undefined && IDEMPOTENCY_KEY.test(key) ? key : null;
}
