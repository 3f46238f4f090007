/**
 * The two-decimal rule as the document declares it, checked by standard validators: Ajv on
 * binary doubles (draft-07 and 2020-12, the way most JavaScript tools and Python's jsonschema
 * divide) and a validator in decimal arithmetic (as Java's and Go's do). `multipleOf: 0.01`
 * alone refuses 19.99 on doubles; the declaration must accept every amount the server accepts
 * and refuse every one it refuses.
 */
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { amount } from '../../../src/http/schemas.js';

const { $schema: _dialect, ...declared } = z.toJSONSchema(amount, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
const validators = {
  'Ajv (draft-07)': new Ajv.default({ strict: false }).compile(declared),
  'Ajv (2020-12)': new Ajv2020.default({ strict: false }).compile(declared),
};

/** multipleOf in exact decimal arithmetic, on the JSON text of both numbers. */
function decimalMultipleOf(text: string, of: number): boolean {
  const scaled = (t: string, digits: number) => {
    const [whole, fraction = ''] = t.split('.');
    return BigInt(whole! + fraction.padEnd(digits, '0'));
  };
  const ofText = String(of);
  const digits = Math.max(text.split('.')[1]?.length ?? 0, ofText.split('.')[1]?.length ?? 0);
  return scaled(text, digits) % scaled(ofText, digits) === 0n;
}

/** The declaration checked as a decimal validator would: each multipleOf on the exact values. */
function decimalValidator(text: string): boolean {
  const x = Number(text);
  if (!(x >= 0.01 && x <= 9999999999.99)) return false;
  const [first, second] = (declared.anyOf as [{ multipleOf: number }, { allOf: { multipleOf: number }[] }]);
  return decimalMultipleOf(text, first.multipleOf) || second.allOf.every((m) => decimalMultipleOf(text, m.multipleOf));
}

const serverAccepts = (x: number) => amount.safeParse(x).success;
const twoDecimals = (n: number) => `${Math.floor(n / 100)}.${String(n % 100).padStart(2, '0')}`;
/** A seeded draw (mulberry32), so a failure names an amount that fails again. */
function seededDraws(seed: number): (below: number) => number {
  let state = seed >>> 0;
  return (below) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * below);
  };
}

describe('the declared two-decimal amount', () => {
  it('is not multipleOf 0.01 alone, which binary validators get wrong for 19.99', () => {
    expect(new Ajv.default().validate({ type: 'number', multipleOf: 0.01 }, 19.99)).toBe(false);
    expect(declared).toMatchObject({ type: 'number', minimum: 0.01, maximum: 9999999999.99 });
  });

  it.each(Object.entries(validators))('%s accepts the amounts floating point division gets wrong, and refuses the server refusals', (_name, validate) => {
    for (const x of [19.99, 0.07, 0.29, 1.11, 1.13, 4.02, 136.67, 10001.12, 20.29, 0.01, 0.1, 10.5, 100, 9999999999.99, 1234567890.12]) {
      expect(validate(x), String(x)).toBe(true);
      expect(serverAccepts(x)).toBe(true);
    }
    for (const x of [10.555, 19.999, 0.001, 0.005, 0, -1, -19.99, 1e10, 9999999999.991, 10000000000, 0.015, 1.0000001]) {
      expect(validate(x), String(x)).toBe(false);
      expect(serverAccepts(x)).toBe(false);
    }
  });

  it('agrees with the server on every amount from 0.01 to 3000.00 and on 200,000 drawn up to 9999999999.99, with 2 and 3 decimals', () => {
    const random = seededDraws(20261124);
    const disagreements: string[] = [];
    const check = (text: string) => {
      const x = Number(text);
      const server = serverAccepts(x);
      for (const [name, validate] of Object.entries(validators)) if (validate(x) !== server) disagreements.push(`${name} ${text}: server ${server}`);
      if (decimalValidator(text) !== server) disagreements.push(`decimal ${text}: server ${server}`);
    };
    for (let n = 1; n <= 300_000; n++) check(twoDecimals(n));
    for (let i = 0; i < 100_000; i++) check(twoDecimals(random(999_999_999_999) + 1));
    for (let i = 0; i < 100_000; i++) {
      const k = random(9_999_999_999_999) + 1;
      if (k % 10 !== 0) check(`${Math.floor(k / 1000)}.${String(k % 1000).padStart(3, '0')}`);
    }
    expect(disagreements.slice(0, 20)).toEqual([]);
  });
});
