import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { configFromEnv } from '../../src/serve-command.js';
import { createBody, jsonRequest, memorySandbox } from '../helpers.js';

describe('content types', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await memorySandbox();
  });
  afterAll(() => sandbox.close());

  it('a JSON body in another charset is 415 and changes nothing', async () => {
    const body = createBody();
    const res = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', body, { 'Content-Type': 'application/json; charset=utf-16' }));
    expect(res.status).toBe(415);
    expect(((await res.json()) as { description: string }).description).toMatch(/UTF-8/);
    const list = (await (await sandbox.fetch(jsonRequest('GET', `/sandbox/v1/payments?merchant_ref_no=${body.merchant_ref_no as string}`))).json()) as { total: number };
    expect(list.total).toBe(0);
  });

  it('charset=utf-8 and UTF-8 are accepted', async () => {
    for (const type of ['application/json; charset=utf-8', 'application/json;charset=UTF-8', 'application/json; charset="utf8"']) {
      const res = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody(), { 'Content-Type': type }));
      expect(res.status, type).toBe(200);
    }
  });
});

describe('configuration from the environment is checked', () => {
  it('refuses a PUBLIC_BASE_URL that is not an absolute http(s) URL', () => {
    expect(() => configFromEnv({ PUBLIC_BASE_URL: 'sandbox.example.com' })).toThrow(/PUBLIC_BASE_URL/);
    expect(configFromEnv({ PUBLIC_BASE_URL: 'https://sandbox.example.com/base/' }).publicBaseUrl).toBe('https://sandbox.example.com/base');
  });

  it('reads SANDBOX_PRODUCT_TYPES as a comma-separated list, and refuses a malformed one', () => {
    expect(configFromEnv({ SANDBOX_PRODUCT_TYPES: 'QR_DYNAMIC, POS_TERMINAL' }).productTypes).toEqual(['QR_DYNAMIC', 'POS_TERMINAL']);
    expect(configFromEnv({}).productTypes).toBeUndefined();
    expect(() => configFromEnv({ SANDBOX_PRODUCT_TYPES: 'qr dynamic' })).toThrow(/SANDBOX_PRODUCT_TYPES/);
    expect(() => configFromEnv({ SANDBOX_PRODUCT_TYPES: ',' })).toThrow(/SANDBOX_PRODUCT_TYPES/);
  });

  it('a configured product type list is what create accepts and what the error lists', async () => {
    const sandbox = await memorySandbox({ config: { productTypes: ['POS_TERMINAL'] } });
    try {
      expect((await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody({ product_type: 'POS_TERMINAL' })))).status).toBe(200);
      const refused = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody()));
      expect(((await refused.json()) as { description: string }).description).toMatch(/product_type must be one of POS_TERMINAL/);
    } finally {
      await sandbox.close();
    }
  });

  it('refuses a SANDBOX_WEBHOOK_PRIVATE other than allow or deny', () => {
    expect(() => configFromEnv({ SANDBOX_WEBHOOK_PRIVATE: 'maybe' })).toThrow(/allow or deny/);
    expect(configFromEnv({ SANDBOX_WEBHOOK_PRIVATE: 'deny' }).webhookPrivateTargets).toBe(false);
  });
});

describe('the merchant cap', () => {
  it('refuses enrolment past maxMerchants with a 402 and enrolls nothing', async () => {
    const sandbox = await memorySandbox({ config: { maxMerchants: 3 } });
    try {
      // The two demo merchants count.
      expect((await sandbox.fetch(jsonRequest('POST', '/sandbox/v1/merchants', {}))).status).toBe(200);
      const refused = await sandbox.fetch(jsonRequest('POST', '/sandbox/v1/merchants', {}));
      expect(refused.status).toBe(402);
      expect(((await refused.json()) as { description: string }).description).toMatch(/3 merchants, its cap/);
      expect(await sandbox.services.store.merchantIds()).toHaveLength(3);
    } finally {
      await sandbox.close();
    }
  });
});
