import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { badBodies, HOSTILE_IDS } from '../../support/bad-input.js';
import { call, control, createPayment, enroll, expectEnvelope, expectRefusedUnchanged, paymentsInEachState, quietSandbox } from '../../support/http.js';
import type { PaymentsInEachState } from '../../support/http.js';

let sandbox: Sandbox;
let ids: PaymentsInEachState & { big: string };
beforeAll(async () => {
  sandbox = await quietSandbox();
  ids = { ...(await paymentsInEachState(sandbox)), big: (await createPayment(sandbox, { amount: 9999999999.99 })).payment_id };
});
afterAll(() => sandbox.close());

/** The control POST routes, each with a body it would accept. */
const ROUTES = [
  { name: 'pickup', path: () => `/sandbox/v1/payments/${ids.P}/pickup`, valid: { payer: 'p' } },
  { name: 'pay', path: () => `/sandbox/v1/payments/${ids.W}/pay`, valid: { paid_currency_code: 'USD' } },
  { name: 'fail', path: () => `/sandbox/v1/payments/${ids.W}/fail`, valid: { reason: 'declined' } },
  { name: 'expire', path: () => `/sandbox/v1/payments/${ids.P}/expire`, valid: {} },
  { name: 'settle', path: () => `/sandbox/v1/payments/${ids.A}/settle`, valid: {} },
  { name: 'settle-all', path: () => '/sandbox/v1/settle', valid: {} },
  { name: 'clock advance', path: () => '/sandbox/v1/clock/advance', valid: { seconds: 3600 } },
  { name: 'reset', path: () => '/sandbox/v1/reset', valid: {} },
  { name: 'tools/sign', path: () => '/sandbox/v1/tools/sign', valid: { amount: 1 } },
  { name: 'merchants (enrol)', path: () => '/sandbox/v1/merchants', valid: { name: 'Never Enrolled' } },
] as const;

describe.each(ROUTES)('bad bodies on $name', (route) => {
  it.each(badBodies(route.valid).map((b) => [b.name, b]))('%s: refused, nothing changes', async (_name, bad) => {
    await expectRefusedUnchanged(sandbox, 'POST', route.path(), { body: bad.text, contentType: bad.contentType ?? 'application/json' }, bad.code, bad.mentions);
  });
});

