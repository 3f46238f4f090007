/**
 * The log is folded once it holds as many records as the snapshot (or compactAfter): counted
 * against the records in the snapshot, not against every payment in memory, which grow with the
 * log itself (a create-only workload then never folded again after the first fold).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { FileStore } from '../../src/store/file-store.js';
import type { Snapshot } from '../../src/store/file-store.js';
import { removeTempDirs, tempDir, walSegments } from '../support/files.js';
import { aPayment } from '../support/payments.js';

afterAll(removeTempDirs);

function numbered(i: number) {
  const tag = String(i).padStart(8, '0');
  return aPayment({ id: `pay_fld${tag}ZZZZZZZZZZZZZ`, token: `ptok_fld${tag}zzzzzzzzzzzzzzzzzzzzz`, code: `F${tag}ZZZ`, merchantRefNo: `fld-${tag}` });
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('FileStore: when the log is folded', () => {
  it('2,000 creates with compactAfter 10 fold again each time the log holds as many records as the snapshot', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const store = new FileStore({ dataFile, compactAfter: 10 });
    await store.open();
    const sizes: number[] = [];
    for (let i = 0; i < 2_000; i++) {
      expect(await store.insertPayment(numbered(i))).toBe('inserted');
      await turn();
      if (store.counters.compactions > sizes.length) {
        await vi.waitFor(() => expect(readFileSync(dataFile, 'utf8').length).toBeGreaterThan(0));
        sizes.push((JSON.parse(readFileSync(dataFile, 'utf8')) as Snapshot).payments.length);
      }
    }
    // No fold running (a fold has two segments until it ends); one may have ended since the last create.
    await vi.waitFor(() => expect(walSegments(dataFile)).toHaveLength(1), { timeout: 10_000 });
    if (store.counters.compactions > sizes.length) sizes.push((JSON.parse(readFileSync(dataFile, 'utf8')) as Snapshot).payments.length);
    // A fold comes once the log holds as many records as the snapshot (more join while the
    // snapshot is written): each snapshot at least doubles the one before, so the amortised
    // cost per write stays flat, and the log never grows past the snapshot unfolded.
    // (How many depends on how many creates join while a fold writes: 5 to 8 here.)
    expect(sizes.length).toBeGreaterThanOrEqual(3);
    expect(store.counters.compactions).toBe(sizes.length);
    for (let i = 1; i < sizes.length; i++) expect(sizes[i]).toBeGreaterThanOrEqual(2 * sizes[i - 1]!);
    const logLines = readFileSync(walSegments(dataFile)[0]!, 'utf8').split('\n').filter(Boolean).length;
    expect(logLines).toBe(2_000 - sizes.at(-1)!);
    expect(logLines).toBeLessThan(sizes.at(-1)!);
    await store.close();
  });
});
