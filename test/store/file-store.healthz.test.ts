/**
 * FileStore.ready(), which /healthz answers from (SPEC 15): a probe file written, fsynced, read
 * back and removed in the data directory at most once a second, and the log's last append.
 * Real files throughout: the full disk is a real tmpfs (root only), the lost directory a real one.
 */
import { existsSync, mkdirSync, readdirSync, rmdirSync, rmSync, statfsSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { FileStore } from '../../src/store/file-store.js';
import { StoreUnavailableError } from '../../src/store/unavailable.js';
import type { Payment } from '../../src/domain/payment.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { aPayment } from '../support/payments.js';
import { IS_ROOT, NOT_ROOT_REASON, fill, mountTmpfs, unmountAll } from '../support/tmpfs.js';
import { snapshotGeneration } from '../support/json-lines.js';
import { storedPayments } from '../support/payment-counts.js';

afterAll(removeTempDirs);

const stores: FileStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close().catch(() => undefined);
});

async function storeIn(dir: string) {
  const clock = { now: 10_000 };
  const store = new FileStore({ dataFile: path.join(dir, 'sandbox.json'), clock: () => clock.now });
  stores.push(store);
  await store.open();
  return { store, clock, dataFile: path.join(dir, 'sandbox.json') };
}

let n = 0;
function payment(): Payment {
  n++;
  const tag = String(n).padStart(8, '0');
  return aPayment({ id: `pay_hz${tag}ZZZZZZZZZZZZZZ`, token: `ptok_hz${tag}zzzzzzzzzzzzzzzzzzzzzz`, code: `H${tag}ZZZ`, merchantRefNo: `hz-${tag}` });
}

/** Inserts payments until one is refused (a full disk may still take a few into the log's last block); answers its error. */
async function insertUntilRefused(store: FileStore): Promise<Error> {
  for (let i = 0; i < 200; i++) {
    try {
      await store.insertPayment(payment());
    } catch (err) {
      return err as Error;
    }
  }
  throw new Error('the full disk took 200 payments');
}

describe('FileStore.ready(): the probe', () => {
  it('probes at most once a second, whatever the polling, and leaves no probe file behind', async () => {
    const dir = tempDir('payreq-probe-');
    const { store, clock, dataFile } = await storeIn(dir);
    await Promise.all(Array.from({ length: 20 }, () => store.ready()));
    expect(readdirSync(dir).filter((f) => f.includes('probe'))).toEqual([]);
    // A directory where the probe writes its file: any probe from now on fails, so a ready store has not probed.
    mkdirSync(`${dataFile}.healthz-probe`);
    for (let i = 0; i < 30; i++) await store.ready();
    clock.now += 999;
    await store.ready();
    clock.now += 1;
    await expect(store.ready()).rejects.toThrow(`the data directory ${dir} cannot be written (EISDIR)`);
    rmdirSync(`${dataFile}.healthz-probe`);
    clock.now += 1_000;
    await store.ready();
    expect(readdirSync(dir).filter((f) => f.includes('probe'))).toEqual([]);
  });

  it('a data directory that is gone: not ready, naming it and ENOENT', async () => {
    const dir = tempDir('payreq-gone-');
    const { store, clock } = await storeIn(dir);
    await store.ready();
    rmSync(dir, { recursive: true, force: true });
    // The last answer stands for up to a second.
    await store.ready();
    clock.now += 1_000;
    await expect(store.ready()).rejects.toThrow(`the data directory ${dir} does not exist (ENOENT): no change can be written to ${path.join(dir, 'sandbox.json')}`);
  });

  it('a closed store is not ready', async () => {
    const { store } = await storeIn(tempDir());
    await store.close();
    await expect(store.ready()).rejects.toThrow(/is closed/);
  });
});

