import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import type { Answer, PaymentsInEachState } from '../../support/http.js';
import { badBodies, HOSTILE_IDS } from '../../support/bad-input.js';
import {
  DEMO_PAYEE,
  PREFIXES,
  SIGNED_KEY,
  SIGNED_PAYEE,
  call,
  control,
  createBody,
  createPayment,
  expectEnvelope,
  expectRefusedUnchanged,
  paymentsInEachState,
  quietSandbox,
  statusOf,
} from '../../support/http.js';

let sandbox: Sandbox;
/** One payment in each state a public route acts on. */
let ids: PaymentsInEachState;
beforeAll(async () => {
  sandbox = await quietSandbox();
  ids = await paymentsInEachState(sandbox);
});
afterAll(() => sandbox.close());

/** SPEC 4: public answers carry code and description; errors on validation, payment_id on a duplicate, string_to_sign on a mismatch. */
function expectPublicFields(answer: Answer): void {
  for (const key of Object.keys(answer.body)) expect(['code', 'description', 'errors', 'payment_id', 'string_to_sign']).toContain(key);
}

const VALID_CREATE = { payee: DEMO_PAYEE, product_type: 'QR_DYNAMIC', merchant_ref_no: 'never-stored', amount: 10.5 };

/** The public POST routes, each with a body it would accept and the payment it acts on. */
const POST_ROUTES = [
  { name: 'create', path: () => '/payments/payment', valid: VALID_CREATE },
  { name: 'assign', path: () => `/payments/payment/${ids.P}/assign`, valid: { payer: 'someone' } },
  { name: 'cancel', path: () => `/payments/payment/${ids.W}/cancel`, valid: { reason: 'changed my mind' } },
  { name: 'void', path: () => `/payments/payment/${ids.A}/void`, valid: { reason: 'refund' } },
] as const;

describe.each(PREFIXES)('bad bodies on the public routes under %s', (prefix) => {
  describe.each(POST_ROUTES)('$name', (route) => {
    it.each(badBodies(route.valid).map((b) => [b.name, b]))('%s: refused, nothing changes', async (_name, bad) => {
      const answer = await expectRefusedUnchanged(sandbox, 'POST', prefix + route.path(), { body: bad.text, contentType: bad.contentType ?? 'application/json' }, bad.code, bad.mentions);
      expectPublicFields(answer);
    });

    it('no body at all: 400, nothing changes', async () => {
      await expectRefusedUnchanged(sandbox, 'POST', prefix + route.path(), {}, 400, /body is required/);
    });

    it('an empty body with a JSON content type: 400, nothing changes', async () => {
      await expectRefusedUnchanged(sandbox, 'POST', prefix + route.path(), { body: '' }, 400);
    });
  });
});

