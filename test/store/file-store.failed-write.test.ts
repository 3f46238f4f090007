import { mkdtempSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';

/** The next append writes only part of its line, then fails as a full disk would. */
const failNext = { armed: false };

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  return {
    ...real,
    writeSync: (fd: number, buffer: Uint8Array, offset?: number) => {
      if (failNext.armed) {
        failNext.armed = false;
        real.writeSync(fd, buffer, offset ?? 0, 20);
        throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
      }
      return real.writeSync(fd, buffer, offset);
    },
  };
});

const { FileStore } = await import('../../src/store/file-store.js');
const { DEFAULT_SETTINGS } = await import('../../src/domain/merchant.js');

function merchant(id: string) {
  return { payeeId: id, name: id, city: 'C', countryCode: 'SG', mcc: '5812', homeCurrency: 'SGD', apiKeys: [`k-${id}`], signingSalt: 's', settings: DEFAULT_SETTINGS, clockOffsetMs: 0, createdAt: 0 };
}

describe('a failed log write', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'payreq-torn-'));
  const dataFile = path.join(dir, 's.json');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('leaves no half line behind: the next acknowledged write survives a restart', async () => {
    const store = new FileStore({ dataFile });
    await store.open();
    await store.saveMerchant(merchant('A'));
    failNext.armed = true;
    await expect(store.saveMerchant(merchant('B'))).rejects.toThrow(/ENOSPC/);
    await store.saveMerchant(merchant('C'));
    expect(await store.merchantIds()).toEqual(['A', 'C']);
    // Restart without close(), as after a crash: only the log holds the data.
    const again = new FileStore({ dataFile });
    await again.open();
    expect(await again.merchantIds()).toEqual(['A', 'C']);
  });

  it('refuses to start on a log damaged in the middle, naming the file and line', async () => {
    const other = path.join(dir, 'damaged.json');
    writeFileSync(`${other}.wal.0`, `${JSON.stringify({ t: 'merchant', v: merchant('X') })}\n{"t":"merch\n${JSON.stringify({ t: 'merchant', v: merchant('Y') })}\n`);
    const store = new FileStore({ dataFile: other });
    await expect(store.open()).rejects.toThrow(/damaged\.json\.wal\.0 line 2 is not a whole log record/);
    expect(readdirSync(dir).some((f) => f.startsWith('damaged.json.wal'))).toBe(true);
    expect(fs.existsSync(other)).toBe(false);
  });
});
