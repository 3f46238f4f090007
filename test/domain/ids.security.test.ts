import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { apiKeyHash, newApiKey, newPayeeId, newPaymentCode, newPaymentId, newPaymentToken, newSigningSalt, PAYMENT_ID_PATTERN, PAYMENT_TOKEN_PATTERN } from '../../src/domain/ids.js';

const N = 2000;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BASE64URL = `${BASE62}-_`;
const CODE = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** Format, random length, alphabet, and how many random bits that gives. */
const KINDS = [
  { name: 'payment_id', make: newPaymentId, pattern: PAYMENT_ID_PATTERN, prefix: 'pay_', alphabet: BASE62, length: 22, minBits: 96 },
  { name: 'payment_token', make: newPaymentToken, pattern: PAYMENT_TOKEN_PATTERN, prefix: 'ptok_', alphabet: BASE64URL, length: 32, minBits: 96 },
  { name: 'api_key', make: newApiKey, pattern: /^sk_sandbox_[A-Za-z0-9_-]{32}$/, prefix: 'sk_sandbox_', alphabet: BASE64URL, length: 32, minBits: 96 },
  { name: 'signing_salt', make: newSigningSalt, pattern: /^[A-Za-z0-9_-]{32}$/, prefix: '', alphabet: BASE64URL, length: 32, minBits: 96 },
  { name: 'payment_code', make: newPaymentCode, pattern: /^[0-9A-HJKMNP-TV-Z]{12}$/, prefix: '', alphabet: CODE, length: 12, minBits: 60 },
  { name: 'payee_id', make: newPayeeId, pattern: /^payee_[0-9A-Za-z]{16}$/, prefix: 'payee_', alphabet: BASE62, length: 16, minBits: 90 },
] as const;

describe.each(KINDS)('$name', (kind) => {
  const values = Array.from({ length: N }, () => kind.make());

  it('has the documented format and a recognisable prefix', () => {
    for (const v of values) expect(v).toMatch(kind.pattern);
    for (const v of values) expect(v.startsWith(kind.prefix)).toBe(true);
  });

  it(`carries at least ${kind.minBits} random bits`, () => {
    expect(kind.length * Math.log2(kind.alphabet.length)).toBeGreaterThanOrEqual(kind.minBits);
  });

  it('never repeats, and consecutive values share no more than chance would', () => {
    expect(new Set(values).size).toBe(N);
    let longShared = 0;
    for (let i = 1; i < N; i++) {
      const a = values[i - 1]!.slice(kind.prefix.length);
      const b = values[i]!.slice(kind.prefix.length);
      let shared = 0;
      while (shared < a.length && a[shared] === b[shared]) shared++;
      if (shared >= 3) longShared++;
    }
    // Three leading characters in common happen about once in |alphabet|^3 pairs.
    expect(longShared).toBeLessThan(5);
  });

  it('uses its whole alphabet, evenly at every position', () => {
    const counts = new Map<string, number>();
    for (const v of values) for (const ch of v.slice(kind.prefix.length)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect([...counts.keys()].sort().join('')).toBe([...kind.alphabet].sort().join(''));
    const expected = (N * kind.length) / kind.alphabet.length;
    for (const count of counts.values()) {
      // Binomial spread is about sqrt(expected); 6 standard deviations keeps this test from ever flaking.
      expect(Math.abs(count - expected)).toBeLessThan(6 * Math.sqrt(expected) + 5);
    }
    for (let position = 0; position < kind.length; position++) {
      const seen = new Set(values.map((v) => v[kind.prefix.length + position]));
      expect(seen.size).toBeGreaterThan(kind.alphabet.length * 0.8);
    }
  });
});

describe('payment_code is easy to read aloud', () => {
  it('never uses I, L, O or U', () => {
    for (let i = 0; i < N; i++) expect(newPaymentCode()).not.toMatch(/[ILOU]/);
  });
});

describe('apiKeyHash', () => {
  const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

  it('is the SHA-256 of the key, the first time and when the key was seen before, for a key of any length', () => {
    const keys = [newApiKey(), newApiKey(), 'x'.repeat(128), 'y'.repeat(129), 'é'.repeat(16_000)];
    for (let round = 0; round < 2; round++) for (const key of keys) expect(apiKeyHash(key)).toBe(sha256(key));
  });

  it('stays right past the number of keys it remembers', () => {
    const keys = Array.from({ length: 1_200 }, () => newApiKey());
    for (const key of keys) apiKeyHash(key);
    for (const key of keys) expect(apiKeyHash(key)).toBe(sha256(key));
  });
});
