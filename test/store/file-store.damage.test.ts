/**
 * Damaged files at start (SPEC 23): a cut last line of the log is dropped with a warning naming
 * the file; damage anywhere else refuses the start naming file and line; `repair` keeps every
 * whole line, says what it dropped and keeps a copy. A deleted log or snapshot is damage, never
 * an empty store; a file that is not a store is named; nothing is changed by a refused start.
 */
import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileStore } from '../../src/store/file-store.js';
import { copiesOf, crashedWith, M, numbered, refusal, repaired } from '../support/damaged-store.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { capturedLog, LEVEL } from '../support/log.js';
import { storedPayments } from '../support/payment-counts.js';

afterAll(removeTempDirs);

async function opened(dataFile: string): Promise<FileStore> {
  const store = new FileStore({ dataFile });
  await store.open();
  return store;
}

/** Replaces line `n` (1 = the header) of `file` with `text`. */
function replaceLine(file: string, n: number, text: string): void {
  const lines = readFileSync(file, 'utf8').split('\n');
  lines[n - 1] = text;
  writeFileSync(file, lines.join('\n'));
}

describe('FileStore: a log cut short', () => {
  it('drops a cut last line with a warning naming the file, keeps the rest, and appends after the last whole line', async () => {
    const dataFile = await crashedWith(3);
    appendFileSync(`${dataFile}.log`, '{"t":"payment","v":{"id":"pay_torn');
    const captured = capturedLog();
    const second = new FileStore({ dataFile, logger: captured.log });
    await second.open();
    expect(await storedPayments(second, M)).toBe(3);
    expect(captured.events()).toEqual([
      { level: LEVEL.warn, time: expect.any(Number), file: `${dataFile}.log`, line: 5, from_byte: expect.any(Number), msg: 'store dropped a cut last line of its log: a write a crash cut short, never acknowledged' },
    ]);
    expect(await second.insertPayment(numbered(3))).toBe('inserted');
    expect(readFileSync(`${dataFile}.log`, 'utf8')).not.toContain('pay_torn');
    const third = await opened(dataFile);
    expect(await storedPayments(third, M)).toBe(4);
  });
});

describe('FileStore: damage anywhere else refuses the start, naming file and line', () => {
  const cases: [string, string, RegExp][] = [
    ['not JSON', '{"t":"payment","v":', /line 3 is not a whole line of JSON/],
    ['a number', '42', /line 3 is not a JSON object/],
    ['null', 'null', /line 3 is not a JSON object/],
    ['an unknown type', '{"t":"teleport"}', /line 3 has type t="teleport", none of merchant, payment/],
    ['a payment without its payment', '{"t":"payment"}', /line 3 is a payment record without its v\.id/],
    ['a payment without its payeeId', JSON.stringify({ t: 'payment', v: { ...numbered(9), payeeId: undefined } }), /line 3 is a payment record without its v\.payeeId/],
    ['a merchant without its id', '{"t":"merchant","v":{}}', /line 3 is a merchant record without its v\.payeeId/],
  ];
  for (const [what, text, why] of cases) {
    it(`a log line that is ${what}, in the middle or as the last whole line`, async () => {
      const dataFile = await crashedWith(3);
      const log = `${dataFile}.log`;
      const whole = readFileSync(log, 'utf8');
      for (const at of ['middle', 'last']) {
        writeFileSync(log, whole);
        if (at === 'middle') replaceLine(log, 3, text);
        else writeFileSync(log, whole.split('\n').slice(0, 2).concat(text, '').join('\n'));
        const message = await refusal(dataFile);
        expect(message).toContain(`${log} line 3`);
        expect(message).toMatch(why);
        expect(message).not.toMatch(/\n\s+at /);
      }
    });
  }

  it('repair keeps every whole line, says what it dropped, keeps a copy, and the next start needs no repair', async () => {
    const dataFile = await crashedWith(5);
    const log = `${dataFile}.log`;
    replaceLine(log, 3, '{"t":"payment","v":{"id":"pay_'); // the second payment's line
    await refusal(dataFile);
    const { store, told } = await repaired(dataFile);
    expect(told.dropped).toEqual([`${log} line 3 is not a whole line of JSON`]);
    expect(copiesOf(log)).toHaveLength(1);
    expect(await storedPayments(store, M)).toBe(4);
    expect(await store.payment(M, numbered(1).id)).toBeUndefined();
    await store.close();
    expect(await storedPayments(await opened(dataFile), M)).toBe(4);
  });

  it('a snapshot line damaged, or a snapshot cut short (its end line gone), refuses the start naming it', async () => {
    const dataFile = await crashedWith(30, undefined, 2_000);
    const snapshot = readFileSync(dataFile, 'utf8');
    replaceLine(dataFile, 2, '{"t":"merchant","v":');
    expect(await refusal(dataFile)).toContain(`${dataFile} line 2 is not a whole line of JSON`);
    writeFileSync(dataFile, snapshot.split('\n').slice(0, -2).join('\n') + '\n');
    expect(await refusal(dataFile)).toMatch(new RegExp(`${dataFile} is cut short: it does not end with its \\{"t":"end","records":N\\} line`));
  });

  it('a log that goes on from another snapshot refuses the start', async () => {
    const dataFile = await crashedWith(3);
    replaceLine(`${dataFile}.log`, 1, '{"t":"log","format":"payreq-sandbox/2","generation":7}');
    expect(await refusal(dataFile)).toContain(`${dataFile}.log line 1 goes on from snapshot 7, but the snapshot is 1`);
  });
});

