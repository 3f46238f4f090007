import { describe, expect, it } from 'vitest';
import { formatMinorUnits, MAX_AMOUNT_MINOR, MIN_AMOUNT_MINOR, toMinorUnits } from '../../src/domain/money.js';

describe('money: JSON numbers to minor units', () => {
  it.each([
    [10.5, 1050],
    [10.05, 1005],
    [100, 10000],
    [0.01, 1],
    [0.1, 10],
    [1.1, 110],
    [19.99, 1999],
    [0, 0],
    [9999999999.99, 999_999_999_999],
  ])('%s is %s minor units', (amount, minor) => {
    expect(toMinorUnits(amount)).toBe(minor);
  });

  it('the amount bounds are 0.01 and the 13 characters of EMV tag 54', () => {
    expect(MIN_AMOUNT_MINOR).toBe(1);
    expect(formatMinorUnits(MAX_AMOUNT_MINOR)).toBe('9999999999.99');
    expect(formatMinorUnits(MAX_AMOUNT_MINOR)).toHaveLength(13);
  });
});

describe('money: two-decimal text', () => {
  it.each([
    [1050, '10.50'],
    [10000, '100.00'],
    [1, '0.01'],
    [0, '0.00'],
    [5, '0.05'],
    [999_999_999_999, '9999999999.99'],
    [-1050, '-10.50'],
  ])('%s minor units are written %s', (minor, text) => {
    expect(formatMinorUnits(minor)).toBe(text);
  });

  it('formatting and parsing round-trip for every cent of a range', () => {
    for (let minor = 0; minor <= 2000; minor++) {
      expect(toMinorUnits(Number(formatMinorUnits(minor)))).toBe(minor);
    }
  });
});
