import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SnapshotFile } from '../../src/store/snapshot-file.js';

describe('the snapshot file adapter', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'payreq-snapshot-'));
  const file = path.join(dir, 's.json');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads null when there is no file yet', async () => {
    expect(await new SnapshotFile(path.join(dir, 'none.json')).read()).toBeNull();
  });

  it.each([0, 1, 249, 250, 251, 1234])('writes the JSON of the data with %i payments, one per line, and reads it back', async (count) => {
    const data = {
      format: 'payreq-sandbox/1',
      walSegment: 7,
      merchants: [{ payeeId: 'M1', name: 'Kopi "Corner"', tags: ['a', 'b'] }],
      payments: Array.from({ length: count }, (_, i) => ({ id: `pay_${i}`, note: i % 7 === 0 ? 'ünïcödé \u2028 "quoted"' : null, amountMinor: i })),
    };
    const adapter = new SnapshotFile<typeof data>(file);
    await adapter.write(data);
    const text = readFileSync(file, 'utf8');
    // Still lowdb's JSON: the same value as JSON.stringify, with one array element per line.
    expect(JSON.parse(text)).toStrictEqual(JSON.parse(JSON.stringify(data)));
    expect(text.replace(/\n/g, '')).toBe(JSON.stringify(data));
    const lines = text.split('\n');
    expect(lines.length).toBe(count + 4);
    for (const [i, p] of data.payments.entries()) expect(lines[i + 3]).toBe(`${JSON.stringify(p)}${i < count - 1 ? ',' : ''}`);
    expect(await adapter.read()).toStrictEqual(data);
  });

  it('lets other work run while it writes a large snapshot', async () => {
    const data = { payments: Array.from({ length: 5000 }, (_, i) => ({ id: `pay_${i}`, text: 'x'.repeat(200) })) };
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    await new SnapshotFile<typeof data>(file).write(data);
    clearInterval(ticker);
    expect(turns).toBeGreaterThan(0);
  });
});
