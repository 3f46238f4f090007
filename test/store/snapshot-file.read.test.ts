/**
 * The snapshot reader parses the arrays of the layout the writer uses (one element per line) in
 * batches of lines, and anything else whole. Whatever the text, it must answer exactly what
 * JSON.parse of the whole text answers, and refuse (throw) exactly what JSON.parse refuses.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readByLines, SnapshotFile } from '../../src/store/snapshot-file.js';

const dir = mkdtempSync(path.join(tmpdir(), 'payreq-snapshot-read-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

async function readText(text: string | Buffer): Promise<{ value: unknown } | { error: unknown }> {
  const file = path.join(dir, `s${files++}.json`);
  writeFileSync(file, text);
  try {
    return { value: await new SnapshotFile<object>(file).read() };
  } catch (error) {
    return { error };
  } finally {
    rmSync(file, { force: true });
  }
}

/** The reader's answer is JSON.parse's: the same value (same key order), or an error for both. */
async function expectLikeJsonParse(text: string): Promise<void> {
  let expected: { value: unknown } | { error: unknown };
  try {
    expected = { value: JSON.parse(text) };
  } catch (error) {
    expected = { error };
  }
  const actual = await readText(text);
  if ('error' in expected) {
    expect('error' in actual, `accepted invalid JSON near ${JSON.stringify(text.slice(0, 80))}`).toBe(true);
    expect((actual as { error: unknown }).error).toBeInstanceOf(SyntaxError);
    return;
  }
  expect('value' in actual, `refused valid JSON: ${'error' in actual ? String(actual.error) : ''}`).toBe(true);
  const value = (actual as { value: unknown }).value;
  expect(value).toStrictEqual(expected.value);
  expect(JSON.stringify(value)).toBe(JSON.stringify(expected.value));
}

/** A payment-like record; some hold text that looks like a separator between elements. */
function record(i: number): Record<string, unknown> {
  return {
    id: `pay_${i}`,
    token: `ptok_${'t'.repeat(i % 40)}`,
    amountMinor: i * 7,
    createdAt: 1_700_000_000_000 + i,
    note: i % 11 === 0 ? `he said "},{\\"id\\":" and left \\ ${'ü'.repeat(i % 5)} \u2028 😀` : null,
    metadata: i % 13 === 0 ? { items: [{ id: 1 }, { id: 2, tags: ['a', { id: 'x' }] }], '},{"id":': '},{"id":' } : null,
    history: i % 3 === 0 ? [{ type: 'created', at: i }, { type: 'paid', at: i + 1 }] : [{ type: 'created', at: i }],
    fees: i % 5 === 0 ? [] : [{ type: 'MDR', amountMinor: 1 }],
  };
}

function snapshotText(count: number, space?: number): string {
  return JSON.stringify(
    {
      format: 'payreq-sandbox/1',
      walSegment: 3,
      merchants: [{ payeeId: 'M1', name: 'Kopi "Corner"', apiKeys: ['k1'] }],
      payments: Array.from({ length: count }, (_, i) => record(i)),
      empty: [],
      nested: { a: [1, 2, { b: '[,]' }] },
      last: 'x',
    },
    null,
    space,
  );
}

describe('the snapshot reader: exactly JSON.parse', () => {
  it.each([0, 1, 150, 3000, 12_000])('reads a snapshot with %i records (batches, buffer refills, strings across reads)', async (count) => {
    await expectLikeJsonParse(snapshotText(count));
  });

  it('reads pretty-printed JSON and JSON with spaces everywhere', async () => {
    await expectLikeJsonParse(snapshotText(2000, 2));
    await expectLikeJsonParse(` \n\t{ "a" : [ 1 , 2 ] , "b" : { "c" : [ ] } , "d" : "e" , "f" : [ ] } \r\n`);
  });

  it('reads objects whose members are not arrays, empty objects, odd keys as JSON.parse does', async () => {
    await expectLikeJsonParse('{}');
    await expectLikeJsonParse('{"a":1,"a":[2],"b":null}');
    await expectLikeJsonParse('{"__proto__":{"polluted":true},"toString":[1]}');
    await expectLikeJsonParse('{"2":"two","1":"one","k\\"ey":"v","\\u00e9":"é"}');
    const withProto = (await readText('{"__proto__":[1]}')) as { value: object };
    expect(Object.getPrototypeOf(withProto.value)).toBe(Object.prototype);
    expect(Object.keys(withProto.value)).toEqual(['__proto__']);
  });

  it('reads a large array whose elements are not objects, or are arrays', async () => {
    await expectLikeJsonParse(JSON.stringify({ a: Array.from({ length: 30_000 }, (_, i) => (i % 2 ? `s${i},"x"` : i)) }));
    await expectLikeJsonParse(JSON.stringify({ a: Array.from({ length: 20_000 }, (_, i) => [i, { id: i }]) }));
  });

  it('reads elements that hold separators and brackets inside strings and deeper arrays', async () => {
    // Every element's first key is "id", and every element holds `},{"id":` deeper down.
    const payments = Array.from({ length: 4000 }, (_, i) => ({ id: i, list: [{ id: 'a' }, { id: 'b', s: '},{"id":' }] }));
    await expectLikeJsonParse(JSON.stringify({ payments }));
  });

  it('reads a record larger than the read buffer', async () => {
    await expectLikeJsonParse(JSON.stringify({ payments: [{ id: 1, big: 'x\\"'.repeat(900_000) }, { id: 2 }] }));
  });

  it('reads a top-level value that is not an object as JSON.parse does', async () => {
    await expectLikeJsonParse('[1,2,3]');
    await expectLikeJsonParse('"text"');
    await expectLikeJsonParse('null');
  });

  it.each([
    '',
    ' ',
    '{',
    '{"a":[1,]}',
    '{"a":[,1]}',
    '{"a":[1,,2]}',
    '{"a":1,}',
    '{,"a":1}',
    '{"a" 1}',
    '{"a":}',
    '{"a":[1]]}',
    '{"a":[1}',
    '{"a":{"b":1]}',
    '{"a":"x}',
    '{"a":1}}',
    '{"a":1} x',
    '{"a":[1] "b":2}',
    '{a:1}',
    '\ufeff{"a":1}',
  ])('refuses %j like JSON.parse', async (text) => {
    await expectLikeJsonParse(text);
  });

  it('refuses damage anywhere in a large snapshot, like JSON.parse', async () => {
    const text = snapshotText(1500);
    // Truncated, and one character dropped, doubled or changed at spread positions.
    for (let k = 1; k <= 24; k++) {
      const at = Math.floor((text.length * k) / 25);
      await expectLikeJsonParse(text.slice(0, at));
      await expectLikeJsonParse(text.slice(0, at) + text.slice(at + 1));
      await expectLikeJsonParse(text.slice(0, at) + text[at] + text.slice(at));
      await expectLikeJsonParse(`${text.slice(0, at)}]${text.slice(at + 1)}`);
    }
    // A trailing comma at the end of the payments array.
    await expectLikeJsonParse(text.replace('],"empty":', ',],"empty":'));
    await expectLikeJsonParse(text.replace('],"empty":', ',,],"empty":'));
  });

  it('decodes UTF-8 as JSON.parse of the text read as UTF-8 does, even invalid bytes', async () => {
    const parts = [Buffer.from('{"a":["'), Buffer.from([0xc3]), Buffer.from('",'), Buffer.from('"é😀"'), Buffer.from(']}')];
    const bytes = Buffer.concat(parts);
    const actual = await readText(bytes);
    expect(actual).toStrictEqual({ value: JSON.parse(bytes.toString('utf8')) });
  });
});

