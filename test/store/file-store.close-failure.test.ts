import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { apiKeyHash } from '../../src/domain/ids.js';
import { DEFAULT_SETTINGS } from '../../src/domain/merchant.js';
import { FileStore } from '../../src/store/file-store.js';

describe('a snapshot that cannot be written at shutdown', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'payreq-close-'));
  const dataFile = path.join(dir, 's.json');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('rejects close() but keeps every change in the log, which the next start replays', async () => {
    const store = new FileStore({ dataFile });
    await store.open();
    await store.saveMerchant({ payeeId: 'M1', name: 'M', city: 'C', countryCode: 'SG', mcc: '5812', homeCurrency: 'SGD', apiKeyHashes: [apiKeyHash('k1')], signingSalt: 's', settings: DEFAULT_SETTINGS, clockOffsetMs: 0, createdAt: 0 });
    // lowdb writes the snapshot to a temporary file beside it, then renames: make that impossible.
    mkdirSync(path.join(dir, '.s.json.tmp'));
    await expect(store.close()).rejects.toThrow();
    rmSync(path.join(dir, '.s.json.tmp'), { recursive: true });

    const again = new FileStore({ dataFile });
    await again.open();
    expect(await again.merchantIds()).toEqual(['M1']);
    await again.close();
  });
});