describe('create: every field checked', () => {
  const FIELD_CASES: readonly [string, Record<string, unknown> | string, RegExp][] = [
    ['payee missing', { ...VALID_CREATE, payee: undefined }, /payee is required/],
    ['product_type missing', { ...VALID_CREATE, product_type: undefined }, /product_type is required \(one of QR_DYNAMIC, QR_STATIC, IN_APP\)/],
    ['merchant_ref_no missing', { ...VALID_CREATE, merchant_ref_no: undefined }, /merchant_ref_no is required/],
    ['amount missing', { ...VALID_CREATE, amount: undefined }, /amount is required/],
    ['everything missing', {}, /and 3 more problems/],
    ['payee null', { ...VALID_CREATE, payee: null }, /payee must be a string.*got null/],
    ['product_type null', { ...VALID_CREATE, product_type: null }, /product_type must be one of.*got null/],
    ['merchant_ref_no null', { ...VALID_CREATE, merchant_ref_no: null }, /merchant_ref_no must be a string.*got null/],
    ['amount null', { ...VALID_CREATE, amount: null }, /amount must be a JSON number.*got null/],
    ['amount as a string', { ...VALID_CREATE, amount: '10.50' }, /not a string.*got a string/],
    ['amount as a boolean', { ...VALID_CREATE, amount: true }, /got a boolean/],
    ['amount as an object', { ...VALID_CREATE, amount: { value: 10.5 } }, /got an object/],
    ['amount as an array', { ...VALID_CREATE, amount: [10.5] }, /got an array/],
    ['amount with 3 decimals', { ...VALID_CREATE, amount: 10.005 }, /at most 2 decimals/],
    ['amount 0.001', { ...VALID_CREATE, amount: 0.001 }, /at most 2 decimals/],
    ['amount zero', { ...VALID_CREATE, amount: 0 }, /between 0.01 and 9999999999.99/],
    ['a negative amount', { ...VALID_CREATE, amount: -10 }, /amount/],
    ['amount over the EMV limit', { ...VALID_CREATE, amount: 10000000000 }, /between 0.01 and 9999999999.99/],
    ['amount 1e400 (raw JSON text)', '{"payee":"DEMO-MERCHANT-1","product_type":"QR_DYNAMIC","merchant_ref_no":"n","amount":1e400}', /non-finite/],
    ['amount -1e400 (raw JSON text)', '{"payee":"DEMO-MERCHANT-1","product_type":"QR_DYNAMIC","merchant_ref_no":"n","amount":-1e400}', /non-finite/],
    ['amount 1e-7 (raw JSON text)', '{"payee":"DEMO-MERCHANT-1","product_type":"QR_DYNAMIC","merchant_ref_no":"n","amount":1e-7}', /at most 2 decimals/],
    ['amount with 400 digits', `{"payee":"DEMO-MERCHANT-1","product_type":"QR_DYNAMIC","merchant_ref_no":"n","amount":${'9'.repeat(400)}}`, /amount/],
    ['currency_code lower-case', { ...VALID_CREATE, currency_code: 'sgd' }, /upper-case ISO 4217.*"sgd"/],
    ['currency_code unknown', { ...VALID_CREATE, currency_code: 'XYZ' }, /currency_code.*"XYZ"/],
    ['currency_code without two minor units (JPY)', { ...VALID_CREATE, currency_code: 'JPY' }, /currency_code/],
    ['currency_code numeric', { ...VALID_CREATE, currency_code: 702 }, /currency_code/],
    ['currency_code empty', { ...VALID_CREATE, currency_code: '' }, /currency_code/],
    ['currency_code with spaces', { ...VALID_CREATE, currency_code: ' SGD ' }, /currency_code/],
    ['product_type unknown', { ...VALID_CREATE, product_type: 'QR_SUPER' }, /product_type must be one of QR_DYNAMIC, QR_STATIC, IN_APP, got "QR_SUPER"/],
    ['product_type wrong case', { ...VALID_CREATE, product_type: 'qr_dynamic' }, /QR_DYNAMIC, QR_STATIC, IN_APP/],
    ['product_type a number', { ...VALID_CREATE, product_type: 1 }, /QR_DYNAMIC, QR_STATIC, IN_APP/],
    ['merchant_ref_no with a space', { ...VALID_CREATE, merchant_ref_no: 'order 1' }, /merchant_ref_no may hold only/],
    ['merchant_ref_no with unicode', { ...VALID_CREATE, merchant_ref_no: 'ördér-☃' }, /merchant_ref_no may hold only/],
    ['merchant_ref_no with a path', { ...VALID_CREATE, merchant_ref_no: '../../etc/passwd' }, /merchant_ref_no may hold only/],
    ['merchant_ref_no of 65 characters', { ...VALID_CREATE, merchant_ref_no: 'r'.repeat(65) }, /at most 64/],
    ['merchant_ref_no empty', { ...VALID_CREATE, merchant_ref_no: '' }, /must not be empty/],
    ['merchant_ref_no a number', { ...VALID_CREATE, merchant_ref_no: 12345 }, /got a number/],
    ['payee a number', { ...VALID_CREATE, payee: 1 }, /payee must be a string/],
    ['payee empty', { ...VALID_CREATE, payee: '' }, /payee must not be empty/],
    ['payee of 65 characters', { ...VALID_CREATE, payee: 'p'.repeat(65) }, /at most 64/],
    ['payer empty', { ...VALID_CREATE, payer: '' }, /payer must not be empty/],
    ['payer of 65 characters', { ...VALID_CREATE, payer: 'p'.repeat(65) }, /at most 64/],
    ['payer a number', { ...VALID_CREATE, payer: 42 }, /payer must be a string/],
    ['payer 1e400 (raw JSON text)', '{"payee":"DEMO-MERCHANT-1","product_type":"QR_DYNAMIC","merchant_ref_no":"n","amount":1,"payer":1e400}', /payer must be a string.*non-finite/],
    ['metadata a string', { ...VALID_CREATE, metadata: 'note' }, /metadata must be a JSON object, got a string/],
    ['metadata an array', { ...VALID_CREATE, metadata: [1, 2] }, /metadata must be a JSON object/],
    ['metadata with 51 keys', { ...VALID_CREATE, metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }, /at most 50 keys/],
    ['metadata over 8 KiB', { ...VALID_CREATE, metadata: { big: 'm'.repeat(8200) } }, /at most 8 KiB/],
    ['metadata over 8 KiB in a "__proto__" key (raw JSON text)', `{"payee":"DEMO-MERCHANT-1","product_type":"QR_DYNAMIC","merchant_ref_no":"n","amount":1,"metadata":{"__proto__":"${'m'.repeat(8200)}"}}`, /at most 8 KiB/],
    ['metadata nested 2,000 levels (within 8 KiB)', `{"payee":"DEMO-MERCHANT-1","product_type":"QR_DYNAMIC","merchant_ref_no":"n","amount":1,"metadata":{"x":${'['.repeat(2000)}${']'.repeat(2000)}}}`, /nested/],
    ['sign_type a number', { ...VALID_CREATE, sign_type: 512 }, /sign_type/],
    ['sign an object', { ...VALID_CREATE, sign: { hex: 'ab' } }, /sign/],
  ];

  it.each(FIELD_CASES)('%s: 400 naming the rule, nothing changes', async (_name, body, mentions) => {
    const answer = await expectRefusedUnchanged(sandbox, 'POST', '/openapi/v1/payments/payment', { body }, 400, mentions);
    expectPublicFields(answer);
    if (answer.body.errors) expect(answer.body.errors[0]).toEqual({ field: expect.any(String), message: expect.any(String) });
  });

  const REQUIRED = ['payee', 'product_type', 'merchant_ref_no', 'amount'] as const;
  const LEFT_OUT: readonly [string, Record<string, unknown>][] = [
    ['each required field left out', {}],
    ...REQUIRED.map((field): [string, Record<string, unknown>] => [`${field} left out`, { ...VALID_CREATE, [field]: undefined }]),
  ];
  it.each(LEFT_OUT)('%s: each missing field "is required", none "got null"', async (_name, body) => {
    const answer = await expectRefusedUnchanged(sandbox, 'POST', '/openapi/v1/payments/payment', { body }, 400);
    const missing = REQUIRED.filter((f) => body[f] === undefined);
    expect(answer.body.errors.map((e: { field: string }) => e.field)).toEqual(missing);
    for (const error of answer.body.errors as { field: string; message: string }[]) expect(error.message).toMatch(new RegExp(`^${error.field} is required \\(`));
    expect(answer.text).not.toMatch(/got null|got undefined/);
  });

  it('a validation error lists every problem with its field', async () => {
    const answer = await expectRefusedUnchanged(sandbox, 'POST', '/openapi/v1/payments/payment', { body: { payee: 5, amount: '1', currency_code: 'usd' } }, 400);
    const fields = (answer.body.errors as { field: string }[]).map((e) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['payee', 'product_type', 'merchant_ref_no', 'amount', 'currency_code']));
  });

  it('a duplicate merchant_ref_no stores nothing: 402 with the existing payment_id', async () => {
    const existing = (await call(sandbox, 'GET', `/sandbox/v1/payments/${ids.P}`)).body.payment.merchant_ref_no as string;
    const answer = await expectRefusedUnchanged(sandbox, 'POST', '/openapi/v1/payments/payment', { body: createBody({ merchant_ref_no: existing }) }, 402, /Duplicate merchant_ref_no/);
    expect(answer.body.payment_id).toBe(ids.P);
  });
});