describe('FileStore: a file gone', () => {
  it('a deleted log (the store never wrote a snapshot since its first start) is damage, never an empty store; repair starts from the snapshot', async () => {
    const dataFile = await crashedWith(50);
    rmSync(`${dataFile}.log`);
    expect(await refusal(dataFile)).toContain(`${dataFile}.log is missing, but the snapshot ${dataFile} is there: every change since that snapshot is gone`);
    const { store } = await repaired(dataFile);
    expect(await storedPayments(store, M)).toBe(0);
  });

  it('a deleted snapshot with its log there refuses the start', async () => {
    const dataFile = await crashedWith(3);
    rmSync(dataFile);
    expect(await refusal(dataFile)).toContain(`${dataFile} is missing, but its log ${dataFile}.log is there`);
  });

  it('both gone is a new store', async () => {
    const dataFile = await crashedWith(3);
    rmSync(dataFile);
    rmSync(`${dataFile}.log`);
    expect(await storedPayments(await opened(dataFile), M)).toBe(0);
  });
});

describe('FileStore: files that are not the store', () => {
  it('refuses a JSON file that is not a payreq-sandbox store, and leaves it alone', async () => {
    const dataFile = path.join(tempDir(), 'package.json');
    writeFileSync(dataFile, '{"name":"not-a-store"}\n');
    await expect(opened(dataFile)).rejects.toThrow(`${dataFile} is not a payreq-sandbox store: its first line is not {"t":"snapshot","format":"payreq-sandbox/2",...}. Point --data at a payreq-sandbox store, or move ${dataFile} away to start an empty one.`);
    expect(readFileSync(dataFile, 'utf8')).toBe('{"name":"not-a-store"}\n');
  });

  it('names a foreign file beside the store in a warning, and starts', async () => {
    const dataFile = await crashedWith(1);
    writeFileSync(`${dataFile}.bak`, 'mine');
    const captured = capturedLog();
    const store = new FileStore({ dataFile, logger: captured.log });
    await store.open();
    expect(captured.events()).toEqual([
      { level: LEVEL.warn, time: expect.any(Number), file: `${dataFile}.bak`, msg: 'a file beside the store that is not one of its files: the store neither reads nor changes it' },
    ]);
    expect(readFileSync(`${dataFile}.bak`, 'utf8')).toBe('mine');
  });
});
