/** Requests per second per merchant, counted in fixed one-second windows of real time. */
export interface RateWindows {
  /** Counts a request; answers the seconds to wait when it is over the limit, else 0. */
  take(payeeId: string, limitPerSecond: number, nowMs: number): Promise<number>;
}

/** The windows of one process. */
export class MemoryRateWindows implements RateWindows {
  private readonly windows = new Map<string, { second: number; count: number }>();

  async take(payeeId: string, limitPerSecond: number, nowMs: number): Promise<number> {
    if (limitPerSecond <= 0) return 0;
    const second = Math.floor(nowMs / 1000);
    const window = this.windows.get(payeeId);
    if (!window || window.second !== second) {
      this.windows.set(payeeId, { second, count: 1 });
      return 0;
    }
    window.count++;
    return window.count > limitPerSecond ? 1 : 0;
  }
}
