/**
 * SPEC 26 through real requests: signature hints and did-you-mean suggestions draw on one budget
 * per instance. Once other merchants have spent it, a merchant still gets its 401 with
 * string_to_sign (the hint says it was withheld) and its warnings (without the did-you-mean),
 * and the budget comes back.
 */
import { describe, expect, it } from 'vitest';
import { maskedStringToSign } from '../../src/domain/signature.js';
import { uniqueRef } from '../helpers.js';
import { call, createBody, expectEnvelope, sandboxPerTest, SIGNED_KEY, SIGNED_PAYEE, stateOf } from '../support/http.js';

const mismatch = () => ({ payee: SIGNED_PAYEE, product_type: 'QR_DYNAMIC', merchant_ref_no: uniqueRef('hint'), amount: 10.5, sign_type: 'SHA512', sign: 'f'.repeat(128) });

describe("the instance's budget for costly work, spent by others", () => {
  const each = sandboxPerTest();
  /** Other merchants' work, as measured: ten seconds of it, which drains in about 100 s. */
  const spendByOthers = () => each.sandbox.services.costlyWork.spend('OTHER-MERCHANT', 10_000);

  it('a signature mismatch still answers 401 with string_to_sign, its hint withheld saying why, and creates nothing', async () => {
    spendByOthers();
    const before = await stateOf(each.sandbox, [SIGNED_KEY]);
    const sent = mismatch();
    const answer = await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { key: SIGNED_KEY, body: sent });
    expectEnvelope(answer, 401);
    expect(answer.body.string_to_sign).toBe(maskedStringToSign(sent));
    expect(answer.body.signature_hint).toMatch(/^Hint withheld: signature hints draw on this instance's CPU budget for costly work, shared fairly by the merchants using it \(1 now\), and this merchant's share is spent\. The next can be given in about \d+ ms; .*string_to_sign/);
    expect(await stateOf(each.sandbox, [SIGNED_KEY])).toBe(before);
  });

  it('unknown fields are still named, without a did-you-mean, and one warning says it was withheld', async () => {
    spendByOthers();
    const answer = await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body: createBody({ mercahnt_ref: 'x' }) });
    expectEnvelope(answer, 200);
    const warnings = (answer.headers.get('sandbox-warning') ?? '').split('; ');
    expect(warnings[0]).toBe('unknown field "mercahnt_ref" ignored');
    expect(warnings[1]).toMatch(/^did-you-mean suggestions withheld: they draw on this instance's CPU budget for costly work, shared fairly by the merchants using it, and this merchant's share is spent \(they come back in about \d+ ms\)$/);
  });

  it('with the budget free, the same requests get their hint and their did-you-mean', async () => {
    const answer = await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body: createBody({ mercahnt_ref_no: 'x' }) });
    expect(answer.headers.get('sandbox-warning')).toBe('unknown field "mercahnt_ref_no" ignored (did you mean "merchant_ref_no"?)');
    const refused = await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { key: SIGNED_KEY, body: mismatch() });
    expect(refused.body.signature_hint).toMatch(/^No known mistake matches/);
  });
});
