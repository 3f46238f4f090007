/**
 * Stores written before metadata was kept as text hold it as an object in each payment's
 * document: the file store (snapshot and log) and the PostgreSQL store read such a payment with
 * its metadata as text, the text JSON.stringify writes of that object.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/domain/merchant.js';
import type { Merchant } from '../../src/domain/merchant.js';
import type { Payment } from '../../src/domain/payment.js';
import { FileStore } from '../../src/store/file-store.js';
import { PostgresStore } from '../../src/store/postgres-store.js';
import type { Store } from '../../src/store/store.js';
import { freshDatabase } from '../support/databases.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { aPayment } from '../support/payments.js';

afterAll(removeTempDirs);

const M: Merchant = {
  payeeId: 'M1', name: 'M1', city: 'Singapore', countryCode: 'SG', mcc: '5812', homeCurrency: 'SGD', apiKeyHashes: ['key-1'],
  signingSalt: 'salt', settings: DEFAULT_SETTINGS, clockOffsetMs: 0, createdAt: 0,
};
const OBJECT = { b: 1, 10: 2, a: { z: [1, 2.5, 'x'] }, 'é': 'ü' };

/** A payment as an older version wrote it: metadata as an object in the document. */
function oldPayment(): Payment {
  return aPayment({ payeeId: 'M1', metadata: OBJECT as unknown as string });
}

describe.each([
  ['FileStore, from its log', async () => { const dataFile = path.join(tempDir(), 's.json'); return () => new FileStore({ dataFile }); }, false],
  ['FileStore, from its snapshot', async () => { const dataFile = path.join(tempDir(), 's.json'); return () => new FileStore({ dataFile }); }, true],
  ['PostgresStore', async () => { const url = await freshDatabase(); return () => new PostgresStore({ url }); }, false],
] as const)('metadata of an older store: %s', (_name, makeFactory, fold) => {
  it('is read back as its text', async () => {
    const make: () => Store = await makeFactory();
    const writer = make();
    await writer.open();
    await writer.saveMerchant(M);
    const p = oldPayment();
    expect(await writer.insertPayment(p)).toBe('inserted');
    if (fold && writer instanceof FileStore) await writer.writeSnapshot();
    await writer.close();
    const reader = make();
    await reader.open();
    for (const read of [await reader.payment('M1', p.id), await reader.paymentByRef('M1', p.merchantRefNo), (await reader.listPayments('M1', { limit: 1, offset: 0 })).items[0]]) {
      expect(read?.metadata).toBe(JSON.stringify(OBJECT));
    }
    await reader.close();
  });
});
