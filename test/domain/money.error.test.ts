import { describe, expect, it } from 'vitest';
import { toMinorUnits } from '../../src/domain/money.js';

describe('money: amounts that are refused', () => {
  it.each([
    ['three decimals', 10.005],
    ['three decimals, small', 0.001],
    ['a tiny number written in exponent form', 1e-7],
    ['a huge number written in exponent form', 1e21],
    ['Infinity', Infinity],
    ['-Infinity', -Infinity],
    ['NaN', NaN],
    ['a negative amount', -1],
    ['a float sum that is not two decimals', 0.1 + 0.2],
  ])('%s (%s) has no minor units', (_name, amount) => {
    expect(toMinorUnits(amount)).toBeUndefined();
  });
});
