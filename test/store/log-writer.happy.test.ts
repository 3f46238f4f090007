/**
 * The file store's parts on their own (issue 11: a store assembled from an index, a log writer
 * and a snapshot file): the log writer's group commit, riders, order and rotation, and the
 * in-memory index that the memory store is and the file store keeps.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LogWriter } from '../../src/store/log-writer.js';
import { MemoryIndex } from '../../src/store/memory-index.js';
import { removeTempDirs, tempDir, walSegments } from '../support/files.js';
import { aPayment } from '../support/payments.js';

afterAll(removeTempDirs);

const turn = () => new Promise((resolve) => setImmediate(resolve));

function openWriter(): { writer: LogWriter; dataFile: string; written: string[] } {
  const dataFile = path.join(tempDir(), 's.json');
  const written: string[] = [];
  const writer = new LogWriter(dataFile, () => written.push(readFileSync(`${dataFile}.wal.0`, 'utf8')));
  writer.open(0);
  return { writer, dataFile, written };
}

describe('LogWriter: where the file store writes', () => {
  it('writes the changes and riders of one turn with one write at its end, changes first to be waited for', async () => {
    const { writer, dataFile, written } = openWriter();
    const undone: string[] = [];
    const a = writer.change('a\n', 1, () => undone.push('a'));
    writer.ride('journal\n');
    const b = writer.change('b\n', 1, () => undone.push('b'));
    expect(writer.pending()).toBe(a);
    expect(b).toBe(a);
    expect(written).toEqual([]);
    await a;
    expect(written).toEqual(['a\njournal\nb\n']);
    expect(writer.pending()).toBeUndefined();
    expect(writer.counters).toMatchObject({ writes: 1, recordsAppended: 2, bytesAppended: 4, ridingRecords: 1, ridingBytes: 8 });
    expect(undone).toEqual([]);
    expect(readFileSync(`${dataFile}.wal.0`, 'utf8')).toBe('a\njournal\nb\n');
  });

  it('makes nobody wait for a turn that only rides along, and still writes it at the end of the turn', async () => {
    const { writer, written } = openWriter();
    void writer.ride('journal\n');
    expect(writer.pending()).toBeUndefined();
    await turn();
    expect(written).toEqual(['journal\n']);
    expect(writer.counters.writes).toBe(0);
  });

  it('writes at once what cannot wait, after what is pending, so the log keeps the order memory saw', async () => {
    const { writer, dataFile } = openWriter();
    const a = writer.change('a\n', 1, () => undefined);
    writer.now('reset\n');
    await a;
    expect(readFileSync(`${dataFile}.wal.0`, 'utf8')).toBe('a\nreset\n');
  });

  it('rotates to the next segment, writing what is pending first, and deletes the folded ones', async () => {
    const { writer, dataFile } = openWriter();
    void writer.change('a\n', 1, () => undefined);
    expect(writer.records).toBe(0);
    expect(writer.rotate()).toBe(1);
    expect(writer.records).toBe(0);
    writer.now('b\n');
    expect(writer.records).toBe(1);
    expect(walSegments(dataFile).map((f) => readFileSync(f, 'utf8'))).toEqual(['a\n', 'b\n']);
    writer.deleteBefore(1);
    expect(writer.segments()).toEqual([1]);
    writer.close();
    expect(() => writer.ride('c\n')).toThrow(/not open/);
  });
});

describe('MemoryIndex: what the memory and file stores keep in memory', () => {
  const p1 = aPayment();
  const p2 = aPayment({ id: 'pay_ZZZZZZZZZZZZZZZZZZZZZZ', token: 'ptok_zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz', code: 'ZZZZ2345WXYZ', merchantRefNo: 'order-2' });

  it('tells why a payment cannot be inserted, and which one a versioned change may replace', () => {
    const index = new MemoryIndex();
    index.applyPayment(p1);
    expect(index.insertConflict({ ...p2, merchantRefNo: p1.merchantRefNo })).toBe('duplicate_ref');
    expect(index.insertConflict({ ...p2, code: p1.code })).toBe('duplicate_code');
    expect(index.insertConflict(p2)).toBeUndefined();
    expect(index.replaceable({ ...p1, version: 2 }, 1)).toBe(p1);
    expect(index.replaceable({ ...p1, version: 3 }, 2)).toBeUndefined();
    expect(index.replaceable({ ...p1, payeeId: 'OTHER' }, 1)).toBeUndefined();
  });

  it('undoes an insert from every index and an update back to the stored payment', async () => {
    const index = new MemoryIndex();
    index.applyPayment(p1);
    index.applyPayment(p2);
    index.unapplyPayment(p2, undefined);
    expect(await Promise.all([index.payment(p2.payeeId, p2.id), index.paymentByRef(p2.payeeId, p2.merchantRefNo), index.paymentByToken(p2.token)])).toEqual([undefined, undefined, undefined]);
    expect(await index.livePayments(p1.payeeId)).toEqual([p1]);
    const paid = { ...p1, status: 'A' as const, version: 2 };
    index.applyPayment(paid);
    index.unapplyPayment(paid, p1);
    expect(await index.payment(p1.payeeId, p1.id)).toBe(p1);
    expect(await index.countPayments(p1.payeeId)).toBe(1);
  });

  it('erases a merchant on reset and answers how many went', () => {
    const index = new MemoryIndex();
    index.applyPayment(p1);
    index.applyPayment(p2);
    expect(index.applyReset(p1.payeeId)).toBe(2);
    expect(index.paymentCount).toBe(0);
    expect(index.insertConflict(p1)).toBeUndefined();
  });
});
