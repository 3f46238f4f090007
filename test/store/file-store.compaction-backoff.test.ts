/**
 * A fold (compaction) that fails is not tried again on every write: after a failure the store
 * waits 30 s, doubling to at most 10 min, and a fold that succeeds resets the wait. The failures
 * are real: a directory where the fold must create a file makes open() fail with EISDIR, which
 * stops root as well (a read-only directory would not). Time is the store's injected clock.
 */
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { apiKeyHash } from '../../src/domain/ids.js';
import { DEFAULT_SETTINGS } from '../../src/domain/merchant.js';
import { FileStore } from '../../src/store/file-store.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { capturedLog, LEVEL } from '../support/log.js';
import { aPayment } from '../support/payments.js';

afterAll(removeTempDirs);

let made = 0;
function nextPayment() {
  const n = String(made++).padStart(12, '0');
  return aPayment({ id: `pay_ZZZZZZZZZZ${n}`, token: `ptok_zzzzzzzzzzzzzzzzzzzzzzzz${n.slice(4)}`, code: `C${n.slice(1)}`, merchantRefNo: `order-${n}` });
}

const merchant = { payeeId: 'M1', name: 'M', city: 'C', countryCode: 'SG', mcc: '5812', homeCurrency: 'SGD', apiKeyHashes: [apiKeyHash('k1')], signingSalt: 's', settings: DEFAULT_SETTINGS, clockOffsetMs: 0, createdAt: 0 };

/** Lets folds scheduled by the last writes start, and their failures be told. */
async function turns(n = 3): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * A file store folding after 10 records (or as many as it holds payments), on a clock the test
 * moves, with its "store compaction failed" lines counted. Writes come one per turn, as requests do.
 */
async function foldingStore() {
  const dataFile = path.join(tempDir(), 's.json');
  const clock = { now: 1_000 };
  const captured = capturedLog();
  const store = new FileStore({ dataFile, compactAfter: 10, clock: () => clock.now, logger: captured.log });
  await store.open();
  const failures = () => captured.lines.filter((line) => line.msg === 'store compaction failed (the log keeps every change)').length;
  const creates = async (count: number) => {
    for (let i = 0; i < count; i++) await store.insertPayment(nextPayment());
    await turns();
  };
  /** Records that add no payment: merchant saves. */
  const saves = async (count: number) => {
    for (let i = 0; i < count; i++) {
      await store.saveMerchant(merchant);
      await turns(1);
    }
    await turns();
  };
  return { dataFile, clock, store, failures, creates, saves, lines: captured.lines };
}

describe('FileStore: a fold that keeps failing backs off', () => {
  it('a fold that cannot rotate: one failure for 1,100 creates, then one try at 30 s, 60 s, 120 s ... 10 min; success resets', async () => {
    const { dataFile, clock, store, failures, creates, saves, lines } = await foldingStore();
    // Rotating opens the next log segment: a directory in its place makes that fail (EISDIR).
    mkdirSync(`${dataFile}.wal.1`);
    await creates(1_100);
    expect(failures()).toBe(1);
    expect(lines[0]).toEqual({
      level: LEVEL.error, time: expect.any(Number), file: dataFile, err: expect.stringContaining(`${dataFile}.wal.1`), code: 'EISDIR', retry_in_s: 30, msg: 'store compaction failed (the log keeps every change)',
    });
    expect(store.counters.compactions).toBe(0);

    let expected = 1;
    for (const waitMs of [30_000, 60_000, 120_000, 240_000, 480_000, 600_000, 600_000]) {
      clock.now += waitMs - 1;
      await saves(20);
      expect(failures(), `before ${waitMs} ms`).toBe(expected);
      clock.now += 1;
      await saves(20);
      expect(failures(), `at ${waitMs} ms`).toBe(++expected);
    }

    rmSync(`${dataFile}.wal.1`, { recursive: true });
    clock.now += 600_000;
    await saves(20);
    await vi.waitFor(() => expect(store.counters.compactions).toBe(1));
    expect(failures()).toBe(expected);

    // After a success the first wait is 30 s again. The next fold comes once the log holds as
    // many records as there are payments (1,100): make its rotation fail too.
    mkdirSync(`${dataFile}.wal.2`);
    await saves(1_200);
    expect(failures()).toBe(++expected);
    clock.now += 30_000;
    await saves(20);
    expect(failures()).toBe(++expected);
    rmSync(`${dataFile}.wal.2`, { recursive: true });
    await store.close();

    const again = new FileStore({ dataFile });
    await again.open();
    expect(await again.countPayments(aPayment().payeeId)).toBe(1_100);
    expect(await again.merchantIds()).toEqual(['M1']);
    await again.close();
  });

  it('a snapshot that cannot be written backs off the same way, and the log keeps every change', async () => {
    const { dataFile, clock, store, failures, saves } = await foldingStore();
    // The snapshot is written to a temporary file beside it, then renamed: a directory there stops it.
    const temp = path.join(path.dirname(dataFile), '.s.json.tmp');
    mkdirSync(temp);
    await saves(500);
    await vi.waitFor(() => expect(failures()).toBeGreaterThan(0));
    await saves(100);
    expect(failures()).toBe(1);
    clock.now += 30_000;
    await saves(20);
    await vi.waitFor(() => expect(failures()).toBe(2));
    rmSync(temp, { recursive: true });
    clock.now += 60_000;
    await saves(20);
    await vi.waitFor(() => expect(store.counters.compactions).toBe(1));
    expect(failures()).toBe(2);
    await store.close();
  });
});
