/**
 * The doctor's imitations of Python and PHP write exactly what those languages write: each
 * expected text below was printed by python3 3.11 (json.dumps) or PHP 8.2 (json_encode,
 * rawurlencode, http_build_query) from the same input.
 */
import { describe, expect, it } from 'vitest';
import { floatText, httpBuildQuery, jsonWritten, phpRawurlencode, phpUrlencode } from '../../src/domain/language-writers.js';
import { canonicalJson } from '../../src/domain/signature.js';

const VALUE = JSON.parse('{"b":[1,{"d":"x/y é","c":7.0}],"a":true}') as unknown;

describe('language writers', () => {
  it('no flag is RFC 8785 (canonicalJson)', () => {
    expect(jsonWritten(VALUE, {})).toBe(canonicalJson(VALUE));
  });

  it("Python's json.dumps: spaced, \\u escapes, floats with .0; keys as sent or sorted", () => {
    // The input had 7.0 (a float) and 1 (an int): the doctor cannot tell them apart once parsed, so this value keeps no int.
    const floats = JSON.parse('{"b":[1.0,{"d":"x/y é","c":7.0}],"a":true}') as unknown;
    expect(jsonWritten(floats, { unsorted: true, spaced: true, unicodeEscaped: true, wholeAsFloat: true })).toBe('{"b": [1.0, {"d": "x/y \\u00e9", "c": 7.0}], "a": true}');
    const ints = JSON.parse('{"b":[1,{"d":"x/y é","c":7}],"a":true}') as unknown;
    expect(jsonWritten(ints, { spaced: true, unicodeEscaped: true })).toBe('{"a": true, "b": [1, {"c": 7, "d": "x/y \\u00e9"}]}');
  });

  it("PHP's json_encode: \\/ and \\u escapes (a pair as two), keys as sent, 7.0 as 7", () => {
    const value = JSON.parse('{"b":[1,{"d":"x/y é \\ud83d\\ude00","c":7.0}],"a":true}') as unknown;
    expect(jsonWritten(value, { unsorted: true, slashesEscaped: true, unicodeEscaped: true })).toBe('{"b":[1,{"d":"x\\/y \\u00e9 \\ud83d\\ude00","c":7}],"a":true}');
  });

  it('floatText writes whole numbers as Python floats (below 1e16, where Python turns to 1e+16)', () => {
    expect([7, 100.5, -3, 1e15, 0.1].map(floatText)).toEqual(['7.0', '100.5', '-3.0', '1000000000000000.0', '0.1']);
  });

  it("PHP's rawurlencode and urlencode", () => {
    expect(phpRawurlencode("!*'()~ é")).toBe('%21%2A%27%28%29~%20%C3%A9');
    expect(phpUrlencode("!*'()~ é")).toBe('%21%2A%27%28%29%7E+%C3%A9');
  });

  it("PHP's http_build_query: brackets, booleans 1 and 0, null left out, empty string kept", () => {
    const body = JSON.parse('{"z":"a b~","m":{"y":[1,true,false,null],"x":"é"},"e":"","n":null,"sign_type":"SHA512"}') as Record<string, unknown>;
    expect(httpBuildQuery(body, undefined, 'sent')).toBe('z=a+b%7E&m%5By%5D%5B0%5D=1&m%5By%5D%5B1%5D=1&m%5By%5D%5B2%5D=0&m%5Bx%5D=%C3%A9&e=');
    expect(httpBuildQuery(body, undefined, 'sorted-nested')).toBe('e=&m%5Bx%5D=%C3%A9&m%5By%5D%5B0%5D=1&m%5By%5D%5B1%5D=1&m%5By%5D%5B2%5D=0&z=a+b%7E');
  });
});
