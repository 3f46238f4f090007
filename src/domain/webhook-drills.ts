/**
 * Webhook drills (SPEC 16): what a merchant's receiver can be made to face before go-live:
 * duplicated deliveries, events of one change out of order, late deliveries, and sample events
 * sent on demand without touching a payment.
 */
import { newPayment } from './payment.js';
import { seedOf } from './seeded.js';
import type { Payment, PaymentEvent, PaymentEventType, PaymentStatus } from './payment.js';

export interface WebhookFaults {
  /** Probability (0 to 1) that a delivery is sent twice, with the same event_id. */
  readonly duplicate: number;
  /** Events of one payment that fall due together are sent newest first. */
  readonly reorder: boolean;
  /** Every delivery is held this many sandbox seconds (0 to 3600): real time or a clock advance releases it. */
  readonly delaySeconds: number;
}

/** The longest hold of the delay drill, in sandbox seconds (an hour). */
export const MAX_WEBHOOK_DELAY_SECONDS = 3600;

export const NO_WEBHOOK_FAULTS: WebhookFaults = { duplicate: 0, reorder: false, delaySeconds: 0 };

/**
 * Whether the duplicate drill sends an event twice. Drawn from the sandbox's seed and what a
 * replay reproduces (the payment's merchant_ref_no, the version of the payment the event made,
 * its type), never from random ids (event id, payee id), so two sandboxes with one seed and the
 * same calls duplicate the same deliveries.
 */
export function isDuplicated(
  duplicate: number,
  seed: number,
  event: { readonly merchantRefNo: string; readonly version: number; readonly type: string },
): boolean {
  if (duplicate <= 0) return false;
  return seedOf(`duplicate:${seed}:${event.merchantRefNo}:${event.version}:${event.type}`) / 2 ** 32 < duplicate;
}

/** Each event type the sandbox sends, with the change it stands for. */
const EVENT_CHANGES: Readonly<Record<PaymentEventType, { readonly from: PaymentStatus | null; readonly to: PaymentStatus }>> = {
  created: { from: null, to: 'P' },
  payer_assigned: { from: 'P', to: 'W' },
  paid: { from: 'W', to: 'A' },
  cancelled: { from: 'P', to: 'V' },
  failed: { from: 'W', to: 'F' },
  expired: { from: 'P', to: 'E' },
  voided: { from: 'A', to: 'V' },
  settled: { from: 'A', to: 'A' },
};

export const WEBHOOK_EVENT_TYPES: readonly string[] = Object.keys(EVENT_CHANGES).map((t) => `payment.${t}`);

/** The event type of a `payment.*` name, or undefined when the sandbox sends no such event. */
export function eventTypeOf(name: string): PaymentEventType | undefined {
  const type = name.startsWith('payment.') ? name.slice('payment.'.length) : '';
  return Object.hasOwn(EVENT_CHANGES, type) ? (type as PaymentEventType) : undefined;
}

/** A sample payment and event of `type`, as a test delivery carries them (no payment is stored). */
export function sampleEvent(
  type: PaymentEventType,
  ids: { readonly id: string; readonly token: string; readonly code: string },
  merchant: { readonly payeeId: string; readonly homeCurrency: string },
  now: number,
): { payment: Payment; event: PaymentEvent } {
  const change = EVENT_CHANGES[type];
  const created = newPayment({
    ...ids,
    payeeId: merchant.payeeId,
    merchantRefNo: 'webhook-test',
    productType: 'QR_DYNAMIC',
    currency: merchant.homeCurrency,
    amountMinor: 1000,
    now,
    ttlMs: 15 * 60_000,
  });
  const payer = change.to === 'P' ? null : { id: 'sample-payer', name: 'Sample Payer' };
  const paid = change.to === 'A' || type === 'voided';
  const event: PaymentEvent = { type, from: change.from, to: change.to, at: now, reason: type === 'cancelled' || type === 'voided' ? 'webhook test' : null, actor: 'sandbox' };
  const payment: Payment = {
    ...created,
    status: change.to,
    settled: type === 'settled',
    payer,
    paidAt: paid ? now : null,
    settledAt: type === 'settled' ? now : null,
    history: type === 'created' ? created.history : [...created.history, event],
    version: type === 'created' ? 1 : 2,
  };
  return { payment, event };
}
