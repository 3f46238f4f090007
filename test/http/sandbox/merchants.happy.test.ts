import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { call, createPayment, enroll, expectEnvelope, quietSandbox, statusOf } from '../../support/http.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

describe('POST /sandbox/v1/merchants', () => {
  it('enrolls a merchant without a key and answers api_key, payee_id, signing_salt, home_currency', async () => {
    sandbox = await quietSandbox();
    const answer = await call(sandbox, 'POST', '/sandbox/v1/merchants', { key: null, body: { name: 'Kopi Corner' } });
    expectEnvelope(answer, 200);
    expect(answer.body).toMatchObject({ home_currency: 'SGD', name: 'Kopi Corner', require_signature: false, inline_qr_image: false, auto_settle: true, qr_ttl_seconds: 900 });
    expect(answer.body.api_key).toMatch(/^sk_sandbox_[A-Za-z0-9_-]{32}$/);
    expect(answer.body.payee_id).toMatch(/^payee_[0-9A-Za-z]{16}$/);
    expect(answer.body.signing_salt).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });

  it('enrolls with no body at all', async () => {
    sandbox = await quietSandbox();
    const answer = await call(sandbox, 'POST', '/sandbox/v1/merchants', { key: null });
    expectEnvelope(answer, 200);
    expect(answer.body.name).toBeTypeOf('string');
  });

  it('the new key works at once, for its own payee, in its home currency and country', async () => {
    sandbox = await quietSandbox();
    const merchant = await enroll(sandbox, { name: 'Yankee Diner', home_currency: 'USD' });
    expect(merchant.home_currency).toBe('USD');
    const { payment_id } = await createPayment(sandbox, { payee: merchant.payee_id }, { key: merchant.api_key });
    const status = await statusOf(sandbox, payment_id, merchant.api_key);
    expect(status).toMatchObject({ original_currency_code: 'USD', payee: { id: merchant.payee_id, name: 'Yankee Diner', country_code: 'US' } });
  });

  it('applies require_signature, qr_ttl_seconds and rate_limit_per_second settings', async () => {
    sandbox = await quietSandbox();
    const answer = await call(sandbox, 'POST', '/sandbox/v1/merchants', { key: null, body: { require_signature: true, qr_ttl_seconds: 120, rate_limit_per_second: 5 } });
    expectEnvelope(answer, 200);
    expect(answer.body).toMatchObject({ require_signature: true, qr_ttl_seconds: 120, rate_limit_per_second: 5 });
    const unsigned = await call(sandbox, 'POST', '/openapi/v1/payments/payment', {
      key: answer.body.api_key,
      body: { payee: answer.body.payee_id, product_type: 'QR_DYNAMIC', merchant_ref_no: 'x', amount: 1 },
    });
    expectEnvelope(unsigned, 401);
  });

  it('with an admin token configured, enrols when Authorization: Bearer carries it', async () => {
    sandbox = await quietSandbox({ config: { adminToken: 'admin-secret-123' } });
    const answer = await call(sandbox, 'POST', '/sandbox/v1/merchants', { key: null, body: {}, headers: { Authorization: 'Bearer admin-secret-123' } });
    expectEnvelope(answer, 200);
    expect(answer.body.api_key).toMatch(/^sk_sandbox_/);
    expect(answer.text).not.toContain('admin-secret-123');
  });
});
