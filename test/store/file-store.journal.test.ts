/**
 * The request journal and webhook deliveries of the file store are in its files (SPEC 15):
 * rebuilt at start from the log and from the snapshot, bounded as in memory (500 entries and
 * 200 deliveries per merchant), attempts, resends and clears included.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Delivery } from '../../src/store/delivery-log.js';
import { FileStore } from '../../src/store/file-store.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import type { NewJournalEntry } from '../../src/store/journal-log.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { aPayment } from '../support/payments.js';
import { ANY_MERCHANT } from '../support/claims.js';

afterAll(removeTempDirs);

const M = 'DEMO-MERCHANT-1';

function entry(i: number): NewJournalEntry {
  return { at: 1_000 + i, method: 'GET', path: `/openapi/v1/payments/payment/p${i}`, alias: false, status: 200, code: 200, requestBody: null, responseBody: `{"code":200,"n":${i}}`, latencyMs: 1.5, fault: null, warnings: [], requestId: `req-${i}` };
}

function delivery(i: number, paymentId: string): Delivery {
  return { id: `dlv_${i}`, payeeId: M, eventId: `evt_${i}`, eventType: 'payment.created', paymentId, url: 'http://127.0.0.1:1/hooks', body: `{"n":${i}}`, state: 'pending', attempts: [], attempt: 0, nextAttemptAt: 5_000, createdAt: 5_000 };
}

function payment(i: number) {
  const tag = String(i).padStart(8, '0');
  return aPayment({ id: `pay_jrn${tag}ZZZZZZZZZZZZZ`, token: `ptok_jrn${tag}zzzzzzzzzzzzzzzzzzzzz`, code: `J${tag}ZZZ`, merchantRefNo: `jrn-${tag}` });
}

async function opened(dataFile: string): Promise<FileStore> {
  const store = new FileStore({ dataFile });
  await store.open();
  return store;
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('FileStore: the journal and the deliveries survive a restart, bounded', () => {
  it('keeps the newest 500 journal entries per merchant, from the log after a crash and from the snapshot after a stop', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const first = await opened(dataFile);
    for (let i = 1; i <= 520; i++) await first.journal.append(M, entry(i));
    await first.journal.append('OTHER', entry(0));
    // A journal entry rides the write of its turn: nobody waits for it.
    await turn();

    const afterCrash = await opened(dataFile);
    const kept = await afterCrash.journal.list(M, { limit: 1_000 });
    expect(kept).toHaveLength(500);
    expect([kept[0]!.id, kept.at(-1)!.id]).toEqual([520, 21]);
    expect(kept[0]).toEqual({ id: 520, ...entry(520) });
    await afterCrash.journal.append(M, entry(521));
    await afterCrash.close();

    const afterStop = await opened(dataFile);
    const again = await afterStop.journal.list(M, { limit: 1_000 });
    expect(again.map((e) => e.id)).toEqual([521, ...kept.slice(0, 499).map((e) => e.id)]);
    expect(await afterStop.journal.list('OTHER', { limit: 10 })).toHaveLength(1);
    // A new entry gets the id after the merchant's last (ids count per merchant: OTHER's entry took none of M's).
    await afterStop.journal.append(M, entry(600));
    expect((await afterStop.journal.list(M, { limit: 1 }))[0]!.id).toBe(522);
    await afterStop.close();
  });

  it('keeps deliveries written with their payment, attempts and resends; 200 per merchant; pending ones are claimable again', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const first = await opened(dataFile);
    for (let i = 0; i < 205; i++) expect(await first.insertPayment(payment(i), [delivery(i, payment(i).id)])).toBe('inserted');
    const [claimed] = await first.deliveries.claimDue(6_000, 30_000, 1, ANY_MERCHANT);
    expect(claimed!.id).toBe('dlv_5');
    await first.deliveries.recordAttempt('dlv_5', { at: 6_000, status: 500, error: null, latencyMs: 3 }, { state: 'pending', attempt: 1, nextAttemptAt: 7_000 });
    await first.deliveries.recordAttempt('dlv_6', { at: 6_000, status: 200, error: null, latencyMs: 3 }, { state: 'delivered', attempt: 1, nextAttemptAt: null });
    await turn();

    const second = await opened(dataFile);
    const list = await second.deliveries.list(M, 1_000);
    expect(list).toHaveLength(200);
    expect([list[0]!.id, list.at(-1)!.id]).toEqual(['dlv_204', 'dlv_5']);
    expect(await second.deliveries.get(M, 'dlv_5')).toMatchObject({ state: 'pending', attempt: 1, nextAttemptAt: 7_000, attempts: [{ status: 500 }] });
    // The lease of the dead process is gone: the retry is claimed when due.
    expect((await second.deliveries.claimDue(7_000, 30_000, 300, ANY_MERCHANT)).map((d) => d.id)).toContain('dlv_5');
    expect(await second.deliveries.resend(M, 'dlv_6', 8_000)).toMatchObject({ state: 'pending', nextAttemptAt: 8_000 });
    await second.close();

    const third = await opened(dataFile);
    expect(await third.deliveries.get(M, 'dlv_6')).toMatchObject({ state: 'pending', attempt: 0, nextAttemptAt: 8_000, attempts: [{ status: 200 }] });
    expect(await third.deliveries.list(M, 1_000)).toHaveLength(200);
    await third.close();
  });

  it('a fold started in the turn of a change keeps the deliveries written with it', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const first = await opened(dataFile);
    const insert = first.insertPayment(payment(1), [delivery(1, payment(1).id)]);
    // The fold writes the pending change first, then takes the snapshot from memory at once.
    const fold = first.writeSnapshot();
    expect(await insert).toBe('inserted');
    await fold;
    const second = await opened(dataFile);
    expect((await second.deliveries.list(M, 10)).map((d) => d.id)).toEqual(['dlv_1']);
    await second.close();
  });

  it('a clear and a reset of the journal and deliveries hold after a restart; other merchants keep theirs', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const first = await opened(dataFile);
    await first.journal.append(M, entry(1));
    await first.journal.append('OTHER', entry(2));
    await first.journal.append('THIRD', entry(3));
    await first.insertPayment(payment(1), [delivery(1, payment(1).id)]);
    const third = { ...payment(2), payeeId: 'THIRD' };
    await first.insertPayment(third, [{ ...delivery(2, third.id), payeeId: 'THIRD' }]);
    expect(await first.journal.clear('OTHER')).toBe(1);
    await first.resetMerchant(M);

    const second = await opened(dataFile);
    expect(await second.journal.list(M, { limit: 10 })).toEqual([]);
    expect(await second.journal.list('OTHER', { limit: 10 })).toEqual([]);
    expect(await second.deliveries.list(M, 10)).toEqual([]);
    expect((await second.journal.list('THIRD', { limit: 10 })).map((e) => e.id)).toEqual([1]);
    expect((await second.deliveries.claimDue(10_000, 1, 10, ANY_MERCHANT)).map((d) => d.id)).toEqual(['dlv_2']);
    await second.close();
  });
});

/** A status read of pay_1 at `version`, whose entry refers to the answer text of that version. */
function statusRead(i: number, version: number): NewJournalEntry {
  return { ...entry(i), path: '/openapi/v1/payments/payment/pay_1', responseBody: JSON.stringify({ code: 200, note: `text-of-version-${version}:${'ü'.repeat(300)}` }), answerRef: `pay_1@${version}` };
}

