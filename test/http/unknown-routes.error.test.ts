import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { memorySandbox } from '../helpers.js';

describe('unknown routes and wrong methods answer 404 and 405 without a key', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await memorySandbox();
  });
  afterAll(() => sandbox.close());

  const cases: [string, string, number][] = [
    ['GET', '/sandbox/v1/nope', 404],
    ['GET', '/v1/nope', 404],
    ['GET', '/openapi/v1/payments', 404],
    ['PATCH', '/sandbox/v1/merchants', 405],
    ['DELETE', '/sandbox/v1/qr/ptok_x', 405],
    ['PUT', '/openapi/v1/payments/payment/pay_x', 405],
    ['GET', '/openapi/v1/payments/payment/pay_x/cancel', 405],
  ];
  for (const [method, path, code] of cases) {
    it(`${method} ${path} -> ${code}`, async () => {
      const res = await sandbox.fetch(new Request(`http://x${path}`, { method }));
      expect(res.status).toBe(code);
      expect(((await res.json()) as { code: number }).code).toBe(code);
    });
  }

  it('a real route still needs the key', async () => {
    const res = await sandbox.fetch(new Request('http://x/openapi/v1/payments/payment/pay_x'));
    expect(res.status).toBe(401);
    const control = await sandbox.fetch(new Request('http://x/sandbox/v1/payments'));
    expect(control.status).toBe(401);
  });
});
