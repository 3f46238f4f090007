import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { createBody, jsonRequest, memorySandbox } from '../../helpers.js';

describe('amount errors name the rule that is broken', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await memorySandbox();
  });
  afterAll(() => sandbox.close());

  const cases: [string, string, RegExp][] = [
    ['-5', '-5', /between 0\.01 and 9999999999\.99/],
    ['-5.123', '-5.123', /between 0\.01 and 9999999999\.99/],
    ['1e21', '1e21', /between 0\.01 and 9999999999\.99/],
    ['0', '0', /between 0\.01 and 9999999999\.99/],
    ['0.001', '0.001', /at most 2 decimals/],
    ['10.005', '10.005', /at most 2 decimals/],
  ];
  for (const [name, raw, message] of cases) {
    it(`amount ${name}`, async () => {
      const body = JSON.stringify(createBody()).replace('"amount":10.5', `"amount":${raw}`);
      const res = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', body));
      expect(res.status).toBe(400);
      const json = (await res.json()) as { description: string; errors: { field: string; message: string }[] };
      expect(json.errors).toHaveLength(1);
      expect(json.errors[0]!.field).toBe('amount');
      expect(json.description).toMatch(message);
    });
  }
});
