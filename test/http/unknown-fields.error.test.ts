/** SPEC 10: each unknown field, at any level of a body, is named in Sandbox-Warning and the journal, with a "did you mean" for a near miss. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { call, createBody, expectEnvelope, quietSandbox } from '../support/http.js';

describe('unknown fields nested in objects', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await quietSandbox();
  });
  afterAll(() => sandbox.close());

  const warningOf = (answer: { headers: Headers }) => answer.headers.get('sandbox-warning') ?? '';

  it('a fault rule names a typo inside match and one at the top, each with its near miss, in the header and the journal', async () => {
    const body = '{"match":{"path":"/openapi/v1/payments/payment","mthod":"GET"},"fault":"error=500","time":3}';
    const answer = await call(sandbox, 'POST', '/sandbox/v1/faults', { body });
    expectEnvelope(answer, 200);
    expect(warningOf(answer)).toBe('unknown field "match.mthod" ignored (did you mean "match.method"?); unknown field "time" ignored (did you mean "times"?)');
    // Ignored indeed: the rule is as if they were not sent.
    expect(answer.body.rule).toMatchObject({ match: { method: '*', path: '/openapi/v1/payments/payment' }, times_left: null });
    const journal = await call(sandbox, 'GET', '/sandbox/v1/requests?path=/sandbox/v1/faults&limit=1');
    expect(journal.body.requests[0].warnings).toEqual([
      'unknown field "match.mthod" ignored (did you mean "match.method"?)',
      'unknown field "time" ignored (did you mean "times"?)',
    ]);
    await call(sandbox, 'DELETE', '/sandbox/v1/faults');
  });

  it('webhook drills name an unknown member of faults, with its near miss', async () => {
    const answer = await call(sandbox, 'PUT', '/sandbox/v1/webhook', { body: { url: null, faults: { dupe: 0.5, delay_second: 5, reorder: true } } });
    expectEnvelope(answer, 200);
    expect(warningOf(answer)).toBe('unknown field "faults.dupe" ignored; unknown field "faults.delay_second" ignored (did you mean "faults.delay_seconds"?)');
  });

  it('near misses at the top of a create: one slip, a swap, another case or separator, a name that means another', async () => {
    const body = createBody({ metdata: { a: 1 }, mercahnt_ref_no: 'x', productType: 'QR_DYNAMIC', CURRENCY_CODE: 'SGD', currency: 'SGD', colour: 'blue' });
    const answer = await call(sandbox, 'POST', '/openapi/v1/payments/payment', { body });
    expectEnvelope(answer, 200);
    expect(warningOf(answer).split('; ')).toEqual([
      'unknown field "metdata" ignored (did you mean "metadata"?)',
      'unknown field "mercahnt_ref_no" ignored (did you mean "merchant_ref_no"?)',
      'unknown field "productType" ignored (did you mean "product_type"?)',
      'unknown field "CURRENCY_CODE" ignored (did you mean "currency_code"?)',
      'unknown field "currency" ignored (did you mean "currency_code"?)',
      'unknown field "colour" ignored',
    ]);
  });

  it('a hint names only a field of the same object: "currency" on enrol is not sent to currency_code, a create field', async () => {
    const answer = await call(sandbox, 'POST', '/sandbox/v1/merchants', { body: { currency: 'EUR', signature: 'x', nme: 'Shop' } });
    expectEnvelope(answer, 200);
    expect(warningOf(answer)).toBe('unknown field "currency" ignored; unknown field "signature" ignored; unknown field "nme" ignored (did you mean "name"?)');
  });

  it('metadata is any object: its keys are not fields', async () => {
    const answer = await call(sandbox, 'POST', '/openapi/v1/payments/payment', { body: createBody({ metadata: { mthod: 1, time: 2, order: { id: 3 } } }) });
    expectEnvelope(answer, 200);
    expect(answer.headers.get('sandbox-warning')).toBeNull();
  });

  it('names of Object.prototype are names like any other: no hint from the prototype, at the top or nested', async () => {
    const create = await call(sandbox, 'POST', '/openapi/v1/payments/payment', {
      body: JSON.stringify(createBody()).replace(/^\{/, '{"constructor":1,"__proto__":{"x":1},"toString":2,'),
    });
    expectEnvelope(create, 200);
    expect(warningOf(create)).toBe('unknown field "constructor" ignored; unknown field "__proto__" ignored; unknown field "toString" ignored');
    const rule = await call(sandbox, 'POST', '/sandbox/v1/faults', {
      body: '{"match":{"path":"/v1/*","hasOwnProperty":1,"__proto__":{"method":"POST"}},"fault":"latency=1","valueOf":0}',
    });
    expectEnvelope(rule, 200);
    expect(warningOf(rule)).toBe('unknown field "match.hasOwnProperty" ignored; unknown field "match.__proto__" ignored; unknown field "valueOf" ignored');
    expect(rule.body.rule.match).toEqual({ method: '*', path: '/v1/*' });
    await call(sandbox, 'DELETE', '/sandbox/v1/faults');
  });

  it('at most 10 unknown fields are named in all, nested ones included', async () => {
    const match: Record<string, unknown> = { path: '/v1/*' };
    for (let i = 0; i < 8; i++) match[`m${i}`] = i;
    const body: Record<string, unknown> = { match, fault: 'latency=1' };
    for (let i = 0; i < 8; i++) body[`t${i}`] = i;
    const answer = await call(sandbox, 'POST', '/sandbox/v1/faults', { body });
    expectEnvelope(answer, 200);
    const named = warningOf(answer).split('; ');
    expect(named).toHaveLength(10);
    expect(named.slice(0, 8)).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((i) => `unknown field "match.m${i}" ignored`));
    await call(sandbox, 'DELETE', '/sandbox/v1/faults');
  });

  it('an unknown field is named even when the body is refused for another reason', async () => {
    const answer = await call(sandbox, 'POST', '/sandbox/v1/faults', { body: { match: { path: '/v1/*', mthod: 'GET' }, fault: 'meteor' } });
    expectEnvelope(answer, 400);
    expect(warningOf(answer)).toContain('unknown field "match.mthod" ignored (did you mean "match.method"?)');
  });
});
