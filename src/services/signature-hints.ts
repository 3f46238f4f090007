/**
 * The signature doctor's hints, bounded so that no merchant can spend the instance's CPU on them:
 * a hint is worked out at most once per body (the same body again gets the hint kept) and at most
 * HINTS_PER_SECOND times a second per merchant on this instance, and only within the merchant's
 * fair share of the instance's budget for costly work (costly-work.ts); past either it is
 * withheld, and the hint says why and when the next can be given.
 */
import { createHash } from 'node:crypto';
import { diagnose, signatureHint } from '../domain/signature-doctor.js';
import type { Clock } from './clock.js';
import type { CostlyWorkBudget } from './costly-work.js';

export const HINTS_PER_SECOND = 10;
const WINDOW_MS = 1000;
/** Hints kept for bodies sent again: short texts, so a few hundred cost little. */
const HINTS_KEPT = 256;

export function withheldHint(waitMs: number): string {
  return (
    `Hint withheld: the sandbox works out at most ${HINTS_PER_SECOND} signature hints a second per merchant (each costs CPU that every merchant shares), ` +
    `and this merchant had its ${HINTS_PER_SECOND} in the last second. The next can be given in ${waitMs} ms; meanwhile compare your string to sign ` +
    'with string_to_sign (the salt shown as <signing_salt>) character by character.'
  );
}

/** The hint when the instance's budget for costly work is taken: `drawing` merchants share it. */
export function sharedBudgetHint(waitMs: number, drawing: number): string {
  return (
    `Hint withheld: signature hints draw on this instance's CPU budget for costly work, shared fairly by the merchants using it (${drawing} now), ` +
    `and this merchant's share is spent. The next can be given in about ${waitMs} ms; meanwhile compare your string to sign ` +
    'with string_to_sign (the salt shown as <signing_salt>) character by character.'
  );
}

export class SignatureHints {
  /** Hints worked out, by merchant and body, newest last. */
  private readonly kept = new Map<string, string>();
  /** Per merchant, when its latest hints were worked out, oldest first (at most HINTS_PER_SECOND). */
  private readonly workedOut = new Map<string, number[]>();
  private sweptAt = 0;

  constructor(
    private readonly now: Clock,
    private readonly budget: CostlyWorkBudget,
  ) {}

  /** The signature_hint for a mismatch of `sign` on this merchant's `body`. */
  hintFor(payeeId: string, body: Readonly<Record<string, unknown>>, salt: string, sign: string): string {
    // The body as sent (its order too, which the doctor reads), sign included.
    const key = `${payeeId} ${createHash('sha256').update(JSON.stringify(body)).digest('base64')}`;
    const known = this.kept.get(key);
    if (known !== undefined) return known;
    const now = this.now();
    const times = (this.workedOut.get(payeeId) ?? []).filter((at) => now - at < WINDOW_MS);
    if (times.length >= HINTS_PER_SECOND) return withheldHint(Math.max(1, times[0]! + WINDOW_MS - now));
    const hint = this.budget.run(payeeId, () => {
      const { mistakes, untried } = diagnose(body, salt, sign);
      return signatureHint(mistakes, untried);
    });
    if (hint === undefined) return sharedBudgetHint(this.budget.waitFor(payeeId), this.budget.drawing);
    this.workedOut.set(payeeId, [...times, now]);
    this.sweep(now);
    if (this.kept.size >= HINTS_KEPT) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(key, hint);
    return hint;
  }

  /** Forgets, at most once a window, merchants with no hint in the last one: the map stays the size of the busy ones. */
  private sweep(now: number): void {
    if (now - this.sweptAt < WINDOW_MS) return;
    this.sweptAt = now;
    for (const [payeeId, times] of this.workedOut) if (now - times[times.length - 1]! >= WINDOW_MS) this.workedOut.delete(payeeId);
  }
}
