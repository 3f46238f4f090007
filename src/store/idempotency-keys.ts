// SPEC 16: a retry gets the first answer again instead of making a second change.
import { createHash } from 'node:crypto';
import { MAX_LATENCY_MS } from '../domain/faults.js';
import { ByteTally, idempotencyKeyBytes, textBytes } from './storage-quota.js';
import type { LogLines, LogRecord } from './file-records.js';

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
  clear(payeeId: string): Promise<void>;
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
  leaseUntil: number;
  answer: { readonly code: number; readonly body: string } | null;
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

/** A Map keeps insertion order, so the oldest go first. */
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

  /** Stops at the first fresh key: keys are kept about in the order of their clock. */
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

export class MemoryIdempotencyKeys implements IdempotencyKeys {
  private readonly byMerchant = new Map<string, MerchantKeys>();
  readonly bytes = new ByteTally();

  constructor(private readonly log?: LogLines) {}

  /** A claim is never written: after a restart nobody runs it, so its retry must run. */
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

  /** Written before the answer is sent, so a retry after a restart gets it. */
  async finish(payeeId: string, key: string, code: number, body: string): Promise<void> {
    const keys = this.byMerchant.get(payeeId);
    const kept = keys?.keys.get(key);
    if (!keys || !kept || kept.answer !== null) return;
    keys.answer(key, kept, code, body);
    // An answer larger than the bounds allow pushes its own key out.
    if (keys.keys.get(key) !== kept) return;
    // A lost line takes the answer with it, so this process runs a retry as a restarted one would.
    const lost = () => void (keys.keys.get(key) === kept && keys.drop(key));
    this.log?.record({ t: 'key', payeeId, v: { key, fingerprint: kept.fingerprint, createdAt: kept.createdAt, code, body } }, { now: true, lost });
  }

  restore(payeeId: string, answered: AnsweredKey): void {
    const { key, fingerprint, createdAt, code, body } = answered;
    this.merchant(payeeId).set(key, { fingerprint, createdAt, leaseUntil: 0, answer: { code, body } });
  }

  /** Claims are left out: after a restart nobody runs them. */
  *records(): Generator<LogRecord> {
    for (const [payeeId, keys] of this.byMerchant) {
      for (const [key, { fingerprint, createdAt, answer }] of keys.keys) if (answer) yield { t: 'key', payeeId, v: { key, fingerprint, createdAt, code: answer.code, body: answer.body } };
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
