/**
 * Requests counted per key (a merchant, a client address) in a sliding window of real time: a
 * request passes when fewer than `limit` requests passed in the `windowMs` before it (a sliding
 * log). The guarantee is exact: no span of `windowMs` ever holds more than `limit` passed
 * requests, whatever the boundaries, and a refused request is told the real wait. The price is
 * one time stamp per request passed within the window, at most `limit` per key: small for the
 * limits a sandbox rehearses (a few requests a second, 10 enrolments a minute).
 */
export interface RateWindows {
  /**
   * Counts a request under `key` at `nowMs` when fewer than `limit` passed in the `windowMs`
   * before it (those at `nowMs - windowMs` or earlier have left), and answers 0; else counts
   * nothing and answers the whole seconds (at least 1) until one would pass. A limit of 0 or
   * less counts nothing.
   */
  take(key: string, limit: number, windowMs: number, nowMs: number): Promise<number>;
  /** What `take` would answer now, counting nothing: a gate checked before the attempt it counts is known to be one (a wrong admin token). */
  wait(key: string, limit: number, windowMs: number, nowMs: number): Promise<number>;
}

/**
 * Whole seconds (at least 1) until a request passed at `oldestMs` leaves the window: a retry
 * after that many seconds passes (unless others took the room), one a second earlier does not.
 */
export function secondsUntilLeaves(oldestMs: number, windowMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((oldestMs + windowMs - nowMs) / 1000));
}

/** Keys whose requests have all left their window are dropped after this many takes. */
const SWEEP_EVERY = 10_000;

/** The stamps of one key's passed requests, oldest first; those before `head` have left. */
interface PassedLog {
  readonly windowMs: number;
  stamps: number[];
  head: number;
}

/** The windows of one process. */
export class MemoryRateWindows implements RateWindows {
  private readonly logs = new Map<string, PassedLog>();
  private takes = 0;

  async take(key: string, limit: number, windowMs: number, nowMs: number): Promise<number> {
    if (limit <= 0) return 0;
    if (++this.takes % SWEEP_EVERY === 0) this.sweep(nowMs);
    let log = this.logs.get(key);
    if (!log || log.windowMs !== windowMs) this.logs.set(key, (log = { windowMs, stamps: [], head: 0 }));
    const { stamps } = log;
    while (log.head < stamps.length && stamps[log.head]! <= nowMs - windowMs) log.head++;
    if (log.head > 64 && log.head * 2 > stamps.length) {
      stamps.splice(0, log.head);
      log.head = 0;
    }
    const inside = stamps.length - log.head;
    // Only the newest `limit` count: the one of them that leaves first makes room.
    if (inside >= limit) return secondsUntilLeaves(stamps[stamps.length - limit]!, windowMs, nowMs);
    insertInOrder(stamps, nowMs);
    return 0;
  }

  async wait(key: string, limit: number, windowMs: number, nowMs: number): Promise<number> {
    const log = this.logs.get(key);
    if (limit <= 0 || !log || log.windowMs !== windowMs) return 0;
    const { stamps } = log;
    let inside = 0;
    for (let i = stamps.length - 1; i >= log.head && stamps[i]! > nowMs - windowMs; i--) inside++;
    return inside >= limit ? secondsUntilLeaves(stamps[stamps.length - limit]!, windowMs, nowMs) : 0;
  }

  /** Drops the keys whose passed requests have all left their window (a client address seen once stays no longer). */
  private sweep(nowMs: number): void {
    for (const [key, log] of this.logs) {
      const newest = log.stamps[log.stamps.length - 1];
      if (newest === undefined || newest <= nowMs - log.windowMs) this.logs.delete(key);
    }
  }
}

/** Appends `stamp`, or inserts it in order when the clock stepped back. */
function insertInOrder(stamps: number[], stamp: number): void {
  let at = stamps.length;
  while (at > 0 && stamps[at - 1]! > stamp) at--;
  stamps.splice(at, 0, stamp);
}
