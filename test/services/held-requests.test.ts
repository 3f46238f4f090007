/** src/services/held-requests.ts: the per-merchant count of held requests, on a clock the test moves. */
import { describe, expect, it } from 'vitest';
import { HeldRequests, isRefusal, MAX_HELD_PER_MERCHANT } from '../../src/services/held-requests.js';
import type { HeldPlace } from '../../src/services/held-requests.js';

function held(cap = 2) {
  const clock = { now: 1_000_000 };
  return { clock, held: new HeldRequests(() => clock.now, cap) };
}

describe('HeldRequests', () => {
  it('the cap is 32 by default', () => {
    expect(MAX_HELD_PER_MERCHANT).toBe(32);
    expect(new HeldRequests(() => 0).cap).toBe(32);
  });

  it('counts per merchant: one at its cap is refused, another is not', () => {
    const { held: h } = held();
    h.take('a', 1000);
    h.take('a', 1000);
    expect(isRefusal(h.take('a', 1000))).toBe(true);
    expect(isRefusal(h.take('b', 1000))).toBe(false);
    expect(h.count('a')).toBe(2);
    expect(h.count('b')).toBe(1);
  });

  it('a refusal says the cap and the seconds until the first hold is sure to end', () => {
    const { held: h, clock } = held();
    h.take('a', 120_000);
    h.take('a', 2_500);
    clock.now += 1_000;
    expect(h.take('a', 10)).toEqual({ cap: 2, retryAfterSeconds: 2 });
    // Never less than a second, even past the planned end.
    clock.now += 10_000;
    expect(h.take('a', 10)).toEqual({ cap: 2, retryAfterSeconds: 1 });
  });

  it('a release gives the place back once; releasing again changes nothing', () => {
    const { held: h } = held();
    const first = h.take('a', 1000) as HeldPlace;
    h.take('a', 1000);
    first.release();
    first.release();
    expect(h.count('a')).toBe(1);
    expect(isRefusal(h.take('a', 1000))).toBe(false);
    expect(isRefusal(h.take('a', 1000))).toBe(true);
  });

  it('two instances share nothing', () => {
    const one = held(1).held;
    const two = held(1).held;
    one.take('a', 1000);
    expect(isRefusal(two.take('a', 1000))).toBe(false);
  });
});
