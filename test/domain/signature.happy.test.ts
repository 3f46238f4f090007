import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson, fieldsToSign, maskedStringToSign, SALT_MASK, signBody, stringToSign } from '../../src/domain/signature.js';

const BODY = {
  payee: 'DEMO-MERCHANT-SIGNED',
  product_type: 'QR_DYNAMIC',
  merchant_ref_no: 'order 42/a',
  amount: 10.5,
  currency_code: 'SGD',
  payer: null,
  metadata: { z: 1, a: { d: 'x y', c: [3, { f: 1, e: 2 }] } },
  sign_type: 'SHA512',
  sign: 'ignored',
};

describe('signature: the canonical string', () => {
  it('writes every non-empty field but sign and sign_type, sorted by name, percent-encoded', () => {
    expect(fieldsToSign(BODY)).toBe(
      [
        'amount=10.50',
        'currency_code=SGD',
        `merchant_ref_no=${encodeURIComponent('order 42/a')}`,
        `metadata=${encodeURIComponent('{"a":{"c":[3,{"e":2,"f":1}],"d":"x y"},"z":1}')}`,
        'payee=DEMO-MERCHANT-SIGNED',
        'product_type=QR_DYNAMIC',
      ].join('&'),
    );
  });

  it('encodes a space as %20 and a slash as %2F, exactly like encodeURIComponent', () => {
    expect(fieldsToSign({ merchant_ref_no: 'a b/c' })).toBe('merchant_ref_no=a%20b%2Fc');
  });

  it('writes the amount with two decimals', () => {
    expect(fieldsToSign({ amount: 100 })).toBe('amount=100.00');
    expect(fieldsToSign({ amount: 0.5 })).toBe('amount=0.50');
  });

  it('leaves out null, empty string and empty object values', () => {
    expect(fieldsToSign({ b: null, c: '', d: {}, a: 'x' })).toBe('a=x');
  });

  it('appends "&" and the salt, and signs with lowercase hex SHA-512', () => {
    const text = stringToSign(BODY, 'demo-signing-salt');
    expect(text).toBe(`${fieldsToSign(BODY)}&demo-signing-salt`);
    const expected = createHash('sha512').update(text, 'utf8').digest('hex');
    expect(signBody(BODY, 'demo-signing-salt')).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{128}$/);
  });

  it('masks the salt in the string shown to integrators', () => {
    expect(maskedStringToSign(BODY)).toBe(`${fieldsToSign(BODY)}&${SALT_MASK}`);
    expect(maskedStringToSign(BODY)).not.toContain('demo-signing-salt');
  });

  it('does not depend on the order of the body keys', () => {
    const reversed = Object.fromEntries(Object.entries(BODY).reverse());
    expect(signBody(reversed, 's')).toBe(signBody(BODY, 's'));
  });
});

describe('signature: canonical JSON', () => {
  it('sorts keys at every level and writes compact JSON', () => {
    expect(canonicalJson({ b: [1, { y: 2, x: 1 }], a: null, c: 'é' })).toBe('{"a":null,"b":[1,{"x":1,"y":2}],"c":"é"}');
  });
});
