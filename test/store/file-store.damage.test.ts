/**
 * Damaged store files do not load silently (issue 10, defect 6): each log record and the
 * snapshot carry a checksum; a file cut short, a snapshot gone or a byte changed refuses the
 * start, naming the file, the place and what to do, and `repair` starts anyway, saying what it
 * dropped and keeping a copy of each damaged file. A torn last record that a crash can leave is
 * skipped, and said.
 */
import { appendFileSync, existsSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { FileStore } from '../../src/store/file-store.js';
import { copiesOf, crashedWith, M, numbered, refusal, repaired } from '../support/damaged-store.js';
import { removeTempDirs, tempDir, walSegments } from '../support/files.js';
import { capturedLog, LEVEL } from '../support/log.js';

afterAll(removeTempDirs);
afterEach(() => vi.restoreAllMocks());

/** Replaces the first `from` in the file by `to` (same length: one byte changed). */
function changeByte(file: string, from: string, to: string): void {
  const text = readFileSync(file, 'latin1');
  const at = text.indexOf(from);
  expect(at).toBeGreaterThanOrEqual(0);
  writeFileSync(file, `${text.slice(0, at)}${to}${text.slice(at + from.length)}`, 'latin1');
}


describe('FileStore: a log cut short', () => {
  it.each([
    ['at 50 %, between two records', 0],
    ['at 50 % plus 100 bytes, inside a record', 100],
  ])('a segment cut %s refuses the start, naming the file and what was acknowledged; repair keeps the whole records before the cut', async (_name, past) => {
    const dataFile = await crashedWith(90);
    const [segment] = walSegments(dataFile);
    const size = statSync(segment!).size;
    const cut = Math.floor(size / 2) + past;
    truncateSync(segment!, cut);
    const wholeLines = readFileSync(segment!, 'utf8').split('\n').length - 1;
    expect(wholeLines).toBe(45);

    const message = await refusal(dataFile);
    expect(message).toContain(`${segment} holds ${cut} bytes, but ${size} were written to it and acknowledged (${dataFile}.wal-end): it was cut after it was written.`);

    const { store, told } = await repaired(dataFile);
    expect(await store.countPayments(M)).toBe(45);
    expect(store.repaired).toEqual([`${segment} holds ${cut} bytes, but ${size} were written to it and acknowledged (${dataFile}.wal-end): it was cut after it was written: the records from byte ${cut} on are gone`]);
    expect(told.msg).toContain('--repair');
    expect(told.copies).toEqual(copiesOf(segment!).map((copy) => path.join(path.dirname(segment!), copy)));
    expect(told.dropped).toContain(store.repaired[0]);
    expect(copiesOf(segment!)).toHaveLength(1);
    // Repaired: folded into a new snapshot, so the next start needs no repair.
    expect(existsSync(segment!)).toBe(false);
    await store.close();
    const again = new FileStore({ dataFile });
    await again.open();
    expect(await again.countPayments(M)).toBe(45);
    await again.close();
  });

  it('the last segment deleted: refused, as the end marker names it; with nothing left but the marker, a fresh start', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const first = new FileStore({ dataFile });
    await first.open();
    await first.insertPayment(numbered(0));
    await first.compact();
    await first.insertPayment(numbered(1));
    const [segment] = walSegments(dataFile);
    rmSync(segment!);
    expect(await refusal(dataFile)).toContain(`${segment} is missing: `);
    // The store's files moved away (the marker left behind): an empty store, as before markers.
    rmSync(dataFile);
    const fresh = new FileStore({ dataFile });
    await fresh.open();
    expect(await fresh.countPayments(M)).toBe(0);
    await fresh.close();
  });

  it('a torn last record beyond what was acknowledged (a crash in mid-write) is skipped and said, and the start goes on', async () => {
    const dataFile = await crashedWith(3);
    const [segment] = walSegments(dataFile);
    const size = statSync(segment!).size;
    appendFileSync(segment!, JSON.stringify({ t: 'payment', v: numbered(99) }).slice(0, 300));
    const captured = capturedLog();
    const store = new FileStore({ dataFile, logger: captured.log });
    await store.open();
    expect(await store.countPayments(M)).toBe(3);
    expect(captured.lines).toEqual([
      { level: LEVEL.warn, time: expect.any(Number), file: segment, line: 4, from_byte: size, to_byte: size + 300, msg: 'store skipped a torn last record: a write cut short by a crash and never acknowledged' },
    ]);
    await store.close();
  });
});