describe('create on a merchant that requires signatures: 401, nothing changes', () => {
  const body = () => createBody({ payee: SIGNED_PAYEE });
  it.each([
    ['no signature', () => body(), /Signature required/],
    ['an unknown sign_type', () => ({ ...body(), sign_type: 'MD5', sign: 'ab' }), /sign_type/],
    ['sign_type without sign', () => ({ ...body(), sign_type: 'SHA512' }), /sign is missing/],
    ['a wrong signature', () => ({ ...body(), sign_type: 'SHA512', sign: 'f'.repeat(128) }), /Signature mismatch/],
    ['an upper-case signature', () => ({ ...body(), sign_type: 'SHA512', sign: 'F'.repeat(128) }), /Signature mismatch/],
  ])('%s', async (_name, make, mentions) => {
    const answer = await expectRefusedUnchanged(sandbox, 'POST', '/openapi/v1/payments/payment', { key: SIGNED_KEY, body: make() }, 401, mentions, [SIGNED_KEY]);
    if (/mismatch/.test(answer.body.description)) {
      expect(answer.body.string_to_sign).toMatch(/&<signing_salt>$/);
      expect(answer.text).not.toContain('demo-signing-salt');
    }
  });
});

describe('assign, cancel and void: every field checked', () => {
  const cases: readonly [string, () => string, string, Record<string, unknown> | string, RegExp][] = [
    ['assign', () => ids.P, 'no payer', {}, /payer is required/],
    ['assign', () => ids.P, 'payer null', { payer: null }, /payer must be a string.*got null/],
    ['assign', () => ids.P, 'payer a number', { payer: 7 }, /got a number/],
    ['assign', () => ids.P, 'payer an array', { payer: ['a'] }, /got an array/],
    ['assign', () => ids.P, 'payer an object', { payer: { id: 'a' } }, /got an object/],
    ['assign', () => ids.P, 'payer empty', { payer: '' }, /must not be empty/],
    ['assign', () => ids.P, 'payer of 65 characters', { payer: 'x'.repeat(65) }, /at most 64/],
    ['assign', () => ids.P, 'payer 1e400 (raw)', '{"payer":1e400}', /non-finite/],
    ['assign', () => ids.P, 'payer_id instead of payer', { payer_id: 'x' }, /payer is required/],
    ['cancel', () => ids.W, 'no reason', {}, /reason is required/],
    ['cancel', () => ids.W, 'reason null', { reason: null }, /got null/],
    ['cancel', () => ids.W, 'reason a boolean', { reason: true }, /got a boolean/],
    ['cancel', () => ids.W, 'reason empty', { reason: '' }, /must not be empty/],
    ['cancel', () => ids.W, 'reason of 256 characters', { reason: 'r'.repeat(256) }, /at most 255/],
    ['cancel', () => ids.W, 'reason -1e400 (raw)', '{"reason":-1e400}', /non-finite/],
    ['void', () => ids.A, 'no reason', {}, /reason is required/],
    ['void', () => ids.A, 'reason null', { reason: null }, /got null/],
    ['void', () => ids.A, 'reason a number', { reason: 1 }, /got a number/],
    ['void', () => ids.A, 'reason of 256 characters', { reason: 'r'.repeat(256) }, /at most 255/],
  ];
  it.each(cases)('%s with %s: 400, nothing changes', async (action, id, _name, body, mentions) => {
    await expectRefusedUnchanged(sandbox, 'POST', `/openapi/v1/payments/payment/${id()}/${action}`, { body }, 400, mentions);
  });
});

