import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import {
  DEMO_KEY,
  DEMO_PAYEE,
  PREFIXES,
  call,
  createBody,
  createPayment,
  enroll,
  expectEnvelope,
  expectRefusedUnchanged,
  quietSandbox,
  stateOf,
  unknownPaymentId,
} from '../../support/http.js';
import type { Answer } from '../../support/http.js';

let sandbox: Sandbox;
let other: { api_key: string; payee_id: string };
const demo = { P: '', A: '', ref: '' };
beforeAll(async () => {
  sandbox = await quietSandbox();
  other = await enroll(sandbox, { name: 'Other Shop' });
  const pending = await createPayment(sandbox, { merchant_ref_no: 'shared-ref-1' });
  demo.P = pending.payment_id;
  demo.ref = 'shared-ref-1';
  demo.A = (await createPayment(sandbox, { payer: 'PAYER_PAYS' })).payment_id;
});
afterAll(() => sandbox.close());

/** The answer as bytes, with the id text replaced, plus every header but Date. */
function comparable(answer: Answer, id: string): string {
  const headers = [...answer.headers.entries()].filter(([name]) => name !== 'date' && name !== 'request-id').map(([n, v]) => `${n}: ${v.split(id).join('<ID>')}`);
  return [String(answer.status), ...headers, answer.text.split(id).join('<ID>')].join('\n');
}

/** Another merchant's payment must answer byte for byte like an id nobody has. */
async function expectLikeUnknown(method: string, path: (id: string) => string, body: unknown, victim: string): Promise<void> {
  const before = await stateOf(sandbox, [DEMO_KEY, other.api_key]);
  const options = { key: other.api_key, ...(body === undefined ? {} : { body }) };
  const stranger = unknownPaymentId();
  const theirs = await call(sandbox, method, path(victim), options);
  const nobodys = await call(sandbox, method, path(stranger), options);
  expectEnvelope(theirs, 404);
  expect(comparable(theirs, victim)).toBe(comparable(nobodys, stranger));
  expect(await stateOf(sandbox, [DEMO_KEY, other.api_key])).toBe(before);
}

describe.each(PREFIXES)('isolation on the public routes under %s', (prefix) => {
  it.each([
    ['status', 'GET', (id: string) => `${prefix}/payments/payment/${id}`, undefined, 'P'],
    ['assign', 'POST', (id: string) => `${prefix}/payments/payment/${id}/assign`, { payer: 'PAYER_PAYS' }, 'P'],
    ['cancel', 'POST', (id: string) => `${prefix}/payments/payment/${id}/cancel`, { reason: 'hijack' }, 'P'],
    ['void', 'POST', (id: string) => `${prefix}/payments/payment/${id}/void`, { reason: 'hijack' }, 'A'],
  ] as const)("%s of another merchant's payment answers exactly like an unknown id", async (_name, method, path, body, state) => {
    await expectLikeUnknown(method, path, body, demo[state]);
  });
});

describe('isolation on the control routes', () => {
  it.each([
    ['payment', 'GET', (id: string) => `/sandbox/v1/payments/${id}`, undefined, 'P'],
    ['events', 'GET', (id: string) => `/sandbox/v1/payments/${id}/events`, undefined, 'P'],
    ['pickup', 'POST', (id: string) => `/sandbox/v1/payments/${id}/pickup`, {}, 'P'],
    ['pay', 'POST', (id: string) => `/sandbox/v1/payments/${id}/pay`, {}, 'P'],
    ['fail', 'POST', (id: string) => `/sandbox/v1/payments/${id}/fail`, {}, 'P'],
    ['expire', 'POST', (id: string) => `/sandbox/v1/payments/${id}/expire`, {}, 'P'],
    ['settle', 'POST', (id: string) => `/sandbox/v1/payments/${id}/settle`, {}, 'A'],
  ] as const)("%s of another merchant's payment answers exactly like an unknown id", async (_name, method, path, body, state) => {
    await expectLikeUnknown(method, path, body, demo[state]);
  });

  it("another merchant's list, settle-all, clock and reset never touch the demo merchant's payments", async () => {
    const demoBefore = await stateOf(sandbox, [DEMO_KEY]);
    const list = await call(sandbox, 'GET', '/sandbox/v1/payments', { key: other.api_key });
    expect(list.text).not.toContain(demo.P);
    expect(list.text).not.toContain(demo.A);
    expect((await call(sandbox, 'GET', `/sandbox/v1/payments?merchant_ref_no=${demo.ref}`, { key: other.api_key })).body.total).toBe(0);
    expect((await call(sandbox, 'POST', '/sandbox/v1/settle', { key: other.api_key })).body.settled).toBe(0);
    expectEnvelope(await call(sandbox, 'POST', '/sandbox/v1/clock/advance', { key: other.api_key, body: { seconds: 86_400 * 3 } }), 200);
    expectEnvelope(await call(sandbox, 'POST', '/sandbox/v1/reset', { key: other.api_key }), 200);
    expect(await stateOf(sandbox, [DEMO_KEY])).toBe(demoBefore);
  });
});

