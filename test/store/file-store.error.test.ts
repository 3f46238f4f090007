import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileStore } from '../../src/store/file-store.js';
import { removeTempDirs, tempDir, walSegments } from '../support/files.js';
import { aPayment } from '../support/payments.js';

afterAll(removeTempDirs);

describe('FileStore: damaged files', () => {
  it('skips a torn last log line (a write that was never acknowledged) and keeps the rest', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const first = new FileStore({ dataFile });
    await first.open();
    const kept = aPayment();
    await first.insertPayment(kept);
    const segment = walSegments(dataFile).at(-1)!;
    appendFileSync(segment, '{"t":"payment","v":{"id":"pay_torn');

    const second = new FileStore({ dataFile });
    await second.open();
    expect(await second.payment(kept.payeeId, kept.id)).toEqual(kept);
    expect(await second.countPayments(kept.payeeId)).toBe(1);
    // It writes on to a new segment, so the torn line never glues onto a new record.
    const other = aPayment({ id: 'pay_ZZZZZZZZZZZZZZZZZZZZZZ', token: 'ptok_zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz', code: 'ZZZZ2345WXYZ', merchantRefNo: 'order-2' });
    expect(await second.insertPayment(other)).toBe('inserted');
    expect(readFileSync(segment, 'utf8').endsWith('pay_torn')).toBe(true);
    await second.close();
    const third = new FileStore({ dataFile });
    await third.open();
    expect(await third.countPayments(kept.payeeId)).toBe(2);
    await third.close();
  });

  it('refuses to open a JSON file that is not a payreq-sandbox store, and leaves it alone', async () => {
    const dataFile = path.join(tempDir(), 'other.json');
    writeFileSync(dataFile, JSON.stringify({ format: 'something-else', rows: [1, 2, 3] }));
    await expect(new FileStore({ dataFile }).open()).rejects.toThrow(/not a payreq-sandbox store/);
    expect(JSON.parse(readFileSync(dataFile, 'utf8'))).toEqual({ format: 'something-else', rows: [1, 2, 3] });
  });

  it('refuses to open a snapshot that is not JSON, and leaves it alone', async () => {
    const dataFile = path.join(tempDir(), 'broken.json');
    writeFileSync(dataFile, '{"format": "payreq-sandbox/1", "payments": [');
    await expect(new FileStore({ dataFile }).open()).rejects.toThrow();
    expect(readFileSync(dataFile, 'utf8')).toBe('{"format": "payreq-sandbox/1", "payments": [');
  });
});

describe('FileStore: a reset survives a crash and a compaction', () => {
  it('replays the reset record from the log, and the snapshot holds no erased payment', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const first = new FileStore({ dataFile });
    await first.open();
    const erased = aPayment();
    await first.insertPayment(erased);
    await first.compact();
    await first.resetMerchant(erased.payeeId);

    const afterCrash = new FileStore({ dataFile });
    await afterCrash.open();
    expect(await afterCrash.countPayments(erased.payeeId)).toBe(0);
    expect(await afterCrash.paymentByToken(erased.token)).toBeUndefined();
    await afterCrash.close();
    expect(JSON.parse(readFileSync(dataFile, 'utf8')).payments).toEqual([]);
  });
});
