/**
 * Storage counted in bytes (SPEC 18): the one rule the memory, file and PostgreSQL stores follow.
 *
 * - What counts: everything a merchant makes the sandbox keep: its payments (with history and
 *   metadata), journal entries, webhook deliveries, idempotency keys with their answers, and
 *   readiness evidence. A payment, a delivery and a key count the UTF-8 bytes of their text as the
 *   store keeps it. A journal entry and a piece of evidence, written on every request, count the
 *   UTF-8 bytes of their texts plus a fixed allowance for their numbers and flags (recordTextBytes):
 *   the same figure on every store, and no record written out a second time to count it. An answer
 *   text that journal entries refer to (answerRef) counts once while referred to, its entries without it.
 * - The budget is shared fairly (SPEC 26): a merchant's fair share is the budget divided by the
 *   merchants holding data (one about to store counted). While the sandbox holds less than its
 *   budget a merchant may hold up to its quota; once it holds the budget, up to the smaller of
 *   its quota and its fair share (its allowance). A merchant under its fair share is never
 *   refused because others filled the sandbox.
 * - When a write is refused: only a create, past the merchant's quota, or past its fair share
 *   while the sandbox holds its budget. Journal, deliveries, keys and evidence are never refused:
 *   they keep their newest within their count caps, and the journal, the deliveries and the
 *   evidence their newest within the merchant's allowance, in bytes (StorageRoom): so no kind of
 *   request stores without bound, and what a merchant over its fair share holds is trimmed once
 *   the sandbox is full, never what one under it holds. The journal keeps its newest entry
 *   whatever it costs (one request's entry over at most), so a merchant always sees its last request.
 * - Enrolment is refused only when one more merchant holding data would make the fair share
 *   smaller than the least it keeps (leastFairShare: 256 KiB, less on a small budget or quota).
 */

/** The quota of each merchant and the budget of the whole sandbox, in bytes of stored records. */
export interface StorageLimits {
  readonly merchantBytes: number;
  readonly sandboxBytes: number;
}

export const MIB = 1024 * 1024;

/** SANDBOX_MERCHANT_STORAGE_MB and SANDBOX_STORAGE_MB when unset. */
export const DEFAULT_STORAGE_LIMITS: StorageLimits = { merchantBytes: 64 * MIB, sandboxBytes: 1024 * MIB };

/**
 * What a merchant's records take, what the sandbox's take, and how many merchants hold any
 * records (a shared store may answer the latter two a few seconds old).
 */
export interface StorageUsage {
  readonly merchantBytes: number;
  readonly sandboxBytes: number;
  readonly holders: number;
}

/** Why a create is refused: the merchant's quota, or its fair share of the sandbox's budget once the budget is reached. */
export type StorageRefusal = 'merchant_quota' | 'fair_share';

/** The smallest fair share enrolment keeps: enough for a few hundred payments with their journal. */
export const MIN_FAIR_SHARE_BYTES = 256 * 1024;

/** The budget divided by the merchants holding data (`holders`, the merchant asking counted if it holds nothing). */
export function fairShare(limits: StorageLimits, holders: number): number {
  return Math.floor(limits.sandboxBytes / Math.max(1, holders));
}

/** The holders a merchant's share is worked out with: itself counted even before it holds anything. */
export function holdersWith(usage: StorageUsage): number {
  return usage.holders + (usage.merchantBytes > 0 ? 0 : 1);
}

/** What the merchant may hold now: its quota while the sandbox is under its budget, else the smaller of its quota and its fair share. */
export function allowance(usage: StorageUsage, limits: StorageLimits): number {
  if (usage.sandboxBytes < limits.sandboxBytes) return limits.merchantBytes;
  return Math.min(limits.merchantBytes, fairShare(limits, holdersWith(usage)));
}

/** The smallest fair share enrolment keeps: MIN_FAIR_SHARE_BYTES, or less on a small budget (a 64th of it) or quota. */
export function leastFairShare(limits: StorageLimits): number {
  return Math.min(MIN_FAIR_SHARE_BYTES, limits.merchantBytes, Math.floor(limits.sandboxBytes / 64));
}

/** Enrolment refuses a merchant only when one more holding data would make the fair share smaller than the least it keeps. */
export function sharesTooSmall(holders: number, limits: StorageLimits): boolean {
  return fairShare(limits, holders + 1) < leastFairShare(limits);
}

/** The bytes of a stored text. */
export function textBytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** The bytes of a record kept as its JSON text. */
export function recordBytes(record: unknown): number {
  return textBytes(JSON.stringify(record));
}

/** Counted for a journal entry's numbers, flags and field names, whatever they hold (about what its JSON spends on them). */
export const JOURNAL_ENTRY_ALLOWANCE = 160;
/** Counted for a piece of readiness evidence's numbers, flags and field names. */
export const EVIDENCE_ALLOWANCE = 240;

/** A record counted from its texts: their UTF-8 bytes, plus `allowance` for everything else it holds. */
export function recordTextBytes(allowance: number, texts: readonly (string | null | undefined)[]): number {
  let bytes = allowance;
  for (const text of texts) if (typeof text === 'string') bytes += textBytes(text);
  return bytes;
}

