import { describe, expect, it } from 'vitest';
import { Amount, AMOUNT_MARK, RAW_JSON_MARK, RawJson, toJsonText } from '../../src/http/json-text.js';

describe('toJsonText: the JSON writer of every answer', () => {
  it('writes each Amount as a bare number with exactly two decimals, wherever it is', () => {
    const text = toJsonText({ a: new Amount(1050), list: [new Amount(5), { fee: new Amount(123456789012) }], neg: new Amount(-7) });
    expect(text).toBe('{"a":10.50,"list":[0.05,{"fee":1234567890.12}],"neg":-0.07}');
  });

  it('writes everything else as JSON.stringify does', () => {
    const value = { s: 'quote " backslash \\ nul \u0000 lone \ud800', n: 1.5, nan: Number.NaN, none: null, skipped: undefined, arr: [undefined, true], nested: { deep: [1, { x: 'y' }] } };
    expect(toJsonText(value)).toBe(JSON.stringify(value));
    expect(JSON.parse(toJsonText(value))).toEqual(JSON.parse(JSON.stringify(value)));
  });

  it('leaves text that looks like a marked amount alone: the marker is drawn at start-up, so nobody can send it', () => {
    expect(AMOUNT_MARK).toMatch(/^amount-[0-9a-f]{24}:$/);
    const guesses = { guess: 'amount-000000000000000000000000:10.50', bare: 'amount-:1.00', prefix: `${AMOUNT_MARK}` };
    const text = toJsonText(guesses);
    expect(JSON.parse(text)).toEqual(guesses);
  });

  it('turns only a whole marked string into a number, not one with more around the amount', () => {
    const text = toJsonText({ m: `${AMOUNT_MARK}10.50 and more`, a: new Amount(100) });
    expect(JSON.parse(text)).toEqual({ m: `${AMOUNT_MARK}10.50 and more`, a: 1 });
    expect(text).toContain('"a":1.00');
  });

  it('an Amount is written as its two-decimal text and keeps its minor units', () => {
    const amount = new Amount(60);
    expect(String(amount)).toBe('0.60');
    expect(amount.minor).toBe(60);
  });
});

describe('RawJson: JSON text embedded as it was written', () => {
  const sent = '{"amount":100.00,"fee":[{"amount":0.60}],"note":"a \\"quoted\\" word"}';

  it('is embedded byte for byte, beside Amounts, in objects and arrays', () => {
    const text = toJsonText({ a: new Amount(1050), body: new RawJson(sent), list: [new RawJson('[1.10,2]'), new RawJson('0.50')] });
    expect(text).toBe(`{"a":10.50,"body":${sent},"list":[[1.10,2],0.50]}`);
    expect(JSON.parse(text)).toEqual({ a: 10.5, body: JSON.parse(sent), list: [[1.1, 2], 0.5] });
  });

  it('embedded text is not scanned again: markers inside it stay as they are', () => {
    const inside = JSON.stringify({ m: `${AMOUNT_MARK}1.00`, r: `${RAW_JSON_MARK}0` });
    expect(toJsonText({ x: new RawJson(inside), y: new RawJson('1') })).toBe(`{"x":${inside},"y":1}`);
  });

  it('a plain JSON.stringify writes the parsed value, and the next toJsonText call starts afresh', () => {
    expect(JSON.stringify({ body: new RawJson(sent) })).toBe(JSON.stringify({ body: JSON.parse(sent) }));
    expect(toJsonText({ body: new RawJson('{"amount":1.00}') })).toBe('{"body":{"amount":1.00}}');
    expect(JSON.stringify(new RawJson('2.50'))).toBe('2.5');
  });

  it('a text that looks like a marked RawJson is left alone', () => {
    const guesses = { guess: 'json-000000000000000000000000:0', prefix: `${RAW_JSON_MARK}x` };
    expect(JSON.parse(toJsonText(guesses))).toEqual(guesses);
  });
});
