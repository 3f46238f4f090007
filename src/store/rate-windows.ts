// A sliding log, exact whatever the boundaries: at most `limit` stamps a key, small for the limits a sandbox rehearses.
export interface RateWindows {
  /** 0 when it passes (counted); else the whole seconds until one would, counting nothing. Callers ask only for a limit of 1 or more. */
  take(key: string, limit: number, windowMs: number, nowMs: number): Promise<number>;
  /** Counts nothing: for a gate checked before the attempt it counts is known to be one (a wrong admin token). */
  wait(key: string, limit: number, windowMs: number, nowMs: number): Promise<number>;
}

/** Rounded up, so a retry after that many seconds passes and one a second earlier does not. */
export function secondsUntilLeaves(oldestMs: number, windowMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((oldestMs + windowMs - nowMs) / 1000));
}

/** A client address seen once must not stay for ever. */
const SWEEP_EVERY = 10_000;

/** A head index instead of a shift per request. */
interface PassedLog {
  readonly windowMs: number;
  stamps: number[];
  head: number;
}

export class MemoryRateWindows implements RateWindows {
  private readonly logs = new Map<string, PassedLog>();
  private takes = 0;

  async take(key: string, limit: number, windowMs: number, nowMs: number): Promise<number> {
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
    if (!log || log.windowMs !== windowMs) return 0;
    const { stamps } = log;
    let inside = 0;
    for (let i = stamps.length - 1; i >= log.head && stamps[i]! > nowMs - windowMs; i--) inside++;
    return inside >= limit ? secondsUntilLeaves(stamps[stamps.length - limit]!, windowMs, nowMs) : 0;
  }

  private sweep(nowMs: number): void {
    for (const [key, log] of this.logs) {
      const newest = log.stamps[log.stamps.length - 1];
      if (newest === undefined || newest <= nowMs - log.windowMs) this.logs.delete(key);
    }
  }
}

/** The clock may step back. */
function insertInOrder(stamps: number[], stamp: number): void {
  let at = stamps.length;
  while (at > 0 && stamps[at - 1]! > stamp) at--;
  stamps.splice(at, 0, stamp);
}