/** The texts of a journal entry as a store keeps it. */
interface JournalEntryTexts {
  readonly method: string;
  readonly path: string;
  readonly requestBody: string | null;
  readonly responseBody?: string | null;
  readonly fault: string | null;
  readonly warnings: readonly string[];
  readonly requestId?: string;
  readonly idempotencyKey?: string;
  readonly answerRef?: string;
}

/** A journal entry: its texts, the answer only when it keeps it itself (one that refers to it counts the reference: answerTextBytes counts the text once). */
export function journalEntryBytes(e: JournalEntryTexts): number {
  let bytes = recordTextBytes(JOURNAL_ENTRY_ALLOWANCE, [e.method, e.path, e.requestBody, e.answerRef ?? e.responseBody, e.fault, e.requestId, e.idempotencyKey]);
  for (const warning of e.warnings) bytes += textBytes(warning);
  return bytes;
}

/** An answer text kept once for the journal entries that refer to it. */
export function answerTextBytes(text: string): number {
  return textBytes(text);
}

/** A piece of readiness evidence: its texts. */
export function evidenceBytes(s: { readonly ref: string; readonly method: string; readonly path: string; readonly fault: string | null; readonly idempotencyKey: string | null; readonly merchantRefNo: string | null; readonly bodyDigest: string | null; readonly paymentId: string | null; readonly paymentStatus: string | null }): number {
  return recordTextBytes(EVIDENCE_ALLOWANCE, [s.ref, s.method, s.path, s.fault, s.idempotencyKey, s.merchantRefNo, s.bodyDigest, s.paymentId, s.paymentStatus]);
}

/** Counted for a webhook delivery's numbers, state and field names; and for each attempt's. */
export const DELIVERY_ALLOWANCE = 200;
export const ATTEMPT_ALLOWANCE = 64;

/** A webhook attempt: its error text and its numbers (PostgreSQL adds it to its delivery's bytes as it records it). */
export function attemptBytes(a: { readonly error: string | null }): number {
  return recordTextBytes(ATTEMPT_ALLOWANCE, [a.error]);
}

/** A webhook delivery: its texts (the signed body the largest), and its attempts; the same figure on every store. */
export function deliveryBytes(d: { readonly id: string; readonly eventId: string; readonly eventType: string; readonly paymentId: string; readonly url: string; readonly body: string; readonly attempts: readonly { readonly error: string | null }[] }): number {
  let bytes = recordTextBytes(DELIVERY_ALLOWANCE, [d.id, d.eventId, d.eventType, d.paymentId, d.url, d.body]);
  for (const a of d.attempts) bytes += attemptBytes(a);
  return bytes;
}

/** An idempotency key: the key, the digest of its request and the answer once there is one. */
export function idempotencyKeyBytes(key: string, fingerprint: string, body: string | null): number {
  return textBytes(key) + textBytes(fingerprint) + (body === null ? 0 : textBytes(body));
}

/** True when the sandbox's records, with `incoming` more bytes, would pass its budget. */
export function passesBudget(sandboxBytes: number, incoming: number, limits: StorageLimits): boolean {
  return sandboxBytes + incoming > limits.sandboxBytes;
}

/**
 * What the merchant's payments may total, given what its other records (`partsBytes`) take: its
 * quota, or, when the create would pass the sandbox's budget, the smaller of it and its fair share.
 * A store that checks the merchant's payments in one statement (PostgreSQL) asks this itself.
 */
export function paymentRoom(partsBytes: number, usage: StorageUsage, incoming: number, limits: StorageLimits): { readonly bytes: number; readonly refusal: StorageRefusal } {
  if (!passesBudget(usage.sandboxBytes, incoming, limits)) return { bytes: limits.merchantBytes - partsBytes, refusal: 'merchant_quota' };
  const share = fairShare(limits, holdersWith(usage));
  if (share < limits.merchantBytes) return { bytes: share - partsBytes, refusal: 'fair_share' };
  return { bytes: limits.merchantBytes - partsBytes, refusal: 'merchant_quota' };
}

/** Whether a create of `incoming` bytes is refused, and why. */
export function storageRefusal(usage: StorageUsage & { readonly paymentBytes: number; readonly partsBytes: number }, incoming: number, limits: StorageLimits): StorageRefusal | null {
  const room = paymentRoom(usage.partsBytes, usage, incoming, limits);
  return usage.paymentBytes + incoming > room.bytes ? room.refusal : null;
}

/** Bytes per merchant and in all, kept as records come and go (the in-process stores' parts and payments). */
export class ByteTally {
  private readonly byMerchant = new Map<string, number>();
  total = 0;
  /** The store's count across all its tallies (storage-room.ts), kept too once linked. */
  private all: ByteTally | undefined;

  of(payeeId: string): number {
    return this.byMerchant.get(payeeId) ?? 0;
  }

  /** The merchants with any bytes here. */
  get holders(): number {
    return this.byMerchant.size;
  }

  /** From now on, counts into `all` too: a store links its tallies before it holds anything. */
  countInto(all: ByteTally): void {
    this.all = all;
  }

  /** Adds `bytes` (negative: removes) to the merchant's count. */
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

  /** Each merchant with its bytes. */
  entries(): IterableIterator<[string, number]> {
    return this.byMerchant.entries();
  }
}