describe('refused transitions on the public routes: 402 naming the state and the alternative', () => {
  const cases: readonly [string, keyof typeof ids, Record<string, unknown>, RegExp][] = [
    ['void', 'P', { reason: 'r' }, /it is P .*not paid yet, so use cancel/],
    ['void', 'W', { reason: 'r' }, /it is W .*not paid yet, so use cancel/],
    ['cancel', 'A', { reason: 'r' }, /it is A .*already paid, so use void/],
    ['void', 'settled', { reason: 'r' }, /it is A .*settled.*already settled/],
    ['cancel', 'settled', { reason: 'r' }, /already paid and settled/],
    ['assign', 'A', { payer: 'x' }, /it is A .*already paid/],
    ['assign', 'V', { payer: 'x' }, /it is V .*final status/],
    ['assign', 'E', { payer: 'x' }, /it is E .*final status/],
    ['cancel', 'V', { reason: 'r' }, /it is V .*final status/],
    ['cancel', 'E', { reason: 'r' }, /it is E .*final status/],
    ['void', 'V', { reason: 'r' }, /it is V .*final status/],
    ['void', 'E', { reason: 'r' }, /it is E .*final status/],
  ];
  it.each(cases)('%s on %s', async (action, state, body, mentions) => {
    const answer = await expectRefusedUnchanged(sandbox, 'POST', `/openapi/v1/payments/payment/${ids[state]}/${action}`, { body }, 402, mentions);
    expect(Object.keys(answer.body)).toEqual(['code', 'description']);
  });
});

