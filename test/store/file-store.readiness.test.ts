/**
 * The readiness evidence (SPEC 16: "what the report needs is kept beyond the journal's bound"):
 * in the file store's own files, the same after a crash and after a stop, repeats of a status
 * read collapsed to the first and the last, 2,000 entries per merchant, erased by a reset and
 * not by clearing the journal; the shared store's way of collapsing (collapseRepeats) keeps
 * exactly what the in-process log keeps.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SeenRequest } from '../../src/domain/readiness.js';
import { FileStore } from '../../src/store/file-store.js';
import { collapseRepeats, MemoryReadinessLog, READINESS_CAP } from '../../src/store/readiness-log.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { until } from '../support/until.js';

afterAll(removeTempDirs);

const M = 'DEMO-MERCHANT-1';

function seen(i: number, overrides: Partial<SeenRequest> = {}): SeenRequest {
  return {
    ref: `req-${i}`, at: 1_000 + i, answeredAt: 1_002 + i, method: 'GET', path: '/openapi/v1/payments/payment/pay_1', alias: false, status: 200, fault: null, idempotencyKey: null,
    merchantRefNo: null, amount: null, signed: false, bodyDigest: null, paymentId: 'pay_1', paymentStatus: 'P', retryAfterSeconds: null, ...overrides,
  };
}

const create = (i: number) => seen(i, { method: 'POST', path: '/openapi/v1/payments/payment', merchantRefNo: `ref-${i}`, amount: 12.5, paymentStatus: null });
const read = (i: number, status = 'P') => ({ entry: seen(i, { paymentStatus: status }), repeat: `/openapi/v1/payments/payment/pay_1 ${status}` });

async function opened(dataFile: string): Promise<FileStore> {
  const store = new FileStore({ dataFile });
  await store.open();
  return store;
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

/** As after kill -9 once the turn ended: nothing to stop, the turn's records are in the log (a second store in this process then reads the files as a restart would). */
async function crash(_store: FileStore): Promise<void> {
  await turn();
}
const refs = async (store: FileStore, payeeId = M) => (await store.readiness.list(payeeId)).map((e) => e.ref);

describe('FileStore: the readiness evidence survives a restart, bounded', () => {
  it('a create and 3,000 reads of one status keep the create, the first and the last read of each status; a crash keeps at least the first', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const polled = async (store: FileStore) => {
      await store.readiness.add(M, create(0), null);
      for (let i = 1; i <= 3_000; i++) {
        const r = read(i, i <= 1_500 ? 'P' : 'A');
        await store.readiness.add(M, r.entry, r.repeat);
      }
    };
    const first = await opened(dataFile);
    await polled(first);
    expect(await refs(first)).toEqual(['req-0', 'req-1', 'req-1500', 'req-1501', 'req-3000']);
    // An entry rides the write of its turn, like a journal entry.
    await crash(first);

    // A polling loop's newest read only replaces the last of its run in memory (no write per
    // read): a crash keeps the create, each status's first read and the copy written before
    // the run began replacing it.
    const afterCrash = await opened(dataFile);
    expect(await refs(afterCrash)).toEqual(['req-0', 'req-1', 'req-2', 'req-1501', 'req-1502']);
    expect((await afterCrash.readiness.list(M))[0]).toEqual(create(0));
    await afterCrash.close();

    // A stop folds what memory holds: the last reads too.
    const stopped = path.join(tempDir(), 's.json');
    const second = await opened(stopped);
    await polled(second);
    await second.close();
    const afterStop = await opened(stopped);
    expect(await refs(afterStop)).toEqual(['req-0', 'req-1', 'req-1500', 'req-1501', 'req-3000']);
    await afterStop.close();
  });

  it(`keeps the newest ${READINESS_CAP} entries per merchant; clearing the journal keeps them, a reset erases them for good`, async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const first = await opened(dataFile);
    for (let i = 0; i < READINESS_CAP + 10; i++) await first.readiness.add(M, create(i), null);
    await first.readiness.add('OTHER', create(0), null);
    await first.journal.clear(M);
    await crash(first);

    const second = await opened(dataFile);
    const kept = await refs(second);
    expect(kept).toHaveLength(READINESS_CAP);
    expect([kept[0], kept.at(-1)]).toEqual(['req-10', `req-${READINESS_CAP + 9}`]);
    await second.resetMerchant(M);
    expect(await refs(second)).toEqual([]);

    const third = await opened(dataFile);
    expect(await refs(third)).toEqual([]);
    expect(await refs(third, 'OTHER')).toEqual(['req-0']);
    await third.close();
  });

});

describe('collapseRepeats (the shared store reads and trims with it)', () => {
  it('keeps exactly what the in-process log keeps, for interleaved polls of several payments, barriers and the cap', async () => {
    let seed = 42;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    for (const length of [10, 200, 5_000]) {
      const log = new MemoryReadinessLog({});
      const rows: { repeat: string | null; ref: string }[] = [];
      for (let i = 0; i < length; i++) {
        const pick = random();
        const repeat = pick < 0.1 ? null : `/openapi/v1/payments/payment/pay_${Math.floor(pick * 4)} ${random() < 0.9 ? 'P' : 'A'}`;
        await log.add(M, seen(i), repeat);
        rows.push({ repeat, ref: `req-${i}` });
      }
      expect(collapseRepeats(rows).map((r) => r.ref)).toEqual((await log.list(M)).map((e) => e.ref));
    }
  });
});
