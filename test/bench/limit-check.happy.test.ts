/** The scale bench's judgement of a per-key limit (bench/lib/limit-check.js), from send and answer times alone. */
import { describe, expect, it } from 'vitest';
import { mostSurelyWithinASecond } from '../../bench/lib/limit-check.js';

describe('mostSurelyWithinASecond', () => {
  it('counts requests whose whole span, first sent to last answered, is under a second', () => {
    expect(mostSurelyWithinASecond([[0, 5], [100, 110], [200, 230]])).toBe(3);
    // Order of the spans given does not matter.
    expect(mostSurelyWithinASecond([[200, 230], [0, 5], [100, 110]])).toBe(3);
  });

  it('does not count requests that may have been let through a second or more apart', () => {
    expect(mostSurelyWithinASecond([[0, 5], [1000, 1005], [2000, 2005]])).toBe(1);
    // Sent 600 ms after the first, answered 500 ms later: the server may have stamped it after the first left the window.
    expect(mostSurelyWithinASecond([[0, 5], [600, 1100]])).toBe(1);
    // Within the clock slack of a second: not surely inside one.
    expect(mostSurelyWithinASecond([[0, 1], [990, 996]])).toBe(1);
    expect(mostSurelyWithinASecond([])).toBe(0);
  });

  it('finds a burst over a limit of 2 among requests spread out otherwise', () => {
    const spans: Array<[number, number]> = [[0, 3], [1200, 1203], [1300, 1304], [1400, 1402], [3000, 3002]];
    expect(mostSurelyWithinASecond(spans)).toBe(3);
  });
});
