/** Requests counted per key (a merchant, a client address) in fixed windows of real time. */
export interface RateWindows {
  /**
   * Counts a request under `key` in the window of `windowMs` that holds `nowMs`; answers the whole
   * seconds to wait when this one is over `limit`, else 0. A limit of 0 or less counts nothing.
   */
  take(key: string, limit: number, windowMs: number, nowMs: number): Promise<number>;
}

/** Whole seconds from `nowMs` to the end of its window (at least 1). */
export function secondsLeft(windowMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((windowMs - (nowMs % windowMs)) / 1000));
}

/** The windows of one process. */
export class MemoryRateWindows implements RateWindows {
  private readonly windows = new Map<string, { window: number; count: number }>();

  async take(key: string, limit: number, windowMs: number, nowMs: number): Promise<number> {
    if (limit <= 0) return 0;
    const window = Math.floor(nowMs / windowMs);
    const current = this.windows.get(key);
    if (!current || current.window !== window) {
      // One entry per key: a new window replaces the old one, so the map holds keys seen, not windows.
      this.windows.set(key, { window, count: 1 });
      return 0;
    }
    current.count++;
    return current.count > limit ? secondsLeft(windowMs, nowMs) : 0;
  }
}
