/** The nesting limit (32 levels) is read off the body's text: brackets inside strings do not count, escaped quotes do not end a string. */
import { describe, expect, it } from 'vitest';
import { call, createBody, expectEnvelope, sandboxPerTest, stateOf } from '../support/http.js';

const DESCRIPTION = 'The body is nested more than 32 levels deep (objects and arrays, metadata included): send flatter JSON.';

/** A create whose unknown field x holds `levels` nested arrays: the body is levels + 1 deep. */
const nested = (levels: number, extra = '') => JSON.stringify(createBody()).replace(/}$/, `,${extra}"x":${'['.repeat(levels)}${']'.repeat(levels)}}`);

describe('JSON nesting read off the text', () => {
  const each = sandboxPerTest();
  const create = (text: string) => call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body: text });

  it('takes 32 levels and refuses 33 with a 400 that changes nothing', async () => {
    expectEnvelope(await create(nested(31)), 200);
    const before = await stateOf(each.sandbox);
    const refused = await create(nested(32));
    expectEnvelope(refused, 400);
    expect(refused.body.description).toBe(DESCRIPTION);
    expect(await stateOf(each.sandbox)).toBe(before);
  });

  it('does not count brackets inside strings, escaped quotes and backslashes included', async () => {
    const strings = [`"${'['.repeat(100)}"`, `"\\"${'{'.repeat(100)}"`, `"\\\\"`, `"\\\\\\"${'['.repeat(40)}\\\\"`];
    for (const text of strings) {
      const extra = `"s":${text},`;
      expectEnvelope(await create(nested(31, extra)), 200);
      const refused = await create(nested(32, extra));
      expectEnvelope(refused, 400);
      expect(refused.body.description, text).toBe(DESCRIPTION);
    }
  });
});