describe.each(PREFIXES)('hostile payment ids under %s: 404, nothing changes', (prefix) => {
  it.each(HOSTILE_IDS)('%s in status', async (_name, id) => {
    const answer = await expectRefusedUnchanged(sandbox, 'GET', `${prefix}/payments/payment/${id}`, {}, 404);
    expect(Object.keys(answer.body)).toEqual(['code', 'description']);
  });

  it.each(HOSTILE_IDS)('%s in assign, cancel and void', async (_name, id) => {
    for (const [action, body] of [['assign', { payer: 'PAYER_PAYS' }], ['cancel', { reason: 'r' }], ['void', { reason: 'r' }]] as const) {
      await expectRefusedUnchanged(sandbox, 'POST', `${prefix}/payments/payment/${id}/${action}`, { body }, 404);
    }
  });
});

describe('unknown fields are accepted but named in Sandbox-Warning', () => {
  it('create names each unknown field and suggests the right name for a typo', async () => {
    const answer = await call(sandbox, 'POST', '/openapi/v1/payments/payment', { body: createBody({ currency: 'USD', colour: 'blue' }) });
    expectEnvelope(answer, 200);
    const warning = answer.headers.get('sandbox-warning') ?? '';
    expect(warning).toContain('unknown field "currency" ignored (did you mean "currency_code"?)');
    expect(warning).toContain('unknown field "colour" ignored');
    // The typo really was ignored: the payment is in the home currency.
    expect((await statusOf(sandbox, answer.body.payment_id)).original_currency_code).toBe('SGD');
  });

  it.each([
    ['assign', { payer: 'someone', payer_name: 'Pat' }, 'payer_name'],
    ['cancel', { reason: 'r', note: 'n' }, 'note'],
  ])('%s names the unknown field', async (action, body, field) => {
    const { payment_id } = await createPayment(sandbox);
    const answer = await call(sandbox, 'POST', `/v1/payments/payment/${payment_id}/${action}`, { body });
    expectEnvelope(answer, 200);
    expect(answer.headers.get('sandbox-warning')).toContain(`unknown field "${field}" ignored`);
  });

  it('void names the unknown field', async () => {
    const { payment_id } = await createPayment(sandbox, { payer: 'PAYER_PAYS' });
    const answer = await call(sandbox, 'POST', `/openapi/v1/payments/payment/${payment_id}/void`, { body: { reason: 'r', refund_amount: 1 } });
    expectEnvelope(answer, 200);
    expect(answer.headers.get('sandbox-warning')).toContain('unknown field "refund_amount" ignored');
  });

  it('a field name with non-ASCII characters is escaped in the header, not dropped', async () => {
    const answer = await call(sandbox, 'POST', '/openapi/v1/payments/payment', { body: createBody({ 'währung': 'EUR' }) });
    expectEnvelope(answer, 200);
    expect(answer.headers.get('sandbox-warning')).toContain('w\\u00e4hrung');
  });

  it('a valid answer carries no warning', async () => {
    const answer = await call(sandbox, 'POST', '/openapi/v1/payments/payment', { body: createBody() });
    expect(answer.headers.get('sandbox-warning')).toBeNull();
  });
});

describe('the per-merchant payment cap', () => {
  it('refuses a create over the cap with 402 naming the cure, and stores nothing', async () => {
    const capped = await quietSandbox({ config: { maxPaymentsPerMerchant: 3 } });
    try {
      for (let i = 0; i < 3; i++) await createPayment(capped);
      const answer = await expectRefusedUnchanged(capped, 'POST', '/openapi/v1/payments/payment', { body: createBody() }, 402, /sandbox cap.*\/sandbox\/v1\/reset/);
      expectPublicFields(answer);
      expectEnvelope(await call(capped, 'POST', '/sandbox/v1/reset'), 200);
      await createPayment(capped);
    } finally {
      await capped.close();
    }
  });
});
