/** Gathers what the readiness report judges: the merchant's journal, payments and deliveries. */
import { judgeReadiness } from '../domain/readiness.js';
import type { ReadinessCheck, SeenRequest } from '../domain/readiness.js';
import type { Merchant } from '../domain/merchant.js';
import type { Payment } from '../domain/payment.js';
import { JOURNAL_CAP } from '../store/journal-log.js';
import type { JournalEntry } from '../store/journal-log.js';
import type { Store } from '../store/store.js';
import { DELIVERY_LOG_CAP } from '../store/delivery-log.js';

export interface ReadinessReport {
  readonly ready: boolean;
  readonly checks: readonly ReadinessCheck[];
}

/** Payments looked at, newest first: enough for every outcome of a test run. */
const PAYMENTS_JUDGED = 1_000;

export async function readinessOf(store: Store, merchant: Merchant): Promise<ReadinessReport> {
  const [entries, page, deliveries] = await Promise.all([
    store.journal.list(merchant.payeeId, { limit: JOURNAL_CAP }),
    store.listPayments(merchant.payeeId, { limit: PAYMENTS_JUDGED, offset: 0 }),
    store.deliveries.list(merchant.payeeId, DELIVERY_LOG_CAP),
  ]);
  // The readiness reads themselves are not part of the integration's behaviour.
  const requests = entries.filter((e) => !e.path.startsWith('/sandbox/v1/readiness')).reverse().map(seen);
  return judgeReadiness({
    requests: requests.sort((a, b) => a.at - b.at),
    payments: page.items as Payment[],
    deliveries: deliveries.map((d) => ({ eventId: d.eventId, state: d.state, statuses: d.attempts.map((a) => a.status) })),
    webhookUrl: merchant.webhookUrl ?? null,
    requireSignature: merchant.settings.requireSignature,
  });
}

function seen(e: JournalEntry): SeenRequest {
  return {
    ref: e.requestId ?? `${e.method} ${e.path} at ${new Date(e.at).toISOString()}`,
    at: e.at - e.latencyMs,
    answeredAt: e.at,
    method: e.method,
    path: e.path,
    alias: e.alias,
    status: e.status,
    fault: e.fault,
    idempotencyKey: e.idempotencyKey ?? null,
    requestBody: objectOf(e.requestBody),
    responseBody: objectOf(e.responseBody),
  };
}

function objectOf(text: string | null): Record<string, unknown> | null {
  if (!text) return null;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
