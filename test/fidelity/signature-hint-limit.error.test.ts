/**
 * SPEC 18 through real creates: past 10 signature hints a second, a merchant's 401 says the hint
 * was withheld, why, and when it comes again, and still gives string_to_sign; nothing is created.
 */
import { describe, expect, it } from 'vitest';
import { maskedStringToSign } from '../../src/domain/signature.js';
import { uniqueRef } from '../helpers.js';
import { call, enroll, expectEnvelope, sandboxPerTest, SIGNED_KEY, SIGNED_PAYEE, SIGNED_SALT, stateOf } from '../support/http.js';

const wrongSign = 'f'.repeat(128);
const body = (payee = SIGNED_PAYEE) => ({ payee, product_type: 'QR_DYNAMIC', merchant_ref_no: uniqueRef('hint'), amount: 10.5, sign_type: 'SHA512', sign: wrongSign });

describe('signature hints past 10 a second', () => {
  const each = sandboxPerTest();
  const mismatch = async (sent: Record<string, unknown>, key = SIGNED_KEY) => {
    const answer = await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { key, body: sent });
    expectEnvelope(answer, 401);
    expect(answer.body.description).toBe('Signature mismatch: sign is not the SHA-512 of the string the sandbox signed; compare it with yours (string_to_sign, salt masked).');
    expect(answer.body.string_to_sign).toBe(maskedStringToSign(sent));
    expect(answer.text).not.toContain(SIGNED_SALT);
    return answer.body.signature_hint as string;
  };

  it('the 11th mismatch within a second answers 401 with string_to_sign and a hint withheld until the second has passed', async () => {
    for (let n = 0; n < 10; n++) expect(await mismatch(body())).toMatch(/^No known mistake matches/);
    const before = await stateOf(each.sandbox, [SIGNED_KEY]);
    const sent = body();
    const hint = await mismatch(sent);
    expect(hint).toBe(
      'Hint withheld: the sandbox works out at most 10 signature hints a second per merchant (each costs CPU that every merchant shares), and this merchant had its 10 in the last second. ' +
        'The next can be given in 1000 ms; meanwhile compare your string to sign with string_to_sign (the salt shown as <signing_salt>) character by character.',
    );
    expect(await stateOf(each.sandbox, [SIGNED_KEY])).toBe(before);

    each.clock.advance(1000);
    expect(await mismatch(sent)).toMatch(/^No known mistake matches/);
  });

  it("one merchant's hints do not use up another's", async () => {
    for (let n = 0; n < 11; n++) await mismatch(body());
    expect(await mismatch(body())).toMatch(/^Hint withheld/);
    const other = await enroll(each.sandbox, { require_signature: true });
    expect(await mismatch(body(other.payee_id), other.api_key)).toMatch(/^No known mistake matches/);
  });

  it('the same body sent again gets its hint again, however often', async () => {
    const sent = body();
    const first = await mismatch(sent);
    for (let n = 0; n < 15; n++) expect(await mismatch(sent)).toBe(first);
    expect(first).toMatch(/^No known mistake matches/);
  });
});