describe('control routes: every field checked, 400 and nothing changes', () => {
  const cases: readonly [string, () => string, Record<string, unknown> | string, RegExp][] = [
    ['pickup payer a number', () => `/sandbox/v1/payments/${ids.P}/pickup`, { payer: 5 }, /payer must be a string/],
    ['pickup payer empty', () => `/sandbox/v1/payments/${ids.P}/pickup`, { payer: '' }, /must not be empty/],
    ['pickup payer of 65 characters', () => `/sandbox/v1/payments/${ids.P}/pickup`, { payer: 'x'.repeat(65) }, /at most 64/],
    ['pay payer an array', () => `/sandbox/v1/payments/${ids.W}/pay`, { payer: ['x'] }, /got an array/],
    ['pay paid_currency_code lower-case', () => `/sandbox/v1/payments/${ids.W}/pay`, { paid_currency_code: 'usd' }, /paid_currency_code.*"usd"/],
    ['pay paid_currency_code unknown', () => `/sandbox/v1/payments/${ids.W}/pay`, { paid_currency_code: 'XAU' }, /paid_currency_code/],
    ['pay paid_currency_code numeric', () => `/sandbox/v1/payments/${ids.W}/pay`, { paid_currency_code: 840 }, /paid_currency_code/],
    ['pay into a currency where the amount overflows', () => `/sandbox/v1/payments/${ids.big}/pay`, { paid_currency_code: 'IDR' }, /No conversion from SGD to IDR/],
    ['fail reason a number', () => `/sandbox/v1/payments/${ids.W}/fail`, { reason: 5 }, /reason must be a string/],
    ['fail reason empty', () => `/sandbox/v1/payments/${ids.W}/fail`, { reason: '' }, /must not be empty/],
    ['fail reason of 256 characters', () => `/sandbox/v1/payments/${ids.W}/fail`, { reason: 'r'.repeat(256) }, /at most 255/],
    ['advance without seconds', () => '/sandbox/v1/clock/advance', {}, /seconds is required/],
    ['advance seconds null', () => '/sandbox/v1/clock/advance', { seconds: null }, /got null/],
    ['fault rule without anything', () => '/sandbox/v1/faults', {}, /^Invalid match: match is required \(an object \{method, path\}\) \(and 1 more problem/],
    ['fault rule without fault', () => '/sandbox/v1/faults', { match: { path: '/openapi/v1/x' } }, /^Invalid fault: fault is required \(/],
    ['fault rule without match.path', () => '/sandbox/v1/faults', { match: {}, fault: 'timeout' }, /^Invalid match.path: match.path is required \(/],
    ['fault rule fault null', () => '/sandbox/v1/faults', { match: { path: '/openapi/v1/x' }, fault: null }, /fault must be a string.*got null/],
    ['advance seconds as a string', () => '/sandbox/v1/clock/advance', { seconds: '60' }, /got a string/],
    ['advance by a fraction', () => '/sandbox/v1/clock/advance', { seconds: 1.5 }, /whole number/],
    ['advance by zero', () => '/sandbox/v1/clock/advance', { seconds: 0 }, /at least 1/],
    ['advance backwards', () => '/sandbox/v1/clock/advance', { seconds: -60 }, /at least 1/],
    ['advance by 1e400 (raw)', () => '/sandbox/v1/clock/advance', '{"seconds":1e400}', /non-finite/],
    ['advance by more than 10 years', () => '/sandbox/v1/clock/advance', { seconds: 11 * 366 * 86_400 }, /at most 10 years/],
    ['enrol name a number', () => '/sandbox/v1/merchants', { name: 5 }, /name must be a string/],
    ['enrol name of 65 characters', () => '/sandbox/v1/merchants', { name: 'n'.repeat(65) }, /at most 64/],
    ['enrol home_currency lower-case', () => '/sandbox/v1/merchants', { home_currency: 'sgd' }, /home_currency/],
    ['enrol home_currency unknown', () => '/sandbox/v1/merchants', { home_currency: 'BTC' }, /home_currency/],
    ['enrol require_signature as a string', () => '/sandbox/v1/merchants', { require_signature: 'yes' }, /require_signature must be true or false/],
    ['enrol rate_limit_per_second negative', () => '/sandbox/v1/merchants', { rate_limit_per_second: -1 }, /0 \(off\) or more/],
    ['enrol rate_limit_per_second a fraction', () => '/sandbox/v1/merchants', { rate_limit_per_second: 1.5 }, /whole number/],
    ['enrol inline_qr_image as a string', () => '/sandbox/v1/merchants', { inline_qr_image: 'true' }, /inline_qr_image/],
    ['enrol qr_ttl_seconds too short', () => '/sandbox/v1/merchants', { qr_ttl_seconds: 5 }, /at least 10/],
    ['enrol qr_ttl_seconds 1e400 (raw)', () => '/sandbox/v1/merchants', '{"qr_ttl_seconds":1e400}', /non-finite/],
  ];
  it.each(cases)('%s', async (_name, path, body, mentions) => {
    await expectRefusedUnchanged(sandbox, 'POST', path(), { body }, 400, mentions);
  });
});

describe('control routes: refused transitions answer 402 like public ones, nothing changes', () => {
  const cases: readonly [string, keyof typeof ids, RegExp][] = [
    ['pickup', 'A', /it is A .*already paid/],
    ['pickup', 'E', /it is E .*final status/],
    ['pay', 'A', /it is A .*already paid/],
    ['pay', 'V', /it is V .*final status/],
    ['pay', 'F', /it is F .*final status/],
    ['fail', 'A', /it is A .*already paid/],
    ['fail', 'E', /it is E .*final status/],
    ['expire', 'A', /it is A .*already paid/],
    ['expire', 'V', /it is V .*final status/],
    ['expire', 'settled', /final status/],
    ['settle', 'P', /it is P .*only a paid payment \(status A\) can be settled/],
    ['settle', 'W', /it is W .*only a paid payment/],
    ['settle', 'settled', /already settled/],
    ['settle', 'V', /only a paid payment/],
  ];
  it.each(cases)('%s on %s', async (action, state, mentions) => {
    await expectRefusedUnchanged(sandbox, 'POST', `/sandbox/v1/payments/${ids[state]}/${action}`, {}, 402, mentions);
  });
});

describe('hostile payment ids on the control routes: 404, nothing changes', () => {
  it.each(HOSTILE_IDS)('%s', async (_name, id) => {
    await expectRefusedUnchanged(sandbox, 'GET', `/sandbox/v1/payments/${id}`, {}, 404);
    await expectRefusedUnchanged(sandbox, 'GET', `/sandbox/v1/payments/${id}/events`, {}, 404);
    for (const action of ['pickup', 'pay', 'fail', 'expire', 'settle']) {
      await expectRefusedUnchanged(sandbox, 'POST', `/sandbox/v1/payments/${id}/${action}`, { body: {} }, 404);
    }
  });
});

describe('payment list: bad query parameters', () => {
  it.each([
    ['status=X', /status must be one of P, W, E, F, V, A/],
    ['status=p', /status must be one of/],
    ['limit=0', /at least 1/],
    ['limit=101', /at most 100/],
    ['limit=abc', /limit/],
    ['limit=1.5', /whole number/],
    ['limit=1e400', /limit/],
    ['offset=-1', /offset must be at least 0/],
    ['offset=abc', /offset/],
    [`merchant_ref_no=${'r'.repeat(65)}`, /at most 64/],
  ])('?%s: 400 naming the parameter, nothing changes', async (query, mentions) => {
    await expectRefusedUnchanged(sandbox, 'GET', `/sandbox/v1/payments?${query}`, {}, 400, mentions);
  });

  it('an unknown filter value that is well-formed finds nothing', async () => {
    const answer = await call(sandbox, 'GET', `/sandbox/v1/payments?merchant_ref_no=${encodeURIComponent('../../☃')}`);
    expectEnvelope(answer, 200);
    expect(answer.body).toMatchObject({ total: 0, payments: [] });
  });
});

describe('unknown fields on control routes are accepted and named', () => {
  it.each([
    ['pickup', { payer: 'x', payer_name: 'n' }, 'payer_name'],
    ['expire', { reason: 'why' }, 'reason'],
  ])('%s', async (action, body, field) => {
    const { payment_id } = await createPayment(sandbox);
    const answer = await control(sandbox, payment_id, action, body);
    expectEnvelope(answer, 200);
    expect(answer.headers.get('sandbox-warning')).toContain(`unknown field "${field}" ignored`);
  });

  it('clock advance names the unknown field (minutes instead of seconds is still refused)', async () => {
    const answer = await expectRefusedUnchanged(sandbox, 'POST', '/sandbox/v1/clock/advance', { body: { minutes: 5 } }, 400, /seconds is required/);
    expect(answer.headers.get('sandbox-warning')).toContain('unknown field "minutes" ignored');
  });
});

describe('unknown fields on the other control routes are accepted and named', () => {
  it('pay, fail, settle, settle-all, reset and enrolment each name the field they ignored', async () => {
    const fresh = await quietSandbox();
    try {
      const paid = (await createPayment(fresh)).payment_id;
      const failed = (await createPayment(fresh)).payment_id;
      const cases: readonly [string, string, Record<string, unknown>, string][] = [
        ['POST', `/sandbox/v1/payments/${paid}/pay`, { currency: 'USD' }, 'unknown field "currency" ignored'],
        ['POST', `/sandbox/v1/payments/${failed}/fail`, { reason: 'r', code: 51 }, 'unknown field "code" ignored'],
        ['POST', `/sandbox/v1/payments/${paid}/settle`, { when: 'now' }, 'unknown field "when" ignored'],
        ['POST', '/sandbox/v1/settle', { all: true }, 'unknown field "all" ignored'],
        ['POST', '/sandbox/v1/reset', { hard: true }, 'unknown field "hard" ignored'],
        ['POST', '/sandbox/v1/merchants', { currency: 'EUR' }, 'unknown field "currency" ignored'],
      ];
      for (const [method, path, body, warning] of cases) {
        const answer = await call(fresh, method, path, { body, ...(path.endsWith('/merchants') ? { key: null } : {}) });
        expectEnvelope(answer, 200);
        expect(answer.headers.get('sandbox-warning')).toContain(warning);
      }
      // The typo was ignored: the merchant got the default home currency, not EUR.
      expect((await enroll(fresh, { currency: 'EUR' })).home_currency).toBe('SGD');
    } finally {
      await fresh.close();
    }
  });
});
