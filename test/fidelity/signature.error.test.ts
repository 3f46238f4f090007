import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBody } from '../../src/domain/signature.js';
import type { Sandbox } from '../../src/index.js';
import { jsonRequest, memorySandbox, uniqueRef } from '../helpers.js';

const SIGNED_KEY = 'sk_sandbox_demo_signed_key';
const SALT = 'demo-signing-salt';
const headers = { 'Service-Api-Key': SIGNED_KEY };

function body(extra: Record<string, unknown> = {}) {
  return { payee: 'DEMO-MERCHANT-SIGNED', product_type: 'QR_DYNAMIC', merchant_ref_no: uniqueRef('sig'), amount: 12.3, ...extra };
}

describe('signature errors are 401 with distinct descriptions and commit nothing', () => {
  let sandbox: Sandbox;
  const descriptions = new Set<string>();

  async function expect401(payload: Record<string, unknown>): Promise<Record<string, unknown>> {
    const res = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', payload, headers));
    expect(res.status).toBe(401);
    const json = (await res.json()) as Record<string, unknown>;
    expect(json.code).toBe(401);
    descriptions.add(json.description as string);
    const list = await sandbox.fetch(jsonRequest('GET', `/sandbox/v1/payments?merchant_ref_no=${payload.merchant_ref_no as string}`, undefined, headers));
    expect(((await list.json()) as { total: number }).total).toBe(0);
    return json;
  }

  beforeAll(async () => {
    sandbox = await memorySandbox();
  });
  afterAll(() => sandbox.close());

  it('a missing signature where the merchant requires one', async () => {
    const json = await expect401(body());
    expect(json.description).toMatch(/required/i);
  });

  it('an unknown sign_type', async () => {
    const b = body({ sign_type: 'MD5' });
    const json = await expect401({ ...b, sign: signBody(b, SALT) });
    expect(json.description).toMatch(/sign_type/);
    expect(json.description).toMatch(/SHA512/);
  });

  it('sign without sign_type names the missing sign_type, not "null"', async () => {
    const b = body();
    const json = await expect401({ ...b, sign: signBody(b, SALT) });
    expect(json.description).toMatch(/sign_type is missing/);
    expect(json.description).not.toMatch(/null/);
  });

  it('sign_type without sign', async () => {
    const json = await expect401(body({ sign_type: 'SHA512' }));
    expect(json.description).toMatch(/sign is missing/);
  });

  it('a mismatch shows the string signed with the salt masked, never the salt', async () => {
    const b = body({ sign_type: 'SHA512', metadata: { z: 1, a: 'x y' } });
    const json = await expect401({ ...b, sign: signBody({ ...b, amount: 12.31 }, SALT) });
    expect(json.description).toMatch(/mismatch/i);
    expect(json.string_to_sign).toBe(
      `amount=12.30&merchant_ref_no=${b.merchant_ref_no}&metadata=${encodeURIComponent('{"a":"x y","z":1}')}&payee=DEMO-MERCHANT-SIGNED&product_type=QR_DYNAMIC&<signing_salt>`,
    );
    expect(JSON.stringify(json)).not.toContain(SALT);
  });

  it('gave five different descriptions', () => {
    expect(descriptions.size).toBe(5);
  });

  it('never shows the salt in the journal either', async () => {
    const res = await sandbox.fetch(jsonRequest('GET', '/sandbox/v1/requests?limit=500', undefined, headers));
    const text = await res.text();
    expect(text).toContain('Signature mismatch');
    expect(text).not.toContain(SALT);
  });
});
