// SPEC 16: a retry gets the first answer again instead of making a second change.
import { createHash } from 'node:crypto';
import { MAX_LATENCY_MS } from '../domain/faults.js';
import { MerchantLists } from './merchant-lists.js';
import { idempotencyKeyBytes } from './storage-quota.js';
import type { LogRecord, LogSlot } from './file-records.js';

export type IdempotencyBegin =
  /** The caller must then call `finish` or `forget`. */
  | { readonly kind: 'started' }
  | { readonly kind: 'in_progress' }
  /** Another route or body. */
  | { readonly kind: 'mismatch' }
  | { readonly kind: 'done'; readonly code: number; readonly body: string };

export interface IdempotencyKeys {
  /** A claim's lease runs on real time (`realNow`), so a claim of a died instance is taken over. */
  begin(payeeId: string, key: string, fingerprint: string, now: number, realNow: number): Promise<IdempotencyBegin>;
  finish(payeeId: string, key: string, code: number, body: string): Promise<void>;
  /** Nothing was committed, so the retry must run. */
  forget(payeeId: string, key: string): Promise<void>;
}

/** On the merchant's clock, so a clock advance expires keys as time would. */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/** The claim is taken before an injected latency, so it outlasts the longest one. */
export const IDEMPOTENCY_LEASE_MS = MAX_LATENCY_MS + 60_000;
export const IDEMPOTENCY_KEYS_PER_MERCHANT = 1_000;
/** Characters stand for bytes: answers are JSON, nearly all ASCII. */
export const IDEMPOTENCY_ANSWER_CHARS_PER_MERCHANT = 2 * 1024 * 1024;

interface KeptKey {
  readonly fingerprint: string;
  readonly createdAt: number;
  readonly leaseUntil: number;
  readonly answer: { readonly code: number; readonly body: string } | null;
}

export interface AnsweredKey {
  readonly key: string;
  /** A digest: the fingerprint holds the whole request body. */
  readonly fingerprint: string;
  readonly createdAt: number;
  readonly code: number;
  readonly body: string;
}

/** One verdict for every store, so they cannot drift. */
export function judgeKept(kept: KeptKey, fingerprint: string, now: number, realNow: number): IdempotencyBegin | 'claim' {
  if (kept.createdAt + IDEMPOTENCY_TTL_MS <= now) return 'claim';
  if (kept.answer === null && kept.leaseUntil <= realNow) return 'claim';
  if (kept.fingerprint !== fingerprint) return { kind: 'mismatch' };
  if (kept.answer === null) return { kind: 'in_progress' };
  return { kind: 'done', code: kept.answer.code, body: kept.answer.body };
}

function digestOf(fingerprint: string): string {
  return createHash('sha256').update(fingerprint).digest('base64url');
}

export class MemoryIdempotencyKeys implements IdempotencyKeys {
  readonly kept = new MerchantLists<string, KeptKey>({
    cap: IDEMPOTENCY_KEYS_PER_MERCHANT,
    keyed: true,
    bytesOf: (kept, key) => idempotencyKeyBytes(key, kept.fingerprint, kept.answer?.body ?? null),
    weight: { of: (kept) => kept.answer?.body.length ?? 0, max: IDEMPOTENCY_ANSWER_CHARS_PER_MERCHANT },
  });

  constructor(private readonly slot: LogSlot) {}

  /**
   * A claim is never written: after a restart nobody runs it, so its retry must run. An expired key
   * is claimed afresh, and others stay until a bound pushes them out, as on PostgreSQL: dropped here
   * without a line, a restart would bring them back.
   */
  async begin(payeeId: string, key: string, fingerprint: string, now: number, realNow: number): Promise<IdempotencyBegin> {
    const digest = digestOf(fingerprint);
    const kept = this.kept.get(payeeId, key);
    if (kept) {
      const verdict = judgeKept(kept, digest, now, realNow);
      if (verdict !== 'claim') return verdict;
    }
    this.claim(payeeId, key, { fingerprint: digest, createdAt: now, leaseUntil: realNow + IDEMPOTENCY_LEASE_MS, answer: null });
    return { kind: 'started' };
  }

  /** Written before the answer is sent, so a retry after a restart gets it. */
  async finish(payeeId: string, key: string, code: number, body: string): Promise<void> {
    const claimed = this.kept.get(payeeId, key);
    if (!claimed || claimed.answer !== null) return;
    const kept = { ...claimed, answer: { code, body } };
    this.kept.put(payeeId, key, kept);
    // An answer larger than the bounds allow pushes its own key out.
    if (this.kept.get(payeeId, key) !== kept) return;
    // A lost line takes the answer with it, so this process runs a retry as a restarted one would.
    const lost = () => void (this.kept.get(payeeId, key) === kept && this.kept.remove(payeeId, key));
    this.slot.log?.record({ t: 'key', payeeId, v: { key, fingerprint: kept.fingerprint, createdAt: kept.createdAt, code, body } }, { now: true, lost });
  }

  restore(payeeId: string, answered: AnsweredKey): void {
    const { key, fingerprint, createdAt, code, body } = answered;
    this.claim(payeeId, key, { fingerprint, createdAt, leaseUntil: 0, answer: { code, body } });
  }

  /** Claims are left out: after a restart nobody runs them. */
  *records(): Generator<LogRecord> {
    for (const payeeId of this.kept.merchants()) {
      for (const [key, { fingerprint, createdAt, answer }] of this.kept.oldestFirst(payeeId)) {
        if (answer) yield { t: 'key', payeeId, v: { key, fingerprint, createdAt, code: answer.code, body: answer.body } };
      }
    }
  }

  async forget(payeeId: string, key: string): Promise<void> {
    if (this.kept.get(payeeId, key)?.answer === null) this.kept.remove(payeeId, key);
  }

  erase(payeeId: string): void {
    this.kept.clear(payeeId);
  }

  /** As the newest: a key claimed again goes to the end of the merchant's keys. */
  private claim(payeeId: string, key: string, kept: KeptKey): void {
    this.kept.remove(payeeId, key);
    this.kept.put(payeeId, key, kept);
  }
}
