/**
 * Idempotency keys (SPEC 16): per merchant, the first answer to a POST sent with an
 * `Idempotency-Key`, kept for 24 hours of the merchant's clock, so a retry gets that answer
 * again instead of making a second change. The in-process keys below serve the memory store, and
 * the file store in front of its files (file-parts.ts); a shared store keeps them in a table.
 */
import { createHash } from 'node:crypto';
import { MAX_LATENCY_MS } from '../domain/faults.js';
import { ByteTally, idempotencyKeyBytes, textBytes } from './storage-quota.js';

export type IdempotencyBegin =
  /** The caller runs the request, then calls `finish` or `forget`. */
  | { readonly kind: 'started' }
  /** Another request with this key has not finished yet. */
  | { readonly kind: 'in_progress' }
  /** The key was used for another request (another route or body). */
  | { readonly kind: 'mismatch' }
  /** The answer to replay. */
  | { readonly kind: 'done'; readonly code: number; readonly body: string };

export interface IdempotencyKeys {
  /**
   * Claims `key` for a request whose route and parsed body give `fingerprint`, at `now` (the
   * merchant's sandbox ms) and `realNow` (real ms, for the claim's lease). A key older than a
   * day of the merchant's clock, or a claim whose lease ended (an instance died), is claimed
   * afresh.
   */
  begin(payeeId: string, key: string, fingerprint: string, now: number, realNow: number): Promise<IdempotencyBegin>;
  /** Keeps the answer of a claimed key. */
  finish(payeeId: string, key: string, code: number, body: string): Promise<void>;
  /** Lets a claimed key go without an answer (nothing was committed: the retry runs). */
  forget(payeeId: string, key: string): Promise<void>;
  /** Erases the merchant's keys (a reset). */
  clear(payeeId: string): Promise<void>;
}

/** A day of the merchant's clock. */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/**
 * How long a claim holds without an answer before a retry may take it over (a crashed instance):
 * the claim is taken before an injected latency, so it outlasts the longest one by a minute.
 */
export const IDEMPOTENCY_LEASE_MS = MAX_LATENCY_MS + 60_000;
/** Keys kept per merchant; the oldest go first. */
export const IDEMPOTENCY_KEYS_PER_MERCHANT = 1_000;
/** Characters of kept answers per merchant (~bytes: answers are JSON, nearly all ASCII); the oldest go first. */
export const IDEMPOTENCY_ANSWER_CHARS_PER_MERCHANT = 2 * 1024 * 1024;

interface KeptKey {
  readonly fingerprint: string;
  readonly createdAt: number;
  leaseUntil: number;
  answer: { readonly code: number; readonly body: string } | null;
}

/** A key with its answer, as a file holds it. */
export interface AnsweredKey {
  readonly key: string;
  /** The digest of the request's fingerprint. */
  readonly fingerprint: string;
  readonly createdAt: number;
  readonly code: number;
  readonly body: string;
}

/** What `begin` decides about a key already kept. */
export function judgeKept(kept: { fingerprint: string; createdAt: number; leaseUntil: number; answer: { code: number; body: string } | null }, fingerprint: string, now: number, realNow: number): IdempotencyBegin | 'claim' {
  if (kept.createdAt + IDEMPOTENCY_TTL_MS <= now) return 'claim';
  if (kept.answer === null && kept.leaseUntil <= realNow) return 'claim';
  if (kept.fingerprint !== fingerprint) return { kind: 'mismatch' };
  if (kept.answer === null) return { kind: 'in_progress' };
  return { kind: 'done', code: kept.answer.code, body: kept.answer.body };
}

/** A fingerprint holds the whole request body: its digest is what is kept (and compared). */
function digestOf(fingerprint: string): string {
  return createHash('sha256').update(fingerprint).digest('base64url');
}

/** One merchant's keys in insertion order (the oldest first), with the characters of their answers and their stored bytes. */
class MerchantKeys {
  readonly keys = new Map<string, KeptKey>();
  private chars = 0;

  constructor(
    private readonly payeeId: string,
    private readonly bytes: ByteTally,
  ) {}

  set(key: string, kept: KeptKey): void {
    this.drop(key);
    this.keys.set(key, kept);
    this.chars += kept.answer?.body.length ?? 0;
    this.bytes.add(this.payeeId, idempotencyKeyBytes(key, kept.fingerprint, kept.answer?.body ?? null));
    this.trim();
  }

