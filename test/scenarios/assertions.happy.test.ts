import { describe, expect, it } from 'vitest';
import { checkExpectations, checkValue } from '../../src/scenarios/assertions.js';
import type { Observed } from '../../src/scenarios/assertions.js';
import { getPath, parsePath } from '../../src/scenarios/json-path.js';
import { render, TemplateError } from '../../src/scenarios/template.js';
import type { TemplateScope } from '../../src/scenarios/template.js';

const passes = (expectation: Parameters<typeof checkValue>[1], value: unknown, found = true) => checkValue('v', expectation, found, value).passed;

describe('assertions: scalars and arrays mean equality, objects are matchers', () => {
  it('equality is deep and typed', () => {
    expect(passes('A', 'A')).toBe(true);
    expect(passes(10.5, 10.5)).toBe(true);
    expect(passes('10.5', 10.5)).toBe(false);
    expect(passes(null, null)).toBe(true);
    expect(passes(null, null, false)).toBe(false);
    expect(passes([1, { a: 2 }], [1, { a: 2 }])).toBe(true);
    expect(passes({ equals: { a: [1] } }, { a: [1] })).toBe(true);
    expect(passes({ equals: { a: [1] } }, { a: [1], b: 2 })).toBe(false);
  });

  it('matches: a regular expression on the value as text, "/re/flags" for flags', () => {
    expect(passes({ matches: '^pay_' }, 'pay_123')).toBe(true);
    expect(passes({ matches: '^pay_' }, 'ptok_1')).toBe(false);
    expect(passes({ matches: '/ALREADY/i' }, 'it is already paid')).toBe(true);
    expect(passes({ matches: '^42$' }, 42)).toBe(true);
  });

  it('type, exists, oneOf, contains, length and bounds', () => {
    expect(passes({ type: 'integer' }, 1700000000)).toBe(true);
    expect(passes({ type: 'integer' }, 10.5)).toBe(false);
    expect(passes({ type: 'null' }, null)).toBe(true);
    expect(passes({ type: 'array' }, [])).toBe(true);
    expect(passes({ type: 'object' }, [])).toBe(false);
    expect(passes({ exists: true }, null)).toBe(true);
    expect(passes({ exists: false }, undefined, false)).toBe(true);
    expect(passes({ exists: false }, null)).toBe(false);
    expect(passes({ oneOf: ['W', 'A'] }, 'A')).toBe(true);
    expect(passes({ oneOf: ['W', 'A'] }, 'P')).toBe(false);
    expect(passes({ contains: 'currency_code' }, 'did you mean "currency_code"?')).toBe(true);
    expect(passes({ contains: { field: 'amount' } }, [{ field: 'payee' }, { field: 'amount' }])).toBe(true);
    expect(passes({ length: 2 }, [1, 2])).toBe(true);
    expect(passes({ length: 3 }, 'abc')).toBe(true);
    expect(passes({ gt: 5, lte: 10 }, 10)).toBe(true);
    expect(passes({ gte: '100' }, 99)).toBe(false);
  });

  it('a matcher on an absent value fails with "to exist"', () => {
    const result = checkValue('body $.payer', { type: 'object' }, false, undefined);
    expect(result).toEqual({ target: 'body $.payer', passed: false, expected: 'to exist', actual: '(absent)' });
  });

  it('a failed matcher says which rules failed and shows the actual value', () => {
    expect(checkValue('body $.n', { type: 'string', gt: 100 }, true, 5)).toEqual({ target: 'body $.n', passed: false, expected: 'type string, > 100', actual: '5' });
  });
});

