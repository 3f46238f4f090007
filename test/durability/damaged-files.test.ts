/**
 * A real `serve` process refuses to start on a damaged store (issue 10, defect 6) instead of
 * serving what is left: the log of a SIGKILLed server cut at 50 %, then its snapshot deleted;
 * the end marker `.wal-end` deleted or damaged (SPEC 18), where `--repair` accepts the loss.
 */
import { rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir, walSegments } from '../support/files.js';
import { DEMO_KEY, createBody } from '../support/http.js';
import { serversPerTest, startServer } from '../support/processes.js';
import type { ServerProcess } from '../support/processes.js';

afterAll(removeTempDirs);
const servers = serversPerTest();
const start = (dataFile: string): Promise<ServerProcess> => servers.start(dataFile);

async function refusedStart(dataFile: string): Promise<string> {
  const error = await startServer(dataFile).then(
    (server) => {
      servers.track(server);
      return undefined;
    },
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(Error);
  expect((error as Error).message).toMatch(/server exited \(code 2, signal null\) before listening/);
  return (error as Error).message;
}

const headers = { 'Service-Api-Key': DEMO_KEY, 'Content-Type': 'application/json' };

describe('serve on damaged store files', () => {
  it('refuses a log cut at 50 % after a SIGKILL, and a snapshot deleted after a clean stop, saying what to do', async () => {
    const dataFile = path.join(tempDir('payreq-damaged-'), 's.json');
    const first = await start(dataFile);
    for (let i = 0; i < 30; i++) {
      const response = await fetch(`${first.url}/openapi/v1/payments/payment`, { method: 'POST', headers, body: JSON.stringify(createBody({ merchant_ref_no: `cut-${i}` })) });
      expect(response.status).toBe(200);
    }
    first.child.kill('SIGKILL');
    await first.exited;
    const segment = walSegments(dataFile).at(-1)!;
    const size = statSync(segment).size;
    truncateSync(segment, Math.floor(size / 2));
    const cut = await refusedStart(dataFile);
    expect(cut).toContain(`${segment} holds ${Math.floor(size / 2)} bytes, but ${size} were written to it and acknowledged`);
    expect(cut).toMatch(/restore .* from a copy, or start with --repair/);

    // Moving the damaged files away starts an empty store; a clean stop folds it into a snapshot.
    for (const file of walSegments(dataFile)) rmSync(file);
    const second = await start(dataFile);
    await fetch(`${second.url}/openapi/v1/payments/payment`, { method: 'POST', headers, body: JSON.stringify(createBody({ merchant_ref_no: 'after' })) });
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
    const third = await start(dataFile);
    await fetch(`${third.url}/openapi/v1/payments/payment`, { method: 'POST', headers, body: JSON.stringify(createBody({ merchant_ref_no: 'later' })) });
    third.child.kill('SIGKILL');
    await third.exited;
    rmSync(dataFile);
    const gone = await refusedStart(dataFile);
    expect(gone).toMatch(new RegExp(`${dataFile} is missing, but its log starts at ${dataFile}\\.wal\\.\\d+`));
  });

  it('refuses a .wal-end deleted (with the log cut short) or damaged, saying --repair accepts the loss; --repair starts and serves what the log holds', async () => {
    const dataFile = path.join(tempDir('payreq-damaged-'), 's.json');
    const first = await start(dataFile);
    for (let i = 0; i < 30; i++) {
      const response = await fetch(`${first.url}/openapi/v1/payments/payment`, { method: 'POST', headers, body: JSON.stringify(createBody({ merchant_ref_no: `end-${i}` })) });
      expect(response.status).toBe(200);
    }
    first.child.kill('SIGKILL');
    await first.exited;
    const marker = `${dataFile}.wal-end`;
    const segment = walSegments(dataFile).at(-1)!;
    rmSync(marker);
    truncateSync(segment, Math.floor(statSync(segment).size / 2));
    const deleted = await refusedStart(dataFile);
    expect(deleted).toContain(`${marker} is missing: it holds how many bytes of each log segment were written and acknowledged`);
    expect(deleted).toContain('--repair accepts the log as it is');

    writeFileSync(marker, '{"c":"00000000","segments":[[0,1]]}\n');
    expect(await refusedStart(dataFile)).toContain(`${marker} fails its checksum: it holds how many bytes`);

    const repaired = await servers.start(dataFile, {}, ['--repair']);
    expect(repaired.output()).toContain(`${marker} fails its checksum`);
    const list = await fetch(`${repaired.url}/sandbox/v1/payments?limit=100`, { headers });
    const kept = ((await list.json()) as { payments: unknown[] }).payments.length;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(30);
    repaired.child.kill('SIGTERM');
    expect((await repaired.exited).code).toBe(0);
    // Repaired: the next start needs no --repair, and serves the same payments.
    const again = await start(dataFile);
    const listed = await fetch(`${again.url}/sandbox/v1/payments?limit=100`, { headers });
    expect(((await listed.json()) as { payments: unknown[] }).payments).toHaveLength(kept);
  });
});
