/**
 * The idempotency keys of the file store are in files of their own (SPEC 16: "keys are bounded
 * in number and memory and survive a restart"): an answered key is there after a crash and after
 * a stop, a claim in progress is not (its retry runs), a reset erases them for good, the bounds
 * hold across restarts and the files are folded down to what is kept.
 */
import { appendFileSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileStore } from '../../src/store/file-store.js';
import { IDEMPOTENCY_ANSWER_CHARS_PER_MERCHANT, IDEMPOTENCY_KEYS_PER_MERCHANT, IDEMPOTENCY_TTL_MS } from '../../src/store/idempotency-keys.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { snapshotGeneration } from '../support/json-lines.js';

afterAll(removeTempDirs);

const M = 'DEMO-MERCHANT-1';
const NOW = 1_000_000;
const REAL = 5_000;

async function opened(dataFile: string, repair = false): Promise<FileStore> {
  const store = new FileStore({ dataFile, repair });
  await store.open();
  return store;
}

/** Claims `key` and keeps an answer for it, as the middleware does. */
async function answered(store: FileStore, key: string, body = `{"code":200,"description":"Created.","key":"${key}"}`, payeeId = M): Promise<void> {
  expect(await store.idempotency.begin(payeeId, key, `POST /openapi/v1/payments/payment {"k":"${key}"}`, NOW, REAL)).toEqual({ kind: 'started' });
  await store.idempotency.finish(payeeId, key, 200, body);
}

/** As after kill -9: nothing to stop, every change is in the log already (a second store in this process then reads the files as a restart would). */
async function crash(_store: FileStore): Promise<void> {}

const again = (store: FileStore, key: string, fingerprint = `POST /openapi/v1/payments/payment {"k":"${key}"}`) => store.idempotency.begin(M, key, fingerprint, NOW + 1_000, REAL + 1_000);