const BUILT_FILE_STORE = fileURLToPath(new URL('../../dist/store/file-store.js', import.meta.url));

/** Appends the entries of `entriesFile` to a file store in a process of its own, folding after the first `foldAfter`; prints "written". */
const WRITER = `
  const [, storeModule, dataFile, entriesFile, foldAfter] = process.argv;
  const { FileStore } = await import(storeModule);
  const { readFileSync } = await import('node:fs');
  const store = new FileStore({ dataFile });
  await store.open();
  const entries = JSON.parse(readFileSync(entriesFile, 'utf8'));
  for (const [i, e] of entries.entries()) {
    await store.journal.append('${M}', e);
    if (i + 1 === Number(foldAfter)) await store.writeSnapshot();
  }
  await new Promise((resolve) => setImmediate(resolve));
  console.log('written');
  setInterval(() => undefined, 60_000);
`;

/** How many times `marker` occurs in the store's files. */
function occurrences(dir: string, marker: string): number {
  return readdirSync(dir).reduce((n, f) => n + readFileSync(path.join(dir, f), 'utf8').split(marker).length - 1, 0);
}

describe('FileStore: entries that refer to one answer text', () => {
  it('after a SIGKILL, keep every entry and its text, written once: in the snapshot, or the log line of its first entry', async () => {
    if (!existsSync(BUILT_FILE_STORE)) throw new Error(`${BUILT_FILE_STORE} is missing: run npm run build first`);
    const dir = tempDir();
    const dataFile = path.join(dir, 's.json');
    // Version 1 read before and after the fold, version 2 only after it; every seventh entry a plain one.
    const written = Array.from({ length: 80 }, (_, i) => (i % 7 === 6 ? entry(i) : statusRead(i, i < 40 || i % 3 === 0 ? 1 : 2)));
    const entriesFile = path.join(tempDir(), 'entries.json');
    writeFileSync(entriesFile, JSON.stringify(written));
    const child = spawn(process.execPath, ['--input-type=module', '-e', WRITER, BUILT_FILE_STORE, dataFile, entriesFile, '40'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', (d: Buffer) => d.toString().includes('written') && resolve());
        void exited.then(() => reject(new Error('the writer exited before it wrote')));
      });
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
    expect([occurrences(dir, 'text-of-version-1'), occurrences(dir, 'text-of-version-2')]).toEqual([1, 1]);

    const expected = new MemoryStore();
    for (const e of written) await expected.journal.append(M, e);
    const afterKill = await opened(dataFile);
    const kept = await afterKill.journal.list(M, { limit: 100 });
    expect(kept.map((e) => e.responseBody)).toEqual(written.map((e) => e.responseBody).reverse());
    expect(kept).toEqual(await expected.journal.list(M, { limit: 100 }));
    expect((await afterKill.storageUsage(M)).merchantBytes).toBe((await expected.storageUsage(M)).merchantBytes);
    await afterKill.close();

    // A stop folds everything into the snapshot: each text once there.
    const afterStop = await opened(dataFile);
    expect(await afterStop.journal.list(M, { limit: 100 })).toEqual(kept);
    await afterStop.close();
    expect([occurrences(dir, 'text-of-version-1'), occurrences(dir, 'text-of-version-2')]).toEqual([1, 1]);
  }, 30_000);

  it('an entry whose name is kept for another text (a version a failed write left to another change) keeps its own, after a restart too', async () => {
    const dataFile = path.join(tempDir(), 's.json');
    const first = await opened(dataFile);
    const other = { ...statusRead(2, 1), responseBody: '{"code":200,"note":"the other change"}' };
    for (const e of [statusRead(1, 1), other, statusRead(3, 1)]) await first.journal.append(M, e);
    const bodies = [statusRead(3, 1).responseBody, other.responseBody, statusRead(1, 1).responseBody];
    expect((await first.journal.list(M, { limit: 10 })).map((e) => e.responseBody)).toEqual(bodies);
    await turn();
    const second = await opened(dataFile);
    expect((await second.journal.list(M, { limit: 10 })).map((e) => e.responseBody)).toEqual(bodies);
    expect(await second.storageUsage(M)).toEqual(await first.storageUsage(M));
    await second.close();
  });
});
