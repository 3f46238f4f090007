/**
 * A lone surrogate ("\ud800" in JSON) is valid JSON but not Unicode text, and cannot be written
 * into a string to sign (encodeURIComponent throws): the answer is a 400 that names the field,
 * never a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { SIGNED_KEY, SIGNED_PAYEE, call, createBody, expectEnvelope, quietSandbox } from '../support/http.js';

describe('a lone surrogate in a field to sign', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await quietSandbox();
  });
  afterAll(() => sandbox.close());

  it('in payer on a signed create: 400 naming payer, nothing created', async () => {
    const body = createBody({ payee: SIGNED_PAYEE, payer: 'ab\ud800cd', sign_type: 'SHA512', sign: '0'.repeat(128) });
    const answer = await call(sandbox, 'POST', '/openapi/v1/payments/payment', { key: SIGNED_KEY, body });
    expectEnvelope(answer, 400);
    expect(answer.body.description).toMatch(/payer .*not valid Unicode/);
    const list = await call(sandbox, 'GET', `/sandbox/v1/payments?merchant_ref_no=${body.merchant_ref_no as string}`, { key: SIGNED_KEY });
    expect(list.body.total).toBe(0);
  });

  it.each([
    ['payer', { payer: '\ud800' }],
    ['merchant_ref_no', { merchant_ref_no: 'x\udc00' }],
    ['note', { note: '\udbff\udbff' }],
  ])('in %s of POST /sandbox/v1/tools/sign: 400 naming the field', async (field, extra) => {
    const answer = await call(sandbox, 'POST', '/sandbox/v1/tools/sign', { key: SIGNED_KEY, body: createBody({ payee: SIGNED_PAYEE, ...extra }) });
    expectEnvelope(answer, 400);
    expect(answer.body.description).toContain(`${field} `);
    expect(answer.body.description).toMatch(/not valid Unicode/);
  });

  it('a whole pair, and a lone surrogate inside metadata (written as JSON, escaped), still sign', async () => {
    for (const extra of [{ payer: 'smile \ud83d\ude00' }, { metadata: { note: '\ud800' } }]) {
      expectEnvelope(await call(sandbox, 'POST', '/sandbox/v1/tools/sign', { key: SIGNED_KEY, body: createBody({ payee: SIGNED_PAYEE, ...extra }) }), 200);
    }
  });
});
