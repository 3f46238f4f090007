// One JSON object a line in snapshot and log alike, so `jq` reads every file; the end line's count tells a cut snapshot.
import type { Merchant } from '../domain/merchant.js';
import type { Payment } from '../domain/payment.js';
import type { SeenRequest } from '../domain/readiness.js';
import type { Delivery } from './delivery-log.js';
import type { AnsweredKey } from './idempotency-keys.js';
import type { StoredJournalEntry } from './journal-log.js';

export const FORMAT = 'payreq-sandbox/2';

export type LogRecord =
  | { readonly t: 'merchant'; readonly v: Merchant }
  | { readonly t: 'payment'; readonly v: Payment }
  | { readonly t: 'reset'; readonly payeeId: string }
  | { readonly t: 'prune'; readonly payeeId: string; readonly createdBefore: number }
  | { readonly t: 'merchant-delete'; readonly payeeId: string }
  | { readonly t: 'journal'; readonly payeeId: string; readonly v: StoredJournalEntry }
  | { readonly t: 'journal-clear'; readonly payeeId: string }
  /** A delivery as it now is: added, or replaced by id (an attempt, a resend). */
  | { readonly t: 'delivery'; readonly v: Delivery }
  | { readonly t: 'key'; readonly payeeId: string; readonly v: AnsweredKey }
  /** Readiness evidence: a polling run's first read (the next snapshot holds its newest). */
  | { readonly t: 'seen'; readonly payeeId: string; readonly id: number; readonly v: SeenRequest };

type Frame = { t: 'snapshot' | 'log'; format: string; generation: number; logFrom?: number } | { t: 'end'; records: number };

export function line(record: LogRecord | Frame): string {
  return `${JSON.stringify(record)}\n`;
}

/** Where a part's changes go: the file store's log (a memory part has none). */
export interface LogLines {
  /** Before the change is made: a throw leaves memory unchanged. */
  write(...records: LogRecord[]): void;
  /** What already happened, never waited for; `lost` undoes what the line carried. */
  record(r: LogRecord, options?: { now?: boolean; lost?: () => void }): void;
}

/** Where a part finds the log its changes go to: named by the file store once it exists, so each part is made once. */
export interface LogSlot {
  log?: LogLines;
}

export function deliveryRecords(deliveries: readonly Delivery[]): LogRecord[] {
  return deliveries.map((v) => ({ t: 'delivery', v }));
}

/** Checked before a record is applied, so a damaged line is named instead of crashing the start. */
const NEEDS: Record<LogRecord['t'], readonly string[]> = {
  merchant: ['v.payeeId'],
  payment: ['v.id', 'v.payeeId', 'v.token', 'v.code', 'v.merchantRefNo', 'v.status'],
  reset: ['payeeId'],
  prune: ['payeeId'],
  'merchant-delete': ['payeeId'],
  journal: ['payeeId', 'v.method', 'v.path'],
  'journal-clear': ['payeeId'],
  delivery: ['v.id', 'v.payeeId', 'v.state'],
  key: ['payeeId', 'v.key', 'v.fingerprint', 'v.body'],
  seen: ['payeeId', 'v.ref', 'v.method', 'v.path'],
};

/** A string answer is the damage, worded to follow the line's name ("is ..."). */
export function parseRecord(text: string): LogRecord | string {
  const r = jsonObject(text);
  if (typeof r === 'string') return r;
  const needs = typeof r.t === 'string' && Object.hasOwn(NEEDS, r.t) ? NEEDS[r.t as LogRecord['t']] : undefined;
  if (!needs) return `has type t=${JSON.stringify(r.t) ?? 'missing'}, none of ${Object.keys(NEEDS).join(', ')}`;
  const missing = needs.find((path) => typeof path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | null)?.[k], r) !== 'string');
  return missing ? `is a ${String(r.t)} record without its ${missing}` : (r as LogRecord);
}

export function jsonObject(text: string | undefined): Record<string, unknown> | string {
  try {
    const r = JSON.parse(text ?? '') as unknown;
    return typeof r === 'object' && r !== null && !Array.isArray(r) ? (r as Record<string, unknown>) : 'is not a JSON object';
  } catch {
    return 'is not a whole line of JSON';
  }
}
