import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { call, createPayment, expectEnvelope, PREFIXES, quietSandbox, stateOf } from '../support/http.js';

let sandbox: Sandbox;
let id: string;
beforeAll(async () => {
  sandbox = await quietSandbox();
  id = (await createPayment(sandbox)).payment_id;
});
afterAll(() => sandbox.close());

describe('unknown routes', () => {
  it.each([
    ['GET', '/'],
    ['GET', '/nope'],
    ['POST', '/openapi/v2/payments/payment'],
    ['GET', '/openapi/v1/payments'],
    ['GET', '/openapi/v1/payments/payment/x/y/z'],
    ['GET', '/sandbox/v1/nothing-here'],
    ['POST', '/sandbox/v1/payments/x/teleport'],
    ['GET', '/v1/refunds'],
  ])('%s %s answers the 404 envelope', async (method, path) => {
    const answer = await call(sandbox, method, path);
    expectEnvelope(answer, 404);
    expect(answer.body.description).toContain(path.split('/').pop() ?? '');
  });

  it('nothing under /openapi is sandbox-only', async () => {
    for (const path of ['/openapi/v1/clock', '/openapi/v1/merchants', '/openapi/v1/payments/payment/x/pay', '/openapi/v1/settle']) {
      expectEnvelope(await call(sandbox, 'POST', path, { body: {} }), 404);
    }
  });
});

describe('wrong methods answer 405 with an Allow header', () => {
  const publicCases = PREFIXES.flatMap((prefix) => [
    ['DELETE', `${prefix}/payments/payment`, 'POST'],
    ['GET', `${prefix}/payments/payment`, 'POST'],
    ['GET', `${prefix}/payments/payment/ID/assign`, 'POST'],
    ['PUT', `${prefix}/payments/payment/ID/cancel`, 'POST'],
    ['PATCH', `${prefix}/payments/payment/ID/void`, 'POST'],
    ['POST', `${prefix}/payments/payment/ID`, 'GET, HEAD'],
    ['DELETE', `${prefix}/payments/payment/ID`, 'GET, HEAD'],
  ]);
  const controlCases = [
    ['GET', '/sandbox/v1/merchants', 'POST'],
    ['GET', '/sandbox/v1/payments/ID/pickup', 'POST'],
    ['GET', '/sandbox/v1/payments/ID/pay', 'POST'],
    ['DELETE', '/sandbox/v1/payments/ID/fail', 'POST'],
    ['GET', '/sandbox/v1/payments/ID/expire', 'POST'],
    ['GET', '/sandbox/v1/payments/ID/settle', 'POST'],
    ['GET', '/sandbox/v1/settle', 'POST'],
    ['POST', '/sandbox/v1/clock', 'GET, HEAD'],
    ['GET', '/sandbox/v1/clock/advance', 'POST'],
    ['POST', '/sandbox/v1/payments', 'GET, HEAD'],
    ['POST', '/sandbox/v1/payments/ID/events', 'GET, HEAD'],
    ['GET', '/sandbox/v1/reset', 'POST'],
    ['POST', '/healthz', 'GET, HEAD'],
  ];

  it.each([...publicCases, ...controlCases])('%s %s -> 405, Allow: %s, and nothing changes', async (method, template, allow) => {
    const before = await stateOf(sandbox);
    const path = template.replace('ID', id);
    const answer = await call(sandbox, method, path, method === 'GET' || method === 'DELETE' ? {} : { body: { reason: 'r', payer: 'PAYER_PAYS' } });
    expectEnvelope(answer, 405);
    expect(answer.headers.get('allow')).toBe(allow);
    expect(answer.body.description).toContain(method);
    expect(await stateOf(sandbox)).toBe(before);
  });
});
