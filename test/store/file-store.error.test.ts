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

describe('FileStore: a start-up error names the damaged file, the place and what to do', () => {
  /** The open error's message; the damaged file is left as it was. */
  async function openError(dataFile: string, damaged: string): Promise<string> {
    const before = readFileSync(damaged, 'utf8');
    const error: unknown = await new FileStore({ dataFile }).open().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(Error);
    expect(readFileSync(damaged, 'utf8')).toBe(before);
    const message = (error as Error).message;
    expect(message).toContain(damaged);
    expect(message).toMatch(/restore .* from a copy|move .* away/);
    return message;
  }

  it.each([
    ['cut short', '{"format":"payreq-sandbox/1","walSegment":0,"merchants":[', /not valid JSON/],
    ['JSON null', 'null', /not a store snapshot/],
    ['an array', '[]', /not a store snapshot/],
    ['merchants not a list', '{"format":"payreq-sandbox/1","walSegment":0,"merchants":{},"payments":[]}', /merchants is not a list/],
    ['a payment that is a number', '{"format":"payreq-sandbox/1","walSegment":0,"merchants":[],"payments":[\n42\n]}', /payments\[0\]/],
    ['a payment without its id', `{"format":"payreq-sandbox/1","walSegment":0,"merchants":[],"payments":[${JSON.stringify({ ...aPayment(), id: undefined })}]}`, /payments\[0\].*id/],
    ['walSegment not a number', '{"format":"payreq-sandbox/1","walSegment":"x","merchants":[],"payments":[]}', /walSegment/],
  ])('a snapshot %s', async (_name, text, why) => {
    const dataFile = path.join(tempDir(), 's.json');
    writeFileSync(dataFile, text);
    expect(await openError(dataFile, dataFile)).toMatch(why);
  });

  it.each([
    ['a number', '42', /not a log record/],
    ['null', 'null', /not a log record/],
    ['an unknown type', '{"t":"refund","v":{}}', /"refund"/],
    ['a payment record without its payment', '{"t":"payment"}', /payment/],
    ['a payment without its payeeId', JSON.stringify({ t: 'payment', v: { ...aPayment(), payeeId: 7 } }), /payeeId/],
    ['a merchant without its keys', '{"t":"merchant","v":{"payeeId":"M-1"}}', /apiKeyHashes/],
    ['a prune without its time', '{"t":"prune","payeeId":"M-1"}', /createdBefore/],
  ])('a log record that is %s, even as the last line', async (_name, line, why) => {
    const dataFile = path.join(tempDir(), 's.json');
    // Left open, as a crash leaves it: closing would fold the log into the snapshot.
    const first = new FileStore({ dataFile });
    await first.open();
    await first.insertPayment(aPayment());
    await first.insertPayment(aPayment({ id: 'pay_ZZZZZZZZZZZZZZZZZZZZZZ', token: 'ptok_zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz', code: 'ZZZZ2345WXYZ', merchantRefNo: 'order-2' }));
    const segment = walSegments(dataFile).at(-1)!;
    for (const last of [false, true]) {
      const whole = readFileSync(segment, 'utf8').split('\n').filter(Boolean);
      writeFileSync(segment, `${[...whole.slice(0, 1), line, ...(last ? [] : whole.slice(1))].join('\n')}\n`);
      const message = await openError(dataFile, segment);
      expect(message).toContain('line 2');
      expect(message).toMatch(why);
      writeFileSync(segment, `${whole.join('\n')}\n`);
    }
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
