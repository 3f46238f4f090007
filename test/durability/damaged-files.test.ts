/**
 * A real `serve` process refuses to start on a damaged store (issue 10, defect 6) instead of
 * serving what is left: the log of a SIGKILLed server cut at 50 %, then its snapshot deleted.
 */
import { rmSync, statSync, truncateSync } from 'node:fs';
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
  expect((error as Error).message).toMatch(/server exited \(code 1, signal null\) before listening/);
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
});
