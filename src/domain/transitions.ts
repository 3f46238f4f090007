/**
 * The one place where a payment's status changes. Public cancel/void/assign, control
 * pickup/pay/fail/expire/settle, the clock and the magic payers all call `transition`.
 */
import { SandboxError } from './errors.js';
import { HISTORY_CAP, isOpen, STATUS_MEANINGS } from './payment.js';
import type { Actor, Fee, Payer, Payment, PaymentEvent, PaymentEventType, PaymentSource, PaymentStatus } from './payment.js';

export type PaymentAction =
  | { readonly type: 'assign'; readonly payer: Payer; readonly payDueAt: number | null }
  | {
      readonly type: 'pay';
      readonly payer: Payer;
      readonly paidCurrency: string;
      readonly paidAmountMinor: number;
      readonly source: PaymentSource;
      readonly fees: readonly Fee[];
    }
  | { readonly type: 'cancel'; readonly reason: string }
  | { readonly type: 'fail'; readonly reason: string | null }
  | { readonly type: 'expire'; readonly reason: string | null }
  | { readonly type: 'void'; readonly reason: string }
  | { readonly type: 'settle' };

export type ActionType = PaymentAction['type'];

const VERB: Readonly<Record<ActionType, string>> = {
  assign: 'assign a payer to',
  pay: 'pay',
  cancel: 'cancel',
  fail: 'fail',
  expire: 'expire',
  void: 'void',
  settle: 'settle',
};

const EVENT: Readonly<Record<ActionType, PaymentEventType>> = {
  assign: 'payer_assigned',
  pay: 'paid',
  cancel: 'cancelled',
  fail: 'failed',
  expire: 'expired',
  void: 'voided',
  settle: 'settled',
};

function describe(p: Payment): string {
  if (p.status === 'A' && p.settled) return 'A (completed successfully and settled)';
  return `${p.status} (${STATUS_MEANINGS[p.status]})`;
}

/** Why an action is refused in the payment's current state, or null when it is allowed. */
export function refusal(p: Payment, type: ActionType): string | null {
  const open = isOpen(p);
  const paidUnsettled = p.status === 'A' && !p.settled;
  const head = `Cannot ${VERB[type]} payment ${p.id}: it is ${describe(p)}`;
  switch (type) {
    case 'assign':
    case 'pay':
    case 'fail':
    case 'expire':
      if (open) return null;
      if (paidUnsettled) return `${head}; it is already paid. A paid payment can only be voided (before settlement) or settled.`;
      return `${head}, a final status; no operation can change it.`;
    case 'cancel':
      if (open) return null;
      if (paidUnsettled) return `${head}; it is already paid, so use void to reverse it before settlement.`;
      if (p.status === 'A') return `${head}; it is already paid and settled, so neither cancel nor void applies.`;
      return `${head}, a final status; no operation can change it.`;
    case 'void':
      if (paidUnsettled) return null;
      if (open) return `${head}; it is not paid yet, so use cancel to stop it before payment.`;
      if (p.status === 'A') return `${head}; it is already settled, and void applies only before settlement.`;
      return `${head}, a final status; no operation can change it.`;
    case 'settle':
      if (paidUnsettled) return null;
      if (p.status === 'A') return `${head}; it is already settled.`;
      return `${head}; only a paid payment (status A) can be settled.`;
  }
}

function nextStatus(p: Payment, action: PaymentAction): PaymentStatus {
  switch (action.type) {
    case 'assign':
      return 'W';
    case 'pay':
    case 'settle':
      return 'A';
    case 'cancel':
    case 'void':
      return 'V';
    case 'fail':
      return 'F';
    case 'expire':
      return 'E';
  }
}

function appendEvent(history: readonly PaymentEvent[], event: PaymentEvent): readonly PaymentEvent[] {
  const next = [...history, event];
  // Keep the creation event and the newest ones.
  return next.length > HISTORY_CAP ? [next[0]!, ...next.slice(next.length - HISTORY_CAP + 1)] : next;
}

function reasonOf(action: PaymentAction): string | null {
  return 'reason' in action ? action.reason : null;
}

/** Applies an action at sandbox time `at`, or throws a 402 naming the state and what is allowed. */
export function transition(p: Payment, action: PaymentAction, at: number, actor: Actor): Payment {
  const refused = refusal(p, action.type);
  if (refused) throw SandboxError.refused(refused);
  const to = nextStatus(p, action);
  const history = appendEvent(p.history, { type: EVENT[action.type], from: p.status, to, at, reason: reasonOf(action), actor });
  const base = { ...p, status: to, history, version: p.version + 1 };
  switch (action.type) {
    case 'assign':
      return { ...base, payer: action.payer, payDueAt: action.payDueAt };
    case 'pay':
      return {
        ...base,
        payer: action.payer,
        paidCurrency: action.paidCurrency,
        paidAmountMinor: action.paidAmountMinor,
        source: action.source,
        fees: action.fees,
        paidAt: at,
        payDueAt: null,
      };
    case 'settle':
      return { ...base, settled: true, settledAt: at };
    default:
      return { ...base, payDueAt: null };
  }
}

/** The merchant discount rate the sandbox charges on every payment: 0.60 %, rounded half up. */
export const MDR_BASIS_POINTS = 60;

export function feesFor(currency: string, amountMinor: number): readonly Fee[] {
  return [{ type: 'MDR', currency, amountMinor: Math.round((amountMinor * MDR_BASIS_POINTS) / 10_000) }];
}

/** Masks an account so only its last four characters show. */
export function maskAccount(account: string): string {
  return `${'*'.repeat(Math.max(0, account.length - 4))}${account.slice(-4)}`;
}

/** The work that falls due on an open or unsettled payment by sandbox time `now`, earliest first. */
export type DueWork = { readonly kind: 'pay' | 'expire' | 'settle'; readonly at: number };

export const DAY_MS = 86_400_000;

export function nextUtcMidnight(ms: number): number {
  return (Math.floor(ms / DAY_MS) + 1) * DAY_MS;
}

/**
 * The earliest sandbox time at which dueWork answers something for `p`, or null when nothing
 * will fall due without a request; dueWork(p, t) is null for every t before it.
 */
export function nextDueAt(p: Payment, autoSettle: boolean): number | null {
  if (isOpen(p)) return p.payDueAt !== null && p.payDueAt < p.expiresAt ? p.payDueAt : p.expiresAt;
  if (autoSettle && p.status === 'A' && !p.settled && p.paidAt !== null) return nextUtcMidnight(p.paidAt);
  return null;
}

/** What falls due by `now`: the work at nextDueAt, once that time has come. */
export function dueWork(p: Payment, now: number, autoSettle: boolean): DueWork | null {
  const at = nextDueAt(p, autoSettle);
  if (at === null || at > now) return null;
  return { kind: !isOpen(p) ? 'settle' : at < p.expiresAt ? 'pay' : 'expire', at };
}
