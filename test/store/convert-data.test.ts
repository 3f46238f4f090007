/**
 * A data folder written by the previous file store (292a3d5: test/fixtures/store-292a3d5, made by
 * its `serve`: two creates and an enrolment, SIGTERM; then a create of each merchant, SIGKILL)
 * is never ignored: the start refuses naming the one-off conversion, which keeps everything.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/index.js';
import { FileStore } from '../../src/store/file-store.js';
import { call, DEMO_KEY, DEMO_PAYEE, expectEnvelope } from '../support/http.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { jsonLines } from '../support/json-lines.js';

afterAll(removeTempDirs);

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = path.join(ROOT, 'test/fixtures/store-292a3d5');
const SCRIPT = path.join(ROOT, 'scripts/convert-data.js');
const SHOP = { payee: 'payee_Y8aBYbQa8bcCdGr2', key: 'sk_sandbox_J6mZe7An8jBu3oFZBQ40uPFvrC7LKPO5' };

function copyOfFixture(): string {
  const dir = tempDir('payreq-convert-');
  cpSync(FIXTURE, dir, { recursive: true });
  return path.join(dir, 'sandbox.json');
}

describe('a data folder of the previous file store', () => {
  it('refuses the start, naming the conversion command, and changes nothing', async () => {
    const dataFile = copyOfFixture();
    const before = readdirSync(path.dirname(dataFile)).sort();
    const error = await new FileStore({ dataFile }).open().then(() => undefined, (err: unknown) => err as Error);
    expect(error?.message).toBe(
      `${dataFile} was written by an earlier version of payreq-sandbox (format payreq-sandbox/1, with .wal segments). Convert it once with: node ${SCRIPT} ${dataFile} (it keeps the old files in ${dataFile}.before-conversion/), then start again.`,
    );
    expect(readdirSync(path.dirname(dataFile)).sort()).toEqual(before);
  });

  it('converted once, starts with every payment, merchant, key and answer it held', async () => {
    const dataFile = copyOfFixture();
    const out = execFileSync(process.execPath, [SCRIPT, dataFile], { encoding: 'utf8' });
    expect(out).toMatch(/converted to payreq-sandbox\/2: \d+ records/);
    expect(readdirSync(path.dirname(dataFile)).sort()).toEqual(['sandbox.json', 'sandbox.json.before-conversion', 'sandbox.json.log']);
    expect(readdirSync(`${dataFile}.before-conversion`)).toContain('sandbox.json.wal.2');
    for (const file of [dataFile, `${dataFile}.log`]) jsonLines(file);

    const sandbox = await createSandbox({ store: 'file', dataFile, scheduler: false });
    try {
      const demo = await call(sandbox, 'GET', '/sandbox/v1/payments?limit=10');
      expect(demo.body.payments.map((p: { merchant_ref_no: string }) => p.merchant_ref_no).sort()).toEqual(['fixture-1', 'fixture-2', 'fixture-3']);
      const shop = await call(sandbox, 'GET', '/sandbox/v1/payments', { key: SHOP.key });
      expect(shop.body.payments.map((p: { merchant_ref_no: string }) => p.merchant_ref_no)).toEqual(['shop-1']);
      // The key answered in the log after the last snapshot is replayed, not run again.
      const replay = await call(sandbox, 'POST', '/openapi/v1/payments/payment', {
        headers: { 'Idempotency-Key': 'fixture-key-3' },
        body: { payee: DEMO_PAYEE, product_type: 'QR_DYNAMIC', merchant_ref_no: 'fixture-3', amount: 3.3 },
      });
      expectEnvelope(replay, 200);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      const journal = await call(sandbox, 'GET', '/sandbox/v1/requests?limit=50', { key: DEMO_KEY });
      expect(journal.body.requests.length).toBeGreaterThanOrEqual(3);
    } finally {
      await sandbox.close();
    }
  });

  it("a clear of keys or evidence in the old files (a reset) leaves out what came before it of that merchant's, and the store starts", async () => {
    const dataFile = copyOfFixture();
    for (const part of ['idempotency', 'readiness']) appendFileSync(`${dataFile}.${part}.wal.2`, `${JSON.stringify({ t: 'clear', payeeId: DEMO_PAYEE })}\n`);
    execFileSync(process.execPath, [SCRIPT, dataFile], { encoding: 'utf8' });
    const lines = [...jsonLines(dataFile), ...jsonLines(`${dataFile}.log`)] as { t: string; payeeId?: string }[];
    expect(lines.filter((l) => (l.t === 'key' || l.t === 'seen') && l.payeeId === DEMO_PAYEE)).toEqual([]);
    expect(lines.filter((l) => l.t.endsWith('-clear') && l.t !== 'journal-clear')).toEqual([]);
    const sandbox = await createSandbox({ store: 'file', dataFile, scheduler: false });
    try {
      expect((await call(sandbox, 'GET', '/sandbox/v1/payments?limit=10')).body.payments).toHaveLength(3);
    } finally {
      await sandbox.close();
    }
  });

  it('the conversion refuses a folder with nothing to convert, or one converted already', () => {
    const dataFile = copyOfFixture();
    execFileSync(process.execPath, [SCRIPT, dataFile]);
    const again = spawnSync(process.execPath, [SCRIPT, dataFile], { encoding: 'utf8' });
    expect([again.status, again.stderr.trim()]).toEqual([1, `convert-data: ${dataFile} is already in format payreq-sandbox/2: nothing to convert.`]);
    const none = path.join(tempDir(), 'none.json');
    expect(spawnSync(process.execPath, [SCRIPT, none], { encoding: 'utf8' }).stderr).toContain(`no store of an earlier version at ${none}`);
    expect(existsSync(none)).toBe(false);
  });
});
