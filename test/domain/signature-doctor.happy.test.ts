import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { diagnoseSignature, fieldsWrittenAs, signatureHint, SIGNATURE_MISTAKES } from '../../src/domain/signature-doctor.js';
import { fieldsToSign, signBody, stringToSign } from '../../src/domain/signature.js';

const SALT = 'demo-signing-salt';
const BODIES: Record<string, unknown>[] = [
  { payee: 'P', product_type: 'QR_DYNAMIC', merchant_ref_no: 'r-1', amount: 25, sign_type: 'SHA512' },
  { merchant_ref_no: 'r-2', amount: 0.5, payer: null, metadata: { z: [1, { b: 2, a: 'x y' }], a: "it's (ok)!" }, payee: 'P', currency_code: '', sign_type: 'SHA512' },
  { amount: 9999999999.99, metadata: {}, payee: 'ü ñ €', product_type: 'IN_APP', sign_type: 'SHA512' },
];

describe('signature doctor (domain)', () => {
  it.each(BODIES)('writes the right fields part exactly as fieldsToSign when no mistake is applied (%#)', (body) => {
    expect(fieldsWrittenAs(body)).toBe(fieldsToSign(body));
  });

  it.each(BODIES)('finds no mistake in the right sign (%#)', (body) => {
    expect(diagnoseSignature(body, SALT, signBody(body, SALT))).toBeNull();
  });

  it('finds salt-missing and salt-without-ampersand', () => {
    const body = BODIES[0]!;
    const sha512 = (t: string) => createHash('sha512').update(t).digest('hex');
    expect(diagnoseSignature(body, SALT, sha512(fieldsToSign(body)))?.map((m) => m.id)).toEqual(['salt-missing']);
    expect(diagnoseSignature(body, SALT, sha512(`${fieldsToSign(body)}${SALT}`))?.map((m) => m.id)).toEqual(['salt-without-ampersand']);
    expect(diagnoseSignature(body, SALT, sha512(stringToSign(body, SALT)).toUpperCase())?.map((m) => m.id)).toEqual(['uppercase-hex']);
  });

  it('never names a mistake for a sign of another salt', () => {
    const body = BODIES[1]!;
    expect(diagnoseSignature(body, SALT, signBody(body, 'other-salt'))).toBeNull();
  });

  it('every mistake has a distinct id, a mistake and a fix, and hints quote neither salt nor body', () => {
    for (const [id, m] of Object.entries(SIGNATURE_MISTAKES)) {
      expect(m.id).toBe(id);
      expect(m.mistake.length).toBeGreaterThan(10);
      expect(m.fix.length).toBeGreaterThan(10);
    }
    const hints = [signatureHint(null), signatureHint(Object.values(SIGNATURE_MISTAKES))];
    for (const hint of hints) expect(hint).not.toContain(SALT);
  });
});

describe('signature doctor (domain): text that cannot be encoded', () => {
  it('names no mistake for a body holding a lone surrogate, and does not throw', () => {
    expect(diagnoseSignature({ payee: 'P', payer: 'a\ud800b', sign_type: 'SHA512' }, SALT, 'a'.repeat(128))).toBeNull();
  });
});