describe.skipIf(!IS_ROOT)(`FileStore.ready() on a full disk (a real 2 MB tmpfs; ${NOT_ROOT_REASON})`, () => {
  const mounts: string[] = [];
  afterAll(async () => {
    for (const s of stores.splice(0)) await s.close().catch(() => undefined);
    for (const dir of mounts) unmountAll(dir);
  });

  it('an append refused for want of space makes it not ready at once; the next probe says the disk is full; freed space makes it ready again without a write', async () => {
    const dir = mountTmpfs('2m');
    mounts.push(dir);
    const { store, clock, dataFile } = await storeIn(dir);
    await store.ready();
    const filler = fill(dir);

    const refused = await insertUntilRefused(store);
    expect(refused).toBeInstanceOf(StoreUnavailableError);
    expect(refused.message).toContain('is full (ENOSPC)');
    // The probe a moment ago passed, but the append since failed: the newer says.
    await expect(store.ready()).rejects.toThrow(`the last write of a change failed: the data directory ${dir} is full (ENOSPC): no change can be written to ${dataFile} until space is freed there`);
    clock.now += 1_000;
    await expect(store.ready()).rejects.toThrow(`the data directory ${dir} is full (ENOSPC)`);
    expect(existsSync(`${dataFile}.healthz-probe`)).toBe(false);

    unlinkSync(filler);
    await expect(store.ready()).rejects.toThrow(/is full/); // the last answer, for up to a second
    clock.now += 1_000;
    await store.ready();
    expect(await store.insertPayment(payment())).toBe('inserted');
  });

  it('an append that lands again clears the failure before the next probe', async () => {
    const dir = mountTmpfs('2m');
    mounts.push(dir);
    const { store } = await storeIn(dir);
    await store.ready();
    const filler = fill(dir);
    await insertUntilRefused(store);
    await expect(store.ready()).rejects.toThrow(/last write of a change failed/);
    unlinkSync(filler);
    expect(await store.insertPayment(payment())).toBe('inserted');
    await store.ready();
  });

  it('a snapshot the full disk refuses leaves the old snapshot and the log whole: a restart finds every acknowledged payment', async () => {
    const dir = mountTmpfs('2m');
    mounts.push(dir);
    const dataFile = path.join(dir, 'sandbox.json');
    const store = new FileStore({ dataFile, snapshotAfterBytes: 200_000 });
    stores.push(store);
    await store.open();
    const acknowledged: string[] = [];
    const insert = async () => {
      const p = payment();
      await store.insertPayment(p);
      acknowledged.push(p.id);
    };
    // Half the threshold in the log, then a disk with room for the rest of the log but not for a snapshot beside it.
    while (statSync(`${dataFile}.log`).size < 100_000) await insert();
    const filler = fill(dir);
    unlinkSync(filler);
    writeFileSync(filler, Buffer.alloc(Math.max(0, statfsSync(dir).bavail * statfsSync(dir).bsize - 150_000)));
    const generation = snapshotGeneration(dataFile);
    for (let i = 0; i < 400; i++) {
      await insert().catch(() => undefined);
      await store.snapshotting?.catch(() => undefined);
    }
    expect(snapshotGeneration(dataFile)).toBe(generation);
    expect(statSync(`${dataFile}.log`).size).toBeGreaterThan(200_000);
    unlinkSync(filler);

    const again = new FileStore({ dataFile });
    stores.push(again);
    await again.open();
    expect(await storedPayments(again, aPayment().payeeId)).toBe(acknowledged.length);
  });

  it('nothing of a refused change is kept: a restart finds every acknowledged payment and none of the refused', async () => {
    const dir = mountTmpfs('2m');
    mounts.push(dir);
    const { store, dataFile } = await storeIn(dir);
    const filler = fill(dir);
    const acknowledged: string[] = [];
    let refusedId: string | undefined;
    for (let i = 0; i < 200 && !refusedId; i++) {
      const p = payment();
      await store.insertPayment(p).then(() => acknowledged.push(p.id), () => (refusedId = p.id));
    }
    expect(refusedId).toBeDefined();
    unlinkSync(filler);

    // As after a crash: the log alone.
    const again = new FileStore({ dataFile });
    stores.push(again);
    await again.open();
    for (const id of acknowledged) expect(await again.payment(aPayment().payeeId, id)).toBeDefined();
    expect(await again.payment(aPayment().payeeId, refusedId!)).toBeUndefined();
    expect(await storedPayments(again, aPayment().payeeId)).toBe(acknowledged.length);
  });
});
