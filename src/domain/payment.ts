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
  readonly metadata: Readonly<Record<string, unknown>> | null;
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
