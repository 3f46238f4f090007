import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Payment } from '../../src/domain/payment.js';
import { createSandbox } from '../../src/index.js';
import { FileStore } from '../../src/store/file-store.js';
import { DEMO_PAYEE, call, expectEnvelope, manualClock } from '../support/http.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { aPayment } from '../support/payments.js';

afterAll(removeTempDirs);

function numbered(i: number): Payment {
  const tag = String(i).padStart(8, '0');
  return aPayment({ id: `pay_grp${tag}ZZZZZZZZZZZZ`, token: `ptok_grp${tag}zzzzzzzzzzzzzzzzzzzz`, code: `G${tag}ZZZ`, merchantRefNo: `grp-${tag}`, payeeId: DEMO_PAYEE });
}

async function openStore(dataFile: string): Promise<FileStore> {
  const store = new FileStore({ dataFile });
  await store.open();
  return store;
}

describe('FileStore: the changes of one turn are written together', () => {
  it('writes 25 inserts and an update made in one turn with one write, and answers none of them before it', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const store = await openStore(dataFile);
    expect(await store.insertPayment(numbered(0))).toBe('inserted');
    const writesBefore = store.counters.writes;

    const inserts = Array.from({ length: 25 }, (_, i) => store.insertPayment(numbered(i + 1)));
    const update = store.updatePayment({ ...numbered(0), status: 'W', payer: { id: 'alice', name: 'Alice' }, version: 2 }, 1);
    // Nothing is written yet, and the write is announced to anyone who reads meanwhile.
    expect(store.counters.writes).toBe(writesBefore);
    expect(store.pendingWrites()).toBeInstanceOf(Promise);

    expect(await Promise.all(inserts)).toEqual(Array(25).fill('inserted'));
    expect(await update).toBe(true);
    expect(store.counters.writes).toBe(writesBefore + 1);
    expect(store.counters.recordsAppended).toBe(27);
    expect(store.pendingWrites()).toBeUndefined();

    // Restart without close(), as after a crash: the log alone holds all 26 and the update.
    const again = await openStore(dataFile);
    expect(await again.countPayments(DEMO_PAYEE)).toBe(26);
    expect((await again.payment(DEMO_PAYEE, numbered(0).id))?.status).toBe('W');
    expect((await again.paymentByRef(DEMO_PAYEE, 'grp-00000025'))?.id).toBe(numbered(25).id);
  });

  it('sees a change of the pending batch at once: a second create with its merchant_ref_no is a duplicate', async () => {
    const store = await openStore(path.join(tempDir(), 's.json'));
    const first = store.insertPayment(numbered(1));
    const second = store.insertPayment({ ...numbered(2), merchantRefNo: numbered(1).merchantRefNo });
    expect(await first).toBe('inserted');
    expect(await second).toBe('duplicate_ref');
    expect(await store.countPayments(DEMO_PAYEE)).toBe(1);
  });

  it('writes a pending batch before a reset made in the same turn, so the log replays them in that order', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const store = await openStore(dataFile);
    const insert = store.insertPayment(numbered(1));
    const reset = store.resetMerchant(DEMO_PAYEE);
    expect(await insert).toBe('inserted');
    await reset;
    const kept = store.insertPayment(numbered(2));
    expect(await kept).toBe('inserted');

    const again = await openStore(dataFile);
    expect((await again.listPayments(DEMO_PAYEE, { limit: 10, offset: 0 })).items.map((p) => p.id)).toEqual([numbered(2).id]);
  });

  it('holds every answer of the turn until the write: 20 concurrent creates over HTTP are one write and all survive', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const sandbox = await createSandbox({ store: 'file', dataFile, clock: manualClock().clock, scheduler: false });
    const store = sandbox.services.store as FileStore;
    const writesBefore = store.counters.writes;
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(sandbox, 'POST', '/openapi/v1/payments/payment', { body: { payee: DEMO_PAYEE, product_type: 'QR_DYNAMIC', merchant_ref_no: `http-${i}`, amount: 10.5 } }),
      ),
    );
    for (const answer of answers) expectEnvelope(answer, 200);
    // In-process, the 20 bodies are read in the same turn: their records share one write.
    expect(store.counters.writes - writesBefore).toBe(1);

    const again = await openStore(dataFile);
    for (let i = 0; i < 20; i++) expect(await again.paymentByRef(DEMO_PAYEE, `http-${i}`)).toBeDefined();
    await sandbox.close();
  });
});
