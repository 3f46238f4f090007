/** A payment request and its history, as the domain sees it (amounts in minor units, times in ms). */

export type PaymentStatus = 'P' | 'W' | 'E' | 'F' | 'V' | 'A';

export const STATUS_MEANINGS: Readonly<Record<PaymentStatus, string>> = {
  P: 'pending: waiting for the customer to pick it up',
  W: 'waiting for the customer to pay',
  E: 'expired',
  F: 'failed',
  V: 'voided',
  A: 'completed successfully',
};

export type Actor = 'merchant' | 'payer' | 'sandbox' | 'clock';

export type PaymentEventType = 'created' | 'payer_assigned' | 'paid' | 'cancelled' | 'failed' | 'expired' | 'voided' | 'settled';

export interface PaymentEvent {
  readonly type: PaymentEventType;
  readonly from: PaymentStatus | null;
  readonly to: PaymentStatus;
  /** Sandbox time of the merchant, ms. */
  readonly at: number;
  readonly reason: string | null;
  readonly actor: Actor;
}

export interface Payer {
  readonly id: string;
  readonly name: string;
}

export interface PaymentSource {
  readonly type: string;
  readonly provider: string;
  readonly account: string;
}

export interface Fee {
  readonly type: string;
  readonly currency: string;
  readonly amountMinor: number;
}

export interface Payment {
  readonly id: string;
  readonly token: string;
  readonly code: string;
  readonly payeeId: string;
  readonly merchantRefNo: string;
  readonly productType: string;
  readonly currency: string;
  readonly amountMinor: number;
  readonly paidCurrency: string;
  readonly paidAmountMinor: number;
  readonly status: PaymentStatus;
  readonly settled: boolean;
  readonly payer: Payer | null;
  readonly source: PaymentSource | null;
  readonly fees: readonly Fee[];
  /**
   * The metadata as sent, kept as its compact JSON text (what JSON.stringify writes of the parsed
   * object), never as a tree: memory then follows its bytes whatever its shape (SPEC 18).
   */
  readonly metadata: string | null;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly paidAt: number | null;
  readonly settledAt: number | null;
  /** When a PAYER_PAYS_LATER payer pays, sandbox ms; null when nobody is due to pay. */
  readonly payDueAt: number | null;
  readonly history: readonly PaymentEvent[];
  /** Bumped on every change; the store refuses a write based on a stale version. */
  readonly version: number;
}

export interface NewPaymentInput extends Pick<Payment, 'id' | 'token' | 'code' | 'payeeId' | 'merchantRefNo' | 'productType' | 'currency' | 'amountMinor'> {
  readonly metadata?: Payment['metadata'] | undefined;
  /** The merchant's sandbox time of the creation, ms. */
  readonly now: number;
  /** How long it stays P or W before it expires, ms. */
  readonly ttlMs: number;
}

/** A payment as create makes it: P, its whole amount to pay, nothing happened yet but its creation. */
export function newPayment(input: NewPaymentInput): Payment {
  return {
    id: input.id,
    token: input.token,
    code: input.code,
    payeeId: input.payeeId,
    merchantRefNo: input.merchantRefNo,
    productType: input.productType,
    currency: input.currency,
    amountMinor: input.amountMinor,
    paidCurrency: input.currency,
    paidAmountMinor: input.amountMinor,
    status: 'P',
    settled: false,
    payer: null,
    source: null,
    fees: [],
    metadata: input.metadata ?? null,
    createdAt: input.now,
    expiresAt: input.now + input.ttlMs,
    paidAt: null,
    settledAt: null,
    payDueAt: null,
    history: [{ type: 'created', from: null, to: 'P', at: input.now, reason: null, actor: 'merchant' }],
    version: 1,
  };
}

/**
 * A payment read back from a store written before metadata was kept as text (an object there):
 * the same record with its metadata as text. Records fresh from JSON.parse are changed in place.
 */
export function withMetadataText(p: Payment): Payment {
  const m = p.metadata as unknown;
  if (m !== null && typeof m === 'object') (p as { metadata: string | null }).metadata = JSON.stringify(m);
  return p;
}

/** The history keeps its first event and the newest ones, so memory stays bounded. */
export const HISTORY_CAP = 100;

/** P or W: the payer has not paid, and the payment has not ended. */
export function isOpen(p: Payment): boolean {
  return p.status === 'P' || p.status === 'W';
}

/** Can still change without a request: open, or paid and not yet settled. */
export function isLive(p: Payment): boolean {
  return isOpen(p) || (p.status === 'A' && !p.settled);
}