  answer(key: string, kept: KeptKey, code: number, body: string): void {
    kept.answer = { code, body };
    this.chars += body.length;
    this.bytes.add(this.payeeId, textBytes(body));
    this.trim();
  }

  drop(key: string): void {
    const kept = this.keys.get(key);
    if (!kept) return;
    this.chars -= kept.answer?.body.length ?? 0;
    this.bytes.add(this.payeeId, -idempotencyKeyBytes(key, kept.fingerprint, kept.answer?.body ?? null));
    this.keys.delete(key);
  }

  /** Keys older than a day of the merchant's clock go (keys are kept about in the order of their clock). */
  dropExpired(now: number): void {
    for (const [key, kept] of this.keys) {
      if (kept.createdAt + IDEMPOTENCY_TTL_MS > now) break;
      this.drop(key);
    }
  }

  private trim(): void {
    while (this.keys.size > IDEMPOTENCY_KEYS_PER_MERCHANT || this.chars > IDEMPOTENCY_ANSWER_CHARS_PER_MERCHANT) this.drop(this.keys.keys().next().value!);
  }
}

/** The keys of one process: per merchant, bounded in number, in the characters of their answers and in time. */
export class MemoryIdempotencyKeys implements IdempotencyKeys {
  private readonly byMerchant = new Map<string, MerchantKeys>();
  /** The stored bytes of the keys kept, per merchant (storage quota). */
  readonly bytes = new ByteTally();

  async begin(payeeId: string, key: string, fingerprint: string, now: number, realNow: number): Promise<IdempotencyBegin> {
    const keys = this.merchant(payeeId);
    const digest = digestOf(fingerprint);
    const kept = keys.keys.get(key);
    if (kept) {
      const verdict = judgeKept(kept, digest, now, realNow);
      if (verdict !== 'claim') return verdict;
    }
    keys.dropExpired(now);
    keys.set(key, { fingerprint: digest, createdAt: now, leaseUntil: realNow + IDEMPOTENCY_LEASE_MS, answer: null });
    return { kind: 'started' };
  }

  async finish(payeeId: string, key: string, code: number, body: string): Promise<void> {
    this.answer(payeeId, key, code, body);
  }

  /** Keeps the answer of a claimed key; answers the key as kept, or undefined when it is not claimed (any more). */
  answer(payeeId: string, key: string, code: number, body: string): AnsweredKey | undefined {
    const keys = this.byMerchant.get(payeeId);
    const kept = keys?.keys.get(key);
    if (!keys || !kept || kept.answer !== null) return undefined;
    keys.answer(key, kept, code, body);
    // Over the bounds, the oldest keys went: this one too, when its answer alone is larger than they allow.
    return keys.keys.get(key) === kept ? { key, fingerprint: kept.fingerprint, createdAt: kept.createdAt, code, body } : undefined;
  }

  /** Keeps a key read back from a file. */
  restore(payeeId: string, answered: AnsweredKey): void {
    const { key, fingerprint, createdAt, code, body } = answered;
    this.merchant(payeeId).set(key, { fingerprint, createdAt, leaseUntil: 0, answer: { code, body } });
  }

  /** Every answered key, oldest first per merchant (claims in progress are not): restoring them in this order rebuilds the keys. */
  *answered(): Generator<readonly [string, AnsweredKey]> {
    for (const [payeeId, keys] of this.byMerchant) {
      for (const [key, { fingerprint, createdAt, answer }] of keys.keys) if (answer) yield [payeeId, { key, fingerprint, createdAt, code: answer.code, body: answer.body }];
    }
  }

  async forget(payeeId: string, key: string): Promise<void> {
    const keys = this.byMerchant.get(payeeId);
    if (keys?.keys.get(key)?.answer === null) keys.drop(key);
  }

  async clear(payeeId: string): Promise<void> {
    this.byMerchant.delete(payeeId);
    this.bytes.clear(payeeId);
  }

  private merchant(payeeId: string): MerchantKeys {
    let keys = this.byMerchant.get(payeeId);
    if (!keys) this.byMerchant.set(payeeId, (keys = new MerchantKeys(payeeId, this.bytes)));
    return keys;
  }
}
