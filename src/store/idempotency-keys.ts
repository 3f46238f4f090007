/**
 * Idempotency keys (SPEC 16): per merchant, the first answer to a POST sent with an
 * `Idempotency-Key`, kept for 24 hours of the merchant's clock, so a retry gets that answer
 * again instead of making a second change. The in-process keys below serve the memory and file
 * stores; a shared store keeps them in a table.
 */
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
/** How long a claim holds without an answer before a retry may take it over (a crashed instance). */
export const IDEMPOTENCY_LEASE_MS = 60_000;
/** Keys kept per merchant; the oldest go first. */
export const IDEMPOTENCY_KEYS_PER_MERCHANT = 1_000;

interface KeptKey {
  readonly fingerprint: string;
  readonly createdAt: number;
  leaseUntil: number;
  answer: { readonly code: number; readonly body: string } | null;
}

/** What `begin` decides about a key already kept. */
export function judgeKept(kept: { fingerprint: string; createdAt: number; leaseUntil: number; answer: { code: number; body: string } | null }, fingerprint: string, now: number, realNow: number): IdempotencyBegin | 'claim' {
  if (kept.createdAt + IDEMPOTENCY_TTL_MS <= now) return 'claim';
  if (kept.answer === null && kept.leaseUntil <= realNow) return 'claim';
  if (kept.fingerprint !== fingerprint) return { kind: 'mismatch' };
  if (kept.answer === null) return { kind: 'in_progress' };
  return { kind: 'done', code: kept.answer.code, body: kept.answer.body };
}

/** The keys of one process: a map per merchant in insertion order, bounded. */
export class MemoryIdempotencyKeys implements IdempotencyKeys {
  private readonly byMerchant = new Map<string, Map<string, KeptKey>>();

  async begin(payeeId: string, key: string, fingerprint: string, now: number, realNow: number): Promise<IdempotencyBegin> {
    let keys = this.byMerchant.get(payeeId);
    if (!keys) this.byMerchant.set(payeeId, (keys = new Map()));
    const kept = keys.get(key);
    if (kept) {
      const verdict = judgeKept(kept, fingerprint, now, realNow);
      if (verdict !== 'claim') return verdict;
      keys.delete(key);
    }
    keys.set(key, { fingerprint, createdAt: now, leaseUntil: realNow + IDEMPOTENCY_LEASE_MS, answer: null });
    if (keys.size > IDEMPOTENCY_KEYS_PER_MERCHANT) keys.delete(keys.keys().next().value!);
    return { kind: 'started' };
  }

  async finish(payeeId: string, key: string, code: number, body: string): Promise<void> {
    const kept = this.byMerchant.get(payeeId)?.get(key);
    if (kept && kept.answer === null) kept.answer = { code, body };
  }

  async forget(payeeId: string, key: string): Promise<void> {
    const keys = this.byMerchant.get(payeeId);
    if (keys?.get(key)?.answer === null) keys.delete(key);
  }

  async clear(payeeId: string): Promise<void> {
    this.byMerchant.delete(payeeId);
  }
}
