import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBody, stringToSign } from '../../src/domain/signature.js';
import type { Sandbox } from '../../src/index.js';
import { jsonRequest, memorySandbox, uniqueRef } from '../helpers.js';

const SIGNED_KEY = 'sk_sandbox_demo_signed_key';
const SIGNED_SALT = 'demo-signing-salt';

/** The worked example of the README, number for number. */
const README_BODY = {
  payee: 'DEMO-MERCHANT-SIGNED',
  product_type: 'QR_DYNAMIC',
  merchant_ref_no: 'order-1001',
  amount: 25,
  currency_code: 'SGD',
  payer: null,
  metadata: { table: 7, note: 'window seat' },
  sign_type: 'SHA512',
};
const README_STRING =
  'amount=25.00&currency_code=SGD&merchant_ref_no=order-1001&metadata=%7B%22note%22%3A%22window%20seat%22%2C%22table%22%3A7%7D&payee=DEMO-MERCHANT-SIGNED&product_type=QR_DYNAMIC&demo-signing-salt';
const README_SIGN =
  'db99b55b1b195286a0d04df5389a551a9b3cfca8a488daeb61a02950dd2ac29207c247805f1cc82c3c320329514b2805e719b2b60c8e57464acd0f677ffa0b91';

describe('signature: the README worked example', () => {
  it('builds the documented string to sign: sorted, encoded, amount with two decimals, metadata sorted compact JSON, nulls left out', () => {
    expect(stringToSign(README_BODY, SIGNED_SALT)).toBe(README_STRING);
  });

  it('signs it to the documented lowercase hex SHA-512', () => {
    expect(signBody(README_BODY, SIGNED_SALT)).toBe(README_SIGN);
  });
});

describe('signature: accepted requests', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await memorySandbox();
  });
  afterAll(() => sandbox.close());

  it('creates a payment for the signed demo merchant when sign matches', async () => {
    const body = { ...README_BODY, merchant_ref_no: uniqueRef('signed') };
    const res = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', { ...body, sign: signBody(body, SIGNED_SALT) }, { 'Service-Api-Key': SIGNED_KEY }));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ code: 200, payment_id: expect.stringMatching(/^pay_/) });
  });

  it('POST /sandbox/v1/tools/sign returns the signature create accepts, and the string signed with the salt masked', async () => {
    const body = { ...README_BODY, merchant_ref_no: uniqueRef('tool') };
    const tool = await sandbox.fetch(jsonRequest('POST', '/sandbox/v1/tools/sign', body, { 'Service-Api-Key': SIGNED_KEY }));
    const signed = (await tool.json()) as { sign: string; string_to_sign: string; sign_type: string };
    expect(signed.sign_type).toBe('SHA512');
    expect(signed.sign).toBe(signBody(body, SIGNED_SALT));
    expect(signed.string_to_sign.endsWith('&<signing_salt>')).toBe(true);
    expect(JSON.stringify(signed)).not.toContain(SIGNED_SALT);
    const created = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', { ...body, sign: signed.sign }, { 'Service-Api-Key': SIGNED_KEY }));
    expect(created.status).toBe(200);
  });

  it('verifies a signature whenever sign is present, even where the merchant does not require one', async () => {
    const body = { payee: 'DEMO-MERCHANT-1', product_type: 'QR_DYNAMIC', merchant_ref_no: uniqueRef('opt'), amount: 5, sign_type: 'SHA512' };
    const good = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', { ...body, sign: signBody(body, 'demo-salt-1-not-secret') }));
    expect(good.status).toBe(200);
    const bad = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', { ...body, merchant_ref_no: uniqueRef('opt'), sign: 'f'.repeat(128) }));
    expect(bad.status).toBe(401);
  });
});
