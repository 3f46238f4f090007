/**
 * Requests held by `latency` or `timeout` faults, counted per merchant on this instance (SPEC 18):
 * one merchant holding many cannot tie up the server's connections and memory for everyone.
 */
import type { Clock } from './clock.js';

/** Held requests of one merchant at once on one instance; more are refused with 429. */
export const MAX_HELD_PER_MERCHANT = 32;

/** A place taken by one held request; `release` gives it back (again is a no-op). */
export interface HeldPlace {
  release(): void;
}

/** What refused a request: the cap, and the seconds until a place is sure to be free. */
export interface HeldRefusal {
  readonly cap: number;
  readonly retryAfterSeconds: number;
}

export class HeldRequests {
  /** Per merchant, the latest end (real ms) of each hold it has now. */
  private readonly holds = new Map<string, Set<{ readonly until: number }>>();

  constructor(
    private readonly now: Clock,
    readonly cap: number = MAX_HELD_PER_MERCHANT,
  ) {}

  /** Takes a place for a hold that ends at most `upToMs` from now, or says why not. */
  take(payeeId: string, upToMs: number): HeldPlace | HeldRefusal {
    let mine = this.holds.get(payeeId);
    if (mine && mine.size >= this.cap) return { cap: this.cap, retryAfterSeconds: this.secondsUntilFree(mine) };
    if (!mine) this.holds.set(payeeId, (mine = new Set()));
    const hold = { until: this.now() + upToMs };
    mine.add(hold);
    const holds = this.holds;
    let released = false;
    return {
      release() {
        if (released) return;
        released = true;
        mine.delete(hold);
        if (mine.size === 0 && holds.get(payeeId) === mine) holds.delete(payeeId);
      },
    };
  }

  /** How many requests of the merchant are held now. */
  count(payeeId: string): number {
    return this.holds.get(payeeId)?.size ?? 0;
  }

  /** The first hold to end at the latest frees a place then (sooner if its client gives up). */
  private secondsUntilFree(mine: Set<{ readonly until: number }>): number {
    let first = Infinity;
    for (const hold of mine) first = Math.min(first, hold.until);
    return Math.max(1, Math.ceil((first - this.now()) / 1000));
  }
}

export function isRefusal(taken: HeldPlace | HeldRefusal): taken is HeldRefusal {
  return 'cap' in taken;
}
