// SPEC 18 and 26: the one storage rule of every store, so a merchant under its fair share is never refused because others filled the sandbox.
import type { SeenRequest } from '../domain/readiness.js';
import type { Delivery, DeliveryAttempt } from './delivery-log.js';
import type { StoredJournalEntry } from './journal-log.js';

export interface StorageLimits {
  readonly merchantBytes: number;
  readonly sandboxBytes: number;
}

export const MIB = 1024 * 1024;

/** SANDBOX_MERCHANT_STORAGE_MB and SANDBOX_STORAGE_MB when unset. */
export const DEFAULT_STORAGE_LIMITS: StorageLimits = { merchantBytes: 64 * MIB, sandboxBytes: 1024 * MIB };

/** A shared store may answer sandboxBytes and holders a few seconds old. */
export interface StorageUsage {
  readonly merchantBytes: number;
  readonly sandboxBytes: number;
  readonly holders: number;
}

/** Only a create is ever refused: the journal, deliveries, keys and evidence are capped and trimmed instead. */
export type StorageRefusal = 'merchant_quota' | 'fair_share';

/** Enough for a few hundred payments with their journal. */
const MIN_FAIR_SHARE_BYTES = 256 * 1024;

export function fairShare(limits: StorageLimits, holders: number): number {
  return Math.floor(limits.sandboxBytes / Math.max(1, holders));
}

/** A merchant about to store its first record counts itself. */
export function holdersWith(usage: StorageUsage): number {
  return usage.holders + (usage.merchantBytes > 0 ? 0 : 1);
}

/** The fair share binds only once the sandbox holds its budget. */
export function allowance(usage: StorageUsage, limits: StorageLimits): number {
  if (usage.sandboxBytes < limits.sandboxBytes) return limits.merchantBytes;
  return Math.min(limits.merchantBytes, fairShare(limits, holdersWith(usage)));
}

/** Less on a small budget or quota, so a small sandbox still enrols merchants. */
export function leastFairShare(limits: StorageLimits): number {
  return Math.min(MIN_FAIR_SHARE_BYTES, limits.merchantBytes, Math.floor(limits.sandboxBytes / 64));
}

export function sharesTooSmall(holders: number, limits: StorageLimits): boolean {
  return fairShare(limits, holders + 1) < leastFairShare(limits);
}

export function textBytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

export function recordBytes(record: unknown): number {
  return textBytes(JSON.stringify(record));
}

/** A fixed figure for numbers and flags: the same on every store, and no entry written out a second time to count it. */
const JOURNAL_ENTRY_ALLOWANCE = 160;
const EVIDENCE_ALLOWANCE = 240;

function recordTextBytes(allowance: number, texts: readonly (string | null | undefined)[]): number {
  let bytes = allowance;
  for (const text of texts) if (typeof text === 'string') bytes += textBytes(text);
  return bytes;
}

/** An entry that refers to a kept answer text counts the reference: the text counts once (answerTextBytes). */
export function journalEntryBytes(e: Omit<StoredJournalEntry, 'id'>): number {
  return recordTextBytes(JOURNAL_ENTRY_ALLOWANCE, [e.method, e.path, e.requestBody, e.answerRef ?? e.responseBody, e.fault, e.requestId, e.idempotencyKey, ...e.warnings]);
}

export const answerTextBytes = textBytes;

export function evidenceBytes(s: SeenRequest): number {
  return recordTextBytes(EVIDENCE_ALLOWANCE, [s.ref, s.method, s.path, s.fault, s.idempotencyKey, s.merchantRefNo, s.bodyDigest, s.paymentId, s.paymentStatus]);
}

export const DELIVERY_ALLOWANCE = 200;
const ATTEMPT_ALLOWANCE = 64;

/** Apart, so PostgreSQL can add it to its delivery's bytes as it records it. */
export function attemptBytes(a: DeliveryAttempt): number {
  return recordTextBytes(ATTEMPT_ALLOWANCE, [a.error]);
}

export function deliveryBytes(d: Delivery): number {
  let bytes = recordTextBytes(DELIVERY_ALLOWANCE, [d.id, d.eventId, d.eventType, d.paymentId, d.url, d.body]);
  for (const a of d.attempts) bytes += attemptBytes(a);
  return bytes;
}

export function idempotencyKeyBytes(key: string, fingerprint: string, body: string | null): number {
  return textBytes(key) + textBytes(fingerprint) + (body === null ? 0 : textBytes(body));
}

export function passesBudget(sandboxBytes: number, incoming: number, limits: StorageLimits): boolean {
  return sandboxBytes + incoming > limits.sandboxBytes;
}

/** Apart from storageRefusal, so PostgreSQL can check a merchant's payments in one statement. */
export function paymentRoom(partsBytes: number, usage: StorageUsage, incoming: number, limits: StorageLimits): { readonly bytes: number; readonly refusal: StorageRefusal } {
  if (!passesBudget(usage.sandboxBytes, incoming, limits)) return { bytes: limits.merchantBytes - partsBytes, refusal: 'merchant_quota' };
  const share = fairShare(limits, holdersWith(usage));
  if (share < limits.merchantBytes) return { bytes: share - partsBytes, refusal: 'fair_share' };
  return { bytes: limits.merchantBytes - partsBytes, refusal: 'merchant_quota' };
}

export function storageRefusal(usage: StorageUsage & { readonly paymentBytes: number; readonly partsBytes: number }, incoming: number, limits: StorageLimits): StorageRefusal | null {
  const room = paymentRoom(usage.partsBytes, usage, incoming, limits);
  return usage.paymentBytes + incoming > room.bytes ? room.refusal : null;
}

/** Kept as records come and go, so a usage read never walks the records. */
export class ByteTally {
  private readonly byMerchant = new Map<string, number>();
  total = 0;
  private all: ByteTally | undefined;

  of(payeeId: string): number {
    return this.byMerchant.get(payeeId) ?? 0;
  }

  get holders(): number {
    return this.byMerchant.size;
  }

  /** Linked before the store holds anything, so the sum is never missing a record. */
  countInto(all: ByteTally): void {
    this.all = all;
  }

  add(payeeId: string, bytes: number): void {
    if (bytes === 0) return;
    const next = this.of(payeeId) + bytes;
    if (next === 0) this.byMerchant.delete(payeeId);
    else this.byMerchant.set(payeeId, next);
    this.total += bytes;
    this.all?.add(payeeId, bytes);
  }

  clear(payeeId: string): void {
    this.add(payeeId, -this.of(payeeId));
  }

  entries(): IterableIterator<[string, number]> {
    return this.byMerchant.entries();
  }
}