describe('FileStore: a snapshot gone', () => {
  it('a deleted snapshot with a log that starts after segment 0 refuses the start; repair goes on with the log alone', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const first = new FileStore({ dataFile });
    await first.open();
    for (let i = 0; i < 5; i++) await first.insertPayment(numbered(i));
    await first.compact();
    for (let i = 5; i < 8; i++) await first.insertPayment(numbered(i));
    rmSync(dataFile);

    const message = await refusal(dataFile);
    expect(message).toContain(`${dataFile} is missing, but its log starts at ${dataFile}.wal.1`);

    const { store } = await repaired(dataFile);
    expect(store.repaired).toEqual([expect.stringContaining('everything folded before segment 1 is gone')]);
    expect(await store.countPayments(M)).toBe(3);
    await store.close();
  });

  it('a snapshot that is not JSON any more: refused; repair goes on with the log segments alone', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const first = new FileStore({ dataFile });
    await first.open();
    await first.insertPayment(numbered(0));
    await first.compact();
    await first.insertPayment(numbered(1));
    truncateSync(dataFile, 40);
    await expect(new FileStore({ dataFile }).open()).rejects.toThrow(/s\.json is not valid JSON .*restore .* from a copy/);
    const { store } = await repaired(dataFile);
    expect(store.repaired).toEqual([expect.stringMatching(new RegExp(`^${dataFile} is not valid JSON \\([^(]+\\): everything folded into it is gone; the start goes on from the log segments alone$`))]);
    expect((await store.listPayments(M, { limit: 10, offset: 0 })).items.map((p) => p.id)).toEqual([numbered(1).id]);
    await store.close();
  });

  it('a segment missing in the middle, or the first one after the snapshot, refuses the start', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const first = new FileStore({ dataFile });
    await first.open();
    await first.insertPayment(numbered(0));
    // Each start writes a new segment.
    for (let i = 1; i <= 2; i++) {
      const next = new FileStore({ dataFile });
      await next.open();
      await next.insertPayment(numbered(i));
    }
    expect(walSegments(dataFile).map((f) => f.slice(-1))).toEqual(['0', '1', '2']);
    const middle = `${dataFile}.wal.1`;
    const kept = readFileSync(middle);
    rmSync(middle);
    expect(await refusal(dataFile)).toContain(`${middle} is missing between ${dataFile}.wal.0 and ${dataFile}.wal.2`);
    writeFileSync(middle, kept);
    rmSync(`${dataFile}.wal.0`);
    expect(await refusal(dataFile)).toContain(`${dataFile} is missing, but its log starts at ${dataFile}.wal.1`);
  });
});

describe('FileStore: a byte changed', () => {
  it('inside a value of a log record: refused, naming the line; repair drops that record only', async () => {
    const dataFile = await crashedWith(4);
    const [segment] = walSegments(dataFile);
    changeByte(segment!, '"merchantRefNo":"dmg-00000002"', '"merchantRefNo":"dmg-00000009"');

    const message = await refusal(dataFile);
    expect(message).toMatch(new RegExp(`^${segment} line 3 fails its checksum \\(stored [0-9a-f]{8}, computed [0-9a-f]{8}\\): it was changed after it was written \\(at byte \\d+\\)`));

    const { store } = await repaired(dataFile);
    expect(store.repaired).toEqual([expect.stringContaining(`dropped (it held payment ${numbered(2).id})`)]);
    expect(await store.paymentByRef(M, 'dmg-00000009')).toBeUndefined();
    expect((await store.listPayments(M, { limit: 10, offset: 0 })).items.map((p) => p.merchantRefNo).sort()).toEqual(['dmg-00000000', 'dmg-00000001', 'dmg-00000003']);
    await store.close();
  });

  it('in the checksum field of a log record, so that it looks like a line of an earlier version: refused', async () => {
    const dataFile = await crashedWith(1);
    const [segment] = walSegments(dataFile);
    changeByte(segment!, '{"c":"', '{"d":"');
    expect(await refusal(dataFile)).toMatch(/line 1 is a payment record with an unknown field "d"/);
  });

  it('inside a value of the snapshot: refused; repair loads it and says it cannot tell which value changed', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const first = new FileStore({ dataFile });
    await first.open();
    for (let i = 0; i < 3; i++) await first.insertPayment(numbered(i));
    await first.close();
    expect(readFileSync(dataFile, 'utf8')).toMatch(/^\{"checksum":"[0-9a-f]{8}","format":"payreq-sandbox\/1","walSegment":1,/);
    changeByte(dataFile, '"amountMinor":1050', '"amountMinor":9050');

    const message = await refusal(dataFile);
    expect(message).toMatch(new RegExp(`^${dataFile} fails its checksum \\(stored [0-9a-f]{8}, computed [0-9a-f]{8} over its \\d+ bytes after it\\)`));

    const { store } = await repaired(dataFile);
    expect(store.repaired).toEqual([expect.stringContaining('loaded as it is (which value was changed cannot be told)')]);
    expect(copiesOf(dataFile)).toHaveLength(1);
    expect(await store.countPayments(M)).toBe(3);
    await store.close();
    // The repair wrote a new snapshot with its own checksum: the next start is a normal one.
    const again = new FileStore({ dataFile });
    await again.open();
    await again.close();
  });

  it('in the name of the snapshot checksum: refused (a snapshot without one has only the members earlier versions wrote)', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const first = new FileStore({ dataFile });
    await first.open();
    await first.insertPayment(numbered(0));
    await first.close();
    changeByte(dataFile, '{"checksum"', '{"checksuM"');
    expect(await refusal(dataFile)).toContain(`${dataFile} has no checksum, but a member "checksuM"`);
  });
});

describe('FileStore: files of earlier versions, without checksums', () => {
  it('load as before: a snapshot and log lines without checksums', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const p0 = numbered(0);
    writeFileSync(dataFile, JSON.stringify({ format: 'payreq-sandbox/1', walSegment: 2, merchants: [], payments: [p0] }));
    writeFileSync(`${dataFile}.wal.2`, `${JSON.stringify({ t: 'payment', v: numbered(1) })}\n${JSON.stringify({ t: 'payment', v: { ...p0, status: 'V', version: 2 } })}\n`);
    const store = new FileStore({ dataFile });
    await store.open();
    expect(await store.countPayments(M)).toBe(2);
    expect((await store.payment(M, p0.id))?.status).toBe('V');
    await store.close();
    expect(readFileSync(dataFile, 'utf8').startsWith('{"checksum":"')).toBe(true);
  });

  it('but a line without a checksum among lines with one is refused', async () => {
    const dataFile = await crashedWith(2);
    const [segment] = walSegments(dataFile);
    appendFileSync(segment!, `${JSON.stringify({ t: 'payment', v: numbered(7) })}\n`);
    expect(await refusal(dataFile)).toMatch(/line 3 has no checksum, unlike the other lines of this file/);
  });
});
