/**
 * Bytes of request bodies each merchant may send per second on one instance (a token bucket
 * holding one second's worth). Reading, parsing, validating and signing a body cost CPU in
 * proportion to its size, and a 401 with a signature hint answers about as much again, so this
 * bounds what one merchant's large bodies can take from the others (SPEC 18). Per instance,
 * because CPU is; on the sandbox's injected clock.
 */
export class BodyBudget {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    /** 0 turns the budget off. */
    readonly bytesPerSecond: number,
    private readonly now: () => number,
  ) {}

  /** Takes `bytes` of the merchant's budget; answers 0, or the whole seconds to wait when it is spent (then nothing is taken). */
  take(payeeId: string, bytes: number): number {
    if (this.bytesPerSecond <= 0 || bytes <= 0) return 0;
    const now = this.now();
    let bucket = this.buckets.get(payeeId);
    if (!bucket) {
      // Merchants whose buckets are full again need no entry: the map holds only recent senders.
      if (this.buckets.size >= 10_000) this.forgetFull(now);
      this.buckets.set(payeeId, (bucket = { tokens: this.bytesPerSecond, at: now }));
    }
    bucket.tokens = Math.min(this.bytesPerSecond, bucket.tokens + (Math.max(0, now - bucket.at) / 1000) * this.bytesPerSecond);
    bucket.at = now;
    if (bucket.tokens >= bytes) {
      bucket.tokens -= bytes;
      return 0;
    }
    return Math.max(1, Math.ceil((bytes - bucket.tokens) / this.bytesPerSecond));
  }

  private forgetFull(now: number): void {
    for (const [id, bucket] of this.buckets) if (now - bucket.at >= 1000) this.buckets.delete(id);
  }
}
