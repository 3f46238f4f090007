/**
 * The readiness report (SPEC 16): its evidence, recorded as requests are answered and kept by
 * the store beyond the journal's bound, judged with the merchant's payments and deliveries.
 */
import { isEvidence, judgeReadiness, repeatKeyOf, seenRequestOf } from '../domain/readiness.js';
import type { AnsweredRequest, ReadinessCheck } from '../domain/readiness.js';
import type { Merchant } from '../domain/merchant.js';
import type { Payment } from '../domain/payment.js';
import type { ReadinessLog } from '../store/readiness-log.js';
import type { Store } from '../store/store.js';
import { DELIVERY_LOG_CAP } from '../store/delivery-log.js';

export interface ReadinessReport {
  readonly ready: boolean;
  readonly checks: readonly ReadinessCheck[];
}

/** Payments looked at, newest first: enough for every outcome of a test run. */
const PAYMENTS_JUDGED = 1_000;

/** Records what each answered request shows the checks, when it can show them anything. */
export class ReadinessEvidence {
  /** Per merchant, until when (real ms) anything sent counts for the rate-limit check: the last 429's Retry-After, as this instance saw it. */
  private readonly limitedUntil = new Map<string, number>();

  constructor(private readonly log: ReadinessLog) {}

  record(payeeId: string, request: AnsweredRequest): Promise<void> {
    const seen = seenRequestOf(request);
    const until = this.limitedUntil.get(payeeId);
    const beforeRetryAfter = until !== undefined && seen.at < until;
    if (until !== undefined && !beforeRetryAfter) this.limitedUntil.delete(payeeId);
    if (seen.status === 429) this.limitedUntil.set(payeeId, seen.answeredAt + (seen.retryAfterSeconds ?? 1) * 1000);
    if (!beforeRetryAfter && !isEvidence(seen)) return Promise.resolve();
    // Sent before Retry-After, a read is never collapsed: the check looks for exactly such a request.
    return this.log.add(payeeId, seen, beforeRetryAfter ? null : repeatKeyOf(seen));
  }
}

export async function readinessOf(store: Store, merchant: Merchant): Promise<ReadinessReport> {
  const [seen, page, deliveries] = await Promise.all([
    store.readiness.list(merchant.payeeId),
    store.listPayments(merchant.payeeId, { limit: PAYMENTS_JUDGED, offset: 0 }),
    store.deliveries.list(merchant.payeeId, DELIVERY_LOG_CAP),
  ]);
  // The readiness reads themselves are not part of the integration's behaviour.
  const requests = seen.filter((r) => !r.path.startsWith('/sandbox/v1/readiness'));
  return judgeReadiness({
    requests: requests.sort((a, b) => a.at - b.at),
    payments: page.items as Payment[],
    deliveries: deliveries.map((d) => ({ eventId: d.eventId, state: d.state, statuses: d.attempts.map((a) => a.status) })),
    webhookUrl: merchant.webhookUrl ?? null,
    requireSignature: merchant.settings.requireSignature,
  });
}
