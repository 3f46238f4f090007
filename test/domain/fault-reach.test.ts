import { describe, expect, it } from 'vitest';
import { faultsApplyTo, globCanMatchUnder, globMatches, ruleCanFire } from '../../src/domain/faults.js';
import { globsOverlap } from '../../src/domain/path-glob.js';

describe('where faults apply', () => {
  it('the public API under both prefixes, nothing else', () => {
    for (const path of ['/openapi/v1/payments/payment', '/v1/payments/payment/pay_1', '/v1/x']) expect(faultsApplyTo(path), path).toBe(true);
    for (const path of ['/sandbox/v1/payments', '/healthz', '/openapi.json', '/openapi/v1', '/v1', '/v10/x', '/sandbox']) expect(faultsApplyTo(path), path).toBe(false);
  });

  it('globCanMatchUnder agrees with globMatches on a path built to fit', () => {
    const cases: [string, string, boolean][] = [
      ['/v1/*', '/v1/', true],
      ['*', '/v1/', true],
      ['/v*x', '/v1/', true],
      ['/v1/payments', '/v1/', true],
      ['/v1', '/v1/', false],
      ['/v2/*', '/v1/', false],
      ['', '/v1/', false],
      ['/openapi/v1/*', '/v1/', false],
      ['/openapi/v1/*', '/openapi/v1/', true],
    ];
    for (const [glob, prefix, can] of cases) {
      expect(globCanMatchUnder(glob, prefix), `${glob} under ${prefix}`).toBe(can);
      // When it can, the prefix followed by the glob's tail (stars dropped) is a witness.
      if (can) {
        const star = glob.indexOf('*');
        const witness = star < 0 || star >= prefix.length ? glob.replaceAll('*', '') : prefix + glob.slice(star + 1).replaceAll('*', '');
        expect(witness.startsWith(prefix) && globMatches(glob, witness), `${glob}: ${witness}`).toBe(true);
      }
    }
  });

  it('a rule can fire when its path can match under either prefix', () => {
    expect(ruleCanFire('*/payments/payment')).toBe(true);
    expect(ruleCanFire('/openapi/v1/payments/payment')).toBe(true);
    expect(ruleCanFire('/sandbox/v1/payments')).toBe(false);
  });
});

describe('globsOverlap: whether some path matches both globs', () => {
  it.each([
    ['/openapi/v1/payments/payment/*/cancel', '/openapi/v1/payments/payment/*/cancel', true],
    ['*/cancel', '/v1/payments/payment/*/cancel', true],
    ['/openapi/v1/payments/payment/pay_*', '/openapi/v1/payments/payment/*', true],
    ['/openapi/v1/*/*', '/openapi/v1/payments/payment', true],
    ['*a*', '*b*', true],
    ['/openapi/v1/', '/openapi/v1/payments/payment', false],
    ['/openapi/v1/payments/paymnet/*', '/openapi/v1/payments/payment/*', false],
    ['/v1/payments/payment/*/cancel', '/v1/payments/payment/*/void', false],
    ['a*b', '*c', false],
  ])('%s and %s: %s', (a, b, overlap) => {
    expect(globsOverlap(a, b)).toBe(overlap);
    expect(globsOverlap(b, a)).toBe(overlap);
  });

  it('a longest rule glob of stars against a route is a walk over its cells, not a search (one that backtracked would not end in the test time)', () => {
    expect(globsOverlap('*a'.repeat(128), '/openapi/v1/payments/payment/*/cancel')).toBe(false);
    expect(globsOverlap('*a'.repeat(128), '/v1/*')).toBe(true);
  });
});