describe('checkExpectations: status, code, description, body paths, headers, text', () => {
  const seen: Observed = {
    outcome: 'response',
    status: 402,
    headers: new Headers({ 'Sandbox-Warning': 'unknown field "currency" ignored' }),
    text: '{"code":402,"description":"Cannot cancel: it is already paid","payment_id":"pay_1","amount":10.50}',
    json: { code: 402, description: 'Cannot cancel: it is already paid', payment_id: 'pay_1', amount: 10.5 },
  };

  it('passes when everything holds', () => {
    const results = checkExpectations(
      {
        status: 402,
        code: { oneOf: [402, 404] },
        description: 'already paid',
        body: { payment_id: 'pay_1', '$.amount': 10.5 },
        headers: { 'sandbox-warning': { matches: 'currency' } },
        text: '"amount":10\\.50',
      },
      seen,
    );
    expect(results.map((r) => [r.target, r.passed])).toEqual([
      ['status', true],
      ['code', true],
      ['description', true],
      ['body $.payment_id', true],
      ['body $.amount', true],
      ['header sandbox-warning', true],
      ['body text', true],
    ]);
  });

  it('reports every failure with expected and actual', () => {
    const failed = checkExpectations({ status: 200, code: 200, description: '^Payment', headers: { 'Retry-After': { exists: true } } }, seen).filter((r) => !r.passed);
    expect(failed).toEqual([
      { target: 'status', passed: false, expected: '200', actual: '402' },
      { target: 'code', passed: false, expected: '200', actual: '402' },
      { target: 'description', passed: false, expected: 'matches ^Payment', actual: '"Cannot cancel: it is already paid"' },
      { target: 'header retry-after', passed: false, expected: 'to exist', actual: '(absent)' },
    ]);
  });

  it('a timeout is a failure unless the step expects one', () => {
    const timeout: Observed = { outcome: 'timeout' };
    expect(checkExpectations({}, timeout)).toEqual([{ target: 'outcome', passed: false, expected: 'a response', actual: 'no response before the timeout' }]);
    expect(checkExpectations({ outcome: 'timeout' }, timeout)).toEqual([]);
    expect(checkExpectations({ outcome: 'dropped' }, seen)[0]).toMatchObject({ passed: false, expected: 'dropped', actual: 'a response (HTTP 402)' });
  });
});

describe('paths and templates', () => {
  it('paths with and without $, brackets, quoted names and .0 on arrays', () => {
    const body = { errors: [{ field: 'amount' }], 'a.b': 1 };
    expect(getPath(body, parsePath('$.errors[0].field'))).toEqual({ found: true, value: 'amount' });
    expect(getPath(body, parsePath('errors.0.field'))).toEqual({ found: true, value: 'amount' });
    expect(getPath(body, parsePath("$['a.b']"))).toEqual({ found: true, value: 1 });
    expect(getPath(body, parsePath('errors[1]'))).toEqual({ found: false, value: undefined });
    expect(getPath(body, parsePath('$'))).toEqual({ found: true, value: body });
  });

  let refs = 0;
  const scope: TemplateScope = {
    vars: new Map<string, unknown>([
      ['payment_id', 'pay_1'],
      ['amount', 10.5],
      ['other', { api_key: 'sk_2', payee_id: 'payee_2' }],
    ]),
    env: { SHOP: 'corner shop' },
    freshRef: (prefix = 'ref') => `${prefix}-${++refs}`,
  };

  it('a whole-string template keeps the type; inside text it is written out', () => {
    expect(render({ amount: '{{amount}}', path: '/p/{{payment_id}}/cancel', who: '{{other.payee_id}}' }, scope)).toEqual({
      amount: 10.5,
      path: '/p/pay_1/cancel',
      who: 'payee_2',
    });
    expect(render('{{ other }}', scope)).toEqual({ api_key: 'sk_2', payee_id: 'payee_2' });
    expect(render('shop: {{env.SHOP}}', scope)).toBe('shop: corner shop');
  });

  it('built-ins: fresh_ref is new at each use; repeat builds long strings', () => {
    const a = render('{{fresh_ref}}', scope);
    const b = render('{{fresh_ref("order")}}', scope);
    expect(a).not.toBe(b);
    expect(b).toMatch(/^order-/);
    expect(render('{{repeat("ab", 3)}}', scope)).toBe('ababab');
    expect(render('{{now}}', scope)).toBeTypeOf('number');
  });

  it('an unknown variable names what is defined', () => {
    expect(() => render('{{paymentid}}', scope)).toThrow(TemplateError);
    expect(() => render('{{paymentid}}', scope)).toThrow(/no variable paymentid \(defined so far: amount, other, payment_id/);
    expect(() => render('{{env.NOPE}}', scope)).toThrow(/environment variable NOPE is not set/);
    expect(() => render('{{other.salt}}', scope)).toThrow(/other has nothing at \.salt/);
  });
});
