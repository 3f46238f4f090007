/**
 * The snapshot reader parses the file in pieces (cut between the members of the top-level object
 * and between elements of its arrays, ~64 KiB per batch, through a 1 MiB read buffer). Whatever
 * the text, it must answer exactly what JSON.parse of the whole text answers, and refuse (throw)
 * exactly what JSON.parse refuses.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SnapshotFile } from '../../src/store/snapshot-file.js';

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

/** A payment-like record; some hold text that looks like a cut between elements. */
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

  it('reads pretty-printed JSON (no guessed cuts) and JSON with spaces everywhere', async () => {
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

  it('reads elements that start like the cut it guesses but hold the same text inside', async () => {
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
    // A trailing comma right at a guessed cut: at the end of the payments array.
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