describe('FileStore: idempotency keys survive a restart, bounded', () => {
  it('an answered key replays after a crash and after a stop; another body is a mismatch; a claim in progress is gone', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const first = await opened(dataFile);
    await answered(first, 'k-1');
    // A claim whose request was running when the process died.
    expect(await first.idempotency.begin(M, 'k-running', 'POST /x {}', NOW, REAL)).toEqual({ kind: 'started' });
    expect(await first.idempotency.begin(M, 'k-running', 'POST /x {}', NOW, REAL)).toEqual({ kind: 'in_progress' });
    // finish resolved: the key is on disk (no turn to wait for, no close).
    await crash(first);

    const afterCrash = await opened(dataFile);
    expect(await again(afterCrash, 'k-1')).toEqual({ kind: 'done', code: 200, body: '{"code":200,"description":"Created.","key":"k-1"}' });
    expect(await again(afterCrash, 'k-1', 'POST /openapi/v1/payments/payment {"k":"other"}')).toEqual({ kind: 'mismatch' });
    // Nobody runs it any more: the retry runs.
    expect(await afterCrash.idempotency.begin(M, 'k-running', 'POST /x {}', NOW, REAL)).toEqual({ kind: 'started' });
    await afterCrash.close();

    const afterStop = await opened(dataFile);
    expect(await again(afterStop, 'k-1')).toMatchObject({ kind: 'done', code: 200 });
    // A day of the merchant's clock later, the key is free again.
    expect(await afterStop.idempotency.begin(M, 'k-1', 'POST /y {}', NOW + IDEMPOTENCY_TTL_MS, REAL)).toEqual({ kind: 'started' });
    await afterStop.close();
  });

  it('a reset erases the merchant keys for good, and only its own', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const first = await opened(dataFile);
    await answered(first, 'k-1');
    await answered(first, 'k-1', '{"code":200}', 'OTHER');
    await first.resetMerchant(M);
    await crash(first);

    const second = await opened(dataFile);
    expect(await again(second, 'k-1')).toEqual({ kind: 'started' });
    expect(await second.idempotency.begin('OTHER', 'k-1', 'POST /openapi/v1/payments/payment {"k":"k-1"}', NOW, REAL)).toMatchObject({ kind: 'done' });
    await second.close();
  });

  it(`keeps the newest ${IDEMPOTENCY_KEYS_PER_MERCHANT} keys per merchant, and answers of at most ${IDEMPOTENCY_ANSWER_CHARS_PER_MERCHANT} characters, across restarts`, async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const first = await opened(dataFile);
    for (let i = 0; i < IDEMPOTENCY_KEYS_PER_MERCHANT + 5; i++) await answered(first, `n-${i}`);
    await crash(first);

    const second = await opened(dataFile);
    expect(await again(second, 'n-5')).toMatchObject({ kind: 'done' });
    expect(await again(second, `n-${IDEMPOTENCY_KEYS_PER_MERCHANT + 4}`)).toMatchObject({ kind: 'done' });
    // (A claim is a key too: checked last, it pushes n-5 out.)
    expect(await again(second, 'n-4')).toEqual({ kind: 'started' });

    // Answers of 300 KiB each: the oldest go once they hold more than the bound.
    const big = (i: number) => `{"code":200,"pad":"${String(i).repeat(300 * 1024)}"}`;
    for (let i = 0; i < 8; i++) await answered(second, `big-${i}`, big(i));
    await second.close();
    const third = await opened(dataFile);
    const kept = [];
    for (let i = 0; i < 8; i++) kept.push((await again(third, `big-${i}`)).kind);
    expect(kept.filter((k) => k === 'done').length).toBe(Math.floor(IDEMPOTENCY_ANSWER_CHARS_PER_MERCHANT / (300 * 1024 + 20)));
    expect(kept.at(-1)).toBe('done');
    await third.close();
  });

  it('the files hold what is kept: 10,000 keys leave a snapshot of about 1,000', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const store = new FileStore({ dataFile, snapshotAfterBytes: 300_000 });
    await store.open();
    for (let i = 0; i < 10_000; i++) {
      await answered(store, `f-${i}`, '{"code":200}');
      // The snapshot is written over event-loop turns, which requests over HTTP leave it.
      await store.snapshotting;
    }
    const bytes = () => readdirSync(path.dirname(dataFile)).filter((f) => f.startsWith('s.json')).reduce((n, f) => n + statSync(path.join(path.dirname(dataFile), f)).size, 0);
    // A key's line is ~150 bytes; the log starts afresh after each snapshot.
    expect(snapshotGeneration(dataFile)).toBeGreaterThan(2);
    expect(bytes()).toBeLessThan(IDEMPOTENCY_KEYS_PER_MERCHANT * 200 + 300_000);
    await store.close();
    const reopened = await opened(dataFile);
    expect(await again(reopened, 'f-9999')).toMatchObject({ kind: 'done' });
    expect(await again(reopened, 'f-8999')).toEqual({ kind: 'started' });
    await reopened.close();
  });

  it('a torn last record (a crash mid-write, never acknowledged) is skipped', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const first = await opened(dataFile);
    await answered(first, 'k-1');
    await crash(first);
    appendFileSync(`${dataFile}.log`, '{"t":"key","payeeId":"M","v":{"key":"k-');
    const second = await opened(dataFile);
    expect(await again(second, 'k-1')).toMatchObject({ kind: 'done' });
    await second.close();
  });
});

describe('FileStore: expired keys after a restart', () => {
  it('a restart holds the keys and the bytes the live store held, once some have expired', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const first = await opened(dataFile);
    for (let i = 0; i < 20; i++) await answered(first, `old-${i}`, `{"code":200,"description":"${'x'.repeat(2_000)}"}`);
    // A day later on the merchant's clock: every old key has expired when the next one is claimed.
    const later = NOW + IDEMPOTENCY_TTL_MS + 1;
    expect(await first.idempotency.begin(M, 'new-1', 'POST /z {}', later, REAL)).toEqual({ kind: 'started' });
    await first.idempotency.finish(M, 'new-1', 200, '{"code":200}');
    const live = await first.storageUsage(M);
    await crash(first);

    const restarted = await opened(dataFile);
    expect(await restarted.storageUsage(M)).toEqual(live);
    // An expired key is claimed afresh however it was kept.
    expect(await restarted.idempotency.begin(M, 'old-3', 'POST /z {}', later, REAL)).toEqual({ kind: 'started' });
    await restarted.close();
  });
});
