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
 * - When a write is refused: only a create. It is refused when the sandbox's records with it
 *   would pass the budget, or the merchant's would pass its quota. Journal, deliveries, keys and
 *   evidence are never refused: they keep their newest within their count caps, and what they
 *   hold counts toward the quota, so a merchant near it meets the refusal at its next create.
 * - Enrolment is refused once the sandbox holds its budget.
 */

/** The quota of each merchant and the budget of the whole sandbox, in bytes of stored records. */
export interface StorageLimits {
  readonly merchantBytes: number;
  readonly sandboxBytes: number;
}

export const MIB = 1024 * 1024;

/** SANDBOX_MERCHANT_STORAGE_MB and SANDBOX_STORAGE_MB when unset. */
export const DEFAULT_STORAGE_LIMITS: StorageLimits = { merchantBytes: 64 * MIB, sandboxBytes: 1024 * MIB };

/** What a merchant's records take, and what the sandbox's take (a shared store may answer the latter a few seconds old). */
export interface StorageUsage {
  readonly merchantBytes: number;
  readonly sandboxBytes: number;
}

/** Why a create is refused: the merchant's quota or the sandbox's budget. */
export type StorageRefusal = 'merchant_quota' | 'sandbox_budget';

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

/** Enrolment adds a merchant only while the sandbox holds less than its budget. */
export function sandboxFull(sandboxBytes: number, limits: StorageLimits): boolean {
  return sandboxBytes >= limits.sandboxBytes;
}

/** What the merchant's payments may total, given what its other records (`partsBytes`) take. */
export function paymentRoom(partsBytes: number, limits: StorageLimits): number {
  return limits.merchantBytes - partsBytes;
}

/**
 * Whether a create of `incoming` bytes is refused, and why. A store that checks the merchant's
 * payments in one statement (PostgreSQL) asks passesBudget and paymentRoom itself: the same rule.
 */
export function storageRefusal(usage: { readonly paymentBytes: number; readonly partsBytes: number; readonly sandboxBytes: number }, incoming: number, limits: StorageLimits): StorageRefusal | null {
  if (passesBudget(usage.sandboxBytes, incoming, limits)) return 'sandbox_budget';
  if (usage.paymentBytes + incoming > paymentRoom(usage.partsBytes, limits)) return 'merchant_quota';
  return null;
}

/** Bytes per merchant and in all, kept as records come and go (the in-process stores' parts and payments). */
export class ByteTally {
  private readonly byMerchant = new Map<string, number>();
  total = 0;

  of(payeeId: string): number {
    return this.byMerchant.get(payeeId) ?? 0;
  }

  /** Adds `bytes` (negative: removes) to the merchant's count. */
  add(payeeId: string, bytes: number): void {
    if (bytes === 0) return;
    const next = this.of(payeeId) + bytes;
    if (next === 0) this.byMerchant.delete(payeeId);
    else this.byMerchant.set(payeeId, next);
    this.total += bytes;
  }

  clear(payeeId: string): void {
    this.total -= this.of(payeeId);
    this.byMerchant.delete(payeeId);
  }
}

/** A merchant's usage in the in-process stores: its payments, its parts (journal, deliveries, keys, evidence), and the sandbox's. */
export function tallyUsage(payeeId: string, payments: ByteTally, parts: readonly ByteTally[]): StorageUsage & { readonly paymentBytes: number; readonly partsBytes: number } {
  let partsBytes = 0;
  let sandboxBytes = payments.total;
  for (const part of parts) {
    partsBytes += part.of(payeeId);
    sandboxBytes += part.total;
  }
  const paymentBytes = payments.of(payeeId);
  return { paymentBytes, partsBytes, merchantBytes: paymentBytes + partsBytes, sandboxBytes };
}
