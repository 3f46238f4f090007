/**
 * SPEC 18: a deleted or damaged `<data>.wal-end` marker is noticed at start like any other
 * damage. Deleting it used to turn the check of the log's length off: a log cut short then lost
 * acknowledged changes without a word. Now the start is refused, saying what is wrong and that
 * `--repair` accepts the log as it is; only a fresh store (no snapshot, no byte in any segment)
 * and a store of an earlier version (no checksums, never a marker) start without one.
 */
import { readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { FileStore } from '../../src/store/file-store.js';
import { copiesOf, crashedWith, M, numbered, refusal, repaired } from '../support/damaged-store.js';
import { removeTempDirs, tempDir, walSegments } from '../support/files.js';

afterAll(removeTempDirs);
afterEach(() => vi.restoreAllMocks());

const END = (dataFile: string) => `${dataFile}.wal-end`;
const REMEDY = 'it holds how many bytes of each log segment were written and acknowledged, and without it a log cut short (acknowledged changes lost) cannot be told from a whole one; --repair accepts the log as it is and writes a new marker';

describe('FileStore: the end marker deleted or damaged', () => {
  it.each([
    ['deleted', (file: string) => rmSync(file), 'is missing'],
    ['emptied', (file: string) => truncateSync(file, 0), 'is empty'],
    ['overwritten with other text', (file: string) => writeFileSync(file, 'not a marker\n'), 'is not a whole line of JSON'],
    ['changed in one byte', (file: string) => writeFileSync(file, readFileSync(file, 'utf8').replace(/\[0,(\d)/, (_m, d: string) => `[0,${(Number(d) + 1) % 10}`)), 'fails its checksum'],
  ])('%s, with the log cut short by half: refused, saying so; repair starts with what the log holds and a new marker', async (_name, damage, problem) => {
    const dataFile = await crashedWith(40);
    const [segment] = walSegments(dataFile);
    damage(END(dataFile));
    // What the marker guards against: acknowledged records cut off the log.
    truncateSync(segment!, Math.floor(statSync(segment!).size / 2));

    const message = await refusal(dataFile);
    expect(message).toContain(`${END(dataFile)} ${problem}: ${REMEDY}. The store is damaged:`);

    const { store, told } = await repaired(dataFile);
    expect(store.repaired).toEqual([`${END(dataFile)} ${problem}: ${REMEDY}: the log was read as it is: whatever a cut took from it before this start is not known`]);
    expect(told.dropped).toContain(store.repaired[0]);
    expect(await store.countPayments(M)).toBe(20);
    // No copy of the marker: the start has rewritten it in place already.
    expect(copiesOf(END(dataFile))).toEqual([]);
    expect(await store.insertPayment(numbered(99))).toBe('inserted');
    await store.close();

    const again = new FileStore({ dataFile });
    await again.open();
    expect(await again.countPayments(M)).toBe(21);
    await again.close();
  });

  it('deleted after a clean stop (the log folded into the snapshot, its segment empty): refused all the same', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const first = new FileStore({ dataFile });
    await first.open();
    await first.insertPayment(numbered(0));
    await first.close();
    rmSync(END(dataFile));
    expect(await refusal(dataFile)).toContain(`${END(dataFile)} is missing: ${REMEDY}.`);
  });

  it("deleted or emptied in a part's files (the idempotency keys): refused too", async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const first = new FileStore({ dataFile });
    await first.open();
    await first.idempotency.begin(M, 'key-1', 'fp', 0, 0);
    await first.idempotency.finish(M, 'key-1', 200, '{"code":200}');
    await first.close();
    const partEnd = `${dataFile}.idempotency.wal-end`;
    rmSync(partEnd);
    expect(await refusal(dataFile)).toContain(`${partEnd} is missing: ${REMEDY}.`);
  });

  it('a fresh store started before its first write, its marker then deleted, starts empty (nothing was ever acknowledged)', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const first = new FileStore({ dataFile });
    await first.open();
    rmSync(END(dataFile));
    const second = new FileStore({ dataFile });
    await second.open();
    expect(await second.countPayments(M)).toBe(0);
    await second.insertPayment(numbered(1));
    await second.close();
  });

  it('a store of an earlier version (no checksums) never had a marker: it loads, and gets one', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    writeFileSync(dataFile, JSON.stringify({ format: 'payreq-sandbox/1', walSegment: 0, merchants: [], payments: [numbered(0)] }));
    writeFileSync(`${dataFile}.wal.0`, `${JSON.stringify({ t: 'payment', v: numbered(1) })}\n`);
    const store = new FileStore({ dataFile });
    await store.open();
    expect(await store.countPayments(M)).toBe(2);
    await store.close();
    expect(readFileSync(END(dataFile), 'utf8')).toMatch(/^\{"c":"[0-9a-f]{8}","segments":/);
  });
});