describe('payee and merchant_ref_no across merchants', () => {
  it("a payee that is not the key's merchant is a 400, and nothing changes for either merchant", async () => {
    const answer = await expectRefusedUnchanged(
      sandbox, 'POST', '/openapi/v1/payments/payment',
      { key: other.api_key, body: createBody({ payee: DEMO_PAYEE }) }, 400, /payee "DEMO-MERCHANT-1" is not the merchant of this Service-Api-Key/,
      [DEMO_KEY, other.api_key],
    );
    expect(answer.body.errors).toEqual([{ field: 'payee', message: expect.stringContaining(other.payee_id) }]);
  });

  it('the 400 does not tell whether the other payee exists', async () => {
    const real = await call(sandbox, 'POST', '/openapi/v1/payments/payment', { key: other.api_key, body: createBody({ payee: DEMO_PAYEE, merchant_ref_no: 'same' }) });
    const fake = await call(sandbox, 'POST', '/openapi/v1/payments/payment', { key: other.api_key, body: createBody({ payee: 'NO-SUCH-PAYEE-X', merchant_ref_no: 'same' }) });
    expect(real.status).toBe(400);
    expect(real.text.split(DEMO_PAYEE).join('<P>')).toBe(fake.text.split('NO-SUCH-PAYEE-X').join('<P>'));
  });

  it("another merchant may reuse a merchant_ref_no; the answer never reveals the first merchant's payment", async () => {
    const answer = await call(sandbox, 'POST', '/openapi/v1/payments/payment', { key: other.api_key, body: createBody({ payee: other.payee_id, merchant_ref_no: demo.ref }) });
    expectEnvelope(answer, 200);
    expect(answer.text).not.toContain(demo.P);
    expect(answer.body.payment_id).not.toBe(demo.P);
  });
});

describe('authentication', () => {
  const keyedRoutes: readonly [string, (id: string) => string, unknown][] = [
    ['POST', () => '/openapi/v1/payments/payment', createBody()],
    ['POST', (id) => `/openapi/v1/payments/payment/${id}/assign`, { payer: 'x' }],
    ['POST', (id) => `/openapi/v1/payments/payment/${id}/cancel`, { reason: 'x' }],
    ['POST', (id) => `/v1/payments/payment/${id}/void`, { reason: 'x' }],
    ['GET', (id) => `/v1/payments/payment/${id}`, undefined],
    ['POST', (id) => `/sandbox/v1/payments/${id}/pickup`, {}],
    ['POST', (id) => `/sandbox/v1/payments/${id}/pay`, {}],
    ['POST', (id) => `/sandbox/v1/payments/${id}/fail`, {}],
    ['POST', (id) => `/sandbox/v1/payments/${id}/expire`, {}],
    ['POST', (id) => `/sandbox/v1/payments/${id}/settle`, {}],
    ['POST', () => '/sandbox/v1/settle', {}],
    ['GET', () => '/sandbox/v1/clock', undefined],
    ['POST', () => '/sandbox/v1/clock/advance', { seconds: 60 }],
    ['GET', () => '/sandbox/v1/payments', undefined],
    ['GET', (id) => `/sandbox/v1/payments/${id}`, undefined],
    ['GET', (id) => `/sandbox/v1/payments/${id}/events`, undefined],
    ['POST', () => '/sandbox/v1/reset', {}],
    ['POST', () => '/sandbox/v1/tools/sign', { amount: 1 }],
  ];
  const badKeys: readonly [string, Record<string, string>, string | null][] = [
    ['no key', {}, null],
    ['an unknown key', {}, 'sk_sandbox_not_a_real_key'],
    ['an empty key', {}, ''],
    ['the key in upper case', {}, DEMO_KEY.toUpperCase()],
    ['the key with a suffix', {}, `${DEMO_KEY}x`],
    ['a prefix of the key', {}, DEMO_KEY.slice(0, -1)],
    ['the key as a Bearer token instead', { Authorization: `Bearer ${DEMO_KEY}` }, null],
    ['the signing salt instead of the key', {}, 'demo-signing-salt'],
  ];

  // The title shows the route; the real id is only known once beforeAll has run.
  it.each(keyedRoutes.flatMap((r) => badKeys.map((k) => [r[0], r[1]('{payment_id}'), k[0], r, k] as const)))(
    '%s %s with %s: 401, nothing changes',
    async (method, _title, _name, [, path, body], [, headers, key]) => {
      const answer = await expectRefusedUnchanged(sandbox, method, path(demo.P), { key, headers, ...(body === undefined ? {} : { body }) }, 401, /Service-Api-Key/, [DEMO_KEY, other.api_key]);
      expect(answer.text).not.toContain(DEMO_KEY);
    },
  );

  it('a 401 does not tell whether the payment exists', async () => {
    const real = await call(sandbox, 'GET', `/openapi/v1/payments/payment/${demo.P}`, { key: 'sk_sandbox_wrong' });
    const stranger = unknownPaymentId();
    const fake = await call(sandbox, 'GET', `/openapi/v1/payments/payment/${stranger}`, { key: 'sk_sandbox_wrong' });
    expect(real.text).toBe(fake.text);
  });

  it('a demo payment is unchanged by everything above', async () => {
    const status = await call(sandbox, 'GET', `/openapi/v1/payments/payment/${demo.P}`);
    expect(status.body.payment_status).toBe('P');
    const events = await call(sandbox, 'GET', `/sandbox/v1/payments/${demo.P}/events`);
    expect(events.body.events).toHaveLength(1);
  });
});