/** The writer's layout: each top-level array one element per line. */
async function written(data: object): Promise<string> {
  const file = path.join(dir, `w${files++}.json`);
  await new SnapshotFile<object>(file).write(data);
  return readFileSync(file, 'utf8');
}

function snapshotData(count: number): Record<string, unknown> {
  return JSON.parse(snapshotText(count)) as Record<string, unknown>;
}

/** readByLines answers JSON.parse of the text, or undefined (then read() parses it whole). */
function expectByLines(text: string, mustTakeLines: boolean): void {
  const answer = readByLines(text.split('\n'));
  let expected: { value: unknown } | undefined;
  try {
    expected = { value: JSON.parse(text) };
  } catch {
    expected = undefined;
  }
  if (!expected) {
    expect(answer, `accepted invalid JSON near ${JSON.stringify(text.slice(0, 80))}`).toBeUndefined();
    return;
  }
  if (mustTakeLines) expect(answer, 'fell back to parsing the whole text').toBeDefined();
  if (answer) {
    expect(answer.value).toStrictEqual(expected.value);
    expect(JSON.stringify(answer.value)).toBe(JSON.stringify(expected.value));
  }
}

describe('the snapshot reader on the layout the writer uses', () => {
  it.each([0, 1, 150, 3000, 12_000])('reads %i records in batches of lines, without parsing the whole text', async (count) => {
    const text = await written(snapshotData(count));
    expectByLines(text, true);
    await expectLikeJsonParse(text);
  });

  it('keeps a top-level "__proto__" array an own member, and reads duplicate keys as JSON.parse does', () => {
    expectByLines('{"__proto__":[\n1,\n2\n],"a":[\n]}', true);
    const answer = readByLines('{"__proto__":[\n1\n]}'.split('\n'))!;
    expect(Object.getPrototypeOf(answer.value)).toBe(Object.prototype);
    expect(Object.keys(answer.value as object)).toEqual(['__proto__']);
    expectByLines('{"a":[\n1\n],"a":[\n2\n]}', false);
  });

  it('parses whole (and so exactly) what only looks like the layout: nested or top-level arrays, pretty JSON', () => {
    expectByLines('{"a":{"b":[\n1,\n2\n]},"c":[]}', false);
    expectByLines('[\n1,\n2\n]', false);
    expectByLines(JSON.stringify(snapshotData(300), null, 2), false);
    expectByLines('{"a":[\n{"s":"x,\n"}\n]}', false);
  });

  it('refuses damage of the layout exactly when JSON.parse does', async () => {
    const text = await written(snapshotData(1500));
    for (let k = 1; k <= 30; k++) {
      const at = Math.floor((text.length * k) / 31);
      expectByLines(text.slice(0, at), false);
      expectByLines(text.slice(0, at) + text.slice(at + 1), false);
      expectByLines(text.slice(0, at) + text[at] + text.slice(at), false);
      expectByLines(`${text.slice(0, at)}]${text.slice(at + 1)}`, false);
      expectByLines(`${text.slice(0, at)},${text.slice(at)}`, false);
    }
    // Commas between lines: one missing, one trailing before "]", one doubled; a blank line is fine.
    const lines = text.split('\n');
    const at = 800;
    expectByLines([...lines.slice(0, at), lines[at]!.replace(/,$/, ''), ...lines.slice(at + 1)].join('\n'), false);
    expectByLines(text.replace('}\n],"empty"', '},\n],"empty"'), false);
    expectByLines([...lines.slice(0, at), `${lines[at]},`, ...lines.slice(at + 1)].join('\n'), false);
    expectByLines([...lines.slice(0, at), '', ...lines.slice(at)].join('\n'), true);
  });
});
