/** SPEC 26: costly work draws on one budget per instance, shared fairly: ten merchants together take no more than one alone. */
import { describe, expect, it } from 'vitest';
import { COSTLY_MS_PER_SECOND, CostlyWorkBudget } from '../../src/services/costly-work.js';

function budgetOn(start = 1_000_000) {
  const time = { now: start };
  return { budget: new CostlyWorkBudget(() => time.now), time };
}

/**
 * `merchants` ask every millisecond for `seconds`, each doing a job of `jobMs` whenever the
 * budget lets it; answers the milliseconds of work each got, in order.
 */
function contend(merchants: readonly string[], seconds: number, jobMs: number): number[] {
  const { budget, time } = budgetOn();
  const got = merchants.map(() => 0);
  for (let t = 0; t < seconds * 1000; t++) {
    time.now += 1;
    // A different merchant asks first each millisecond, as requests arrive in no fixed order.
    for (let k = 0; k < merchants.length; k++) {
      const i = (t + k) % merchants.length;
      if (budget.waitFor(merchants[i]!) === 0) {
        budget.spend(merchants[i]!, jobMs);
        got[i]! += jobMs;
      }
    }
  }
  return got;
}

describe('the instance budget for costly work', () => {
  it('lets one merchant alone spend its second of work, then makes it wait as long as the overdraft takes to drain', () => {
    const { budget, time } = budgetOn();
    expect(budget.waitFor('M1')).toBe(0);
    budget.spend('M1', 60);
    expect(budget.waitFor('M1')).toBe(0);
    budget.spend('M1', 60);
    // 120 ms spent of 100 a second: 200 ms until it is back under.
    expect(budget.waitFor('M1')).toBe(200);
    time.now += 199;
    expect(budget.waitFor('M1')).toBe(1);
    time.now += 1;
    expect(budget.waitFor('M1')).toBe(0);
  });

  it('splits the budget among the merchants drawing: one over its share waits while another under it starts', () => {
    const { budget } = budgetOn();
    budget.spend('M1', 60);
    expect(budget.drawing).toBe(1);
    // M2 counted, each has a share of 50: M1 is over it, M2 is not, and the instance has room.
    expect(budget.waitFor('M2')).toBe(0);
    budget.spend('M2', 10);
    expect(budget.waitFor('M1')).toBeGreaterThan(0);
    expect(budget.waitFor('M2')).toBe(0);
  });

  it('forgets merchants once their spent time has drained', () => {
    const { budget, time } = budgetOn();
    budget.spend('M1', 10);
    budget.spend('M2', 10);
    expect(budget.drawing).toBe(2);
    time.now += 1000;
    expect(budget.waitFor('M3')).toBe(0);
    expect(budget.drawing).toBe(0);
  });

  it('gives ten merchants together no more than one alone, and each about an equal part, a newcomer too', () => {
    const alone = contend(['M1'], 30, 10)[0]!;
    const ten = contend(Array.from({ length: 10 }, (_, n) => `A${n}`), 30, 10);
    const total = ten.reduce((a, b) => a + b, 0);
    // 100 ms a second for 30 s, the first second's allowance and one job over at most.
    expect(alone).toBeLessThanOrEqual(31 * COSTLY_MS_PER_SECOND + 10);
    expect(total).toBeLessThanOrEqual(alone * 1.1);
    for (const got of ten) expect(got).toBeGreaterThanOrEqual((total / 10) * 0.8);
    const withVictim = contend([...Array.from({ length: 10 }, (_, n) => `A${n}`), 'victim'], 30, 10);
    expect(withVictim.at(-1)).toBeGreaterThanOrEqual((withVictim.reduce((a, b) => a + b, 0) / 11) * 0.8);
  });
});
