/**
 * A real `serve` process on damaged store files (SPEC 23): a log cut short loses only its cut
 * last line, said with a warning naming the file; a line damaged in the middle, a deleted log or
 * a deleted snapshot refuse the start (exit 2) naming file and line, without a stack trace;
 * `--repair` keeps every whole line and the next start needs no repair.
 */
import { readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../support/files.js';
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
  const message = (error as Error).message;
  expect(message).toMatch(/server exited \(code 2, signal null\) before listening/);
  expect(message).not.toMatch(/\n\s+at /);
  return message;
}

const headers = { 'Service-Api-Key': DEMO_KEY, 'Content-Type': 'application/json' };

/** A server that acknowledged `count` creates, then was killed with SIGKILL. */
async function killedAfter(count: number): Promise<string> {
  const dataFile = path.join(tempDir('payreq-damaged-'), 's.json');
  const server = await start(dataFile);
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${server.url}/openapi/v1/payments/payment`, { method: 'POST', headers, body: JSON.stringify(createBody({ merchant_ref_no: `cut-${i}` })) });
    expect(response.status).toBe(200);
  }
  server.child.kill('SIGKILL');
  await server.exited;
  return dataFile;
}

async function total(server: ServerProcess): Promise<number> {
  return ((await (await fetch(`${server.url}/sandbox/v1/payments?limit=1`, { headers })).json()) as { total: number }).total;
}

describe('serve on damaged store files', () => {
  it('a log cut short mid-line: starts without the cut line, warning with the file named', async () => {
    const dataFile = await killedAfter(30);
    const log = `${dataFile}.log`;
    truncateSync(log, Math.floor(statSync(log).size / 2));
    const server = await start(dataFile);
    expect(server.output()).toContain(`"file":"${log}"`);
    expect(server.output()).toContain('store dropped a cut last line of its log');
    const kept = await total(server);
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(30);
  });

  it('a line damaged in the middle: refused naming file and line; --repair keeps every other line, and the next start needs no repair', async () => {
    const dataFile = await killedAfter(30);
    const log = `${dataFile}.log`;
    const lines = readFileSync(log, 'utf8').split('\n');
    const at = lines.findIndex((l) => l.includes('"merchantRefNo":"cut-10"'));
    lines[at] = lines[at]!.replace('"t":"payment"', '"t":"paym\u00e9nt"');
    writeFileSync(log, lines.join('\n'));
    const refused = await refusedStart(dataFile);
    expect(refused).toContain(`${log} line ${at + 1} has type t="paym\u00e9nt"`);
    expect(refused).toMatch(/restore .* from a copy, or start with --repair/);

    const repaired = await servers.start(dataFile, {}, ['--repair']);
    expect(repaired.output()).toContain(`${log} line ${at + 1} has type`);
    expect(await total(repaired)).toBe(29);
    repaired.child.kill('SIGTERM');
    expect((await repaired.exited).code).toBe(0);
    expect(await total(await start(dataFile))).toBe(29);
  });

  it('a deleted log, or a deleted snapshot, is refused: never an empty store served silently', async () => {
    const dataFile = await killedAfter(50);
    const snapshot = readFileSync(dataFile);
    rmSync(`${dataFile}.log`);
    expect(await refusedStart(dataFile)).toContain(`${dataFile}.log is missing, but the snapshot ${dataFile} is there: every change since that snapshot is gone`);

    const other = await killedAfter(3);
    rmSync(other);
    expect(await refusedStart(other)).toContain(`${other} is missing, but its log ${other}.log is there`);
    expect(snapshot.length).toBeGreaterThan(0);
  });
});
