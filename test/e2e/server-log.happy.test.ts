/**
 * Where a real `serve` writes what its operator should see (issue 18): one JSON line of the
 * request lines' logger on stdout; with SANDBOX_LOG=off (no request lines) the same line on
 * stderr, never lost. The event: a torn last record that a crash left, skipped at start.
 */
import { appendFileSync } from 'node:fs';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { crashedWith, numbered } from '../support/damaged-store.js';
import { removeTempDirs } from '../support/files.js';
import { serversPerTest } from '../support/processes.js';

afterAll(removeTempDirs);

const TORN = 'store dropped a cut last line of its log: a write a crash cut short, never acknowledged';

/** A store left by a crash in mid-write: its last record torn. */
async function tornStore(): Promise<string> {
  const dataFile = await crashedWith(2);
  appendFileSync(`${dataFile}.log`, JSON.stringify({ t: 'payment', v: numbered(9) }).slice(0, 120));
  return dataFile;
}

function jsonLines(text: string): Record<string, unknown>[] {
  return text.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('serve: the events an operator should see', () => {
  const servers = serversPerTest();

  it('go to stdout as JSON lines beside the request lines', async () => {
    const server = await servers.start(await tornStore());
    // The request lines' logger writes asynchronously: its line may come after the banner.
    await vi.waitFor(() =>
      expect(jsonLines(server.output().replace(server.stderr(), '')).filter((l) => l.msg === TORN)).toEqual([
        { level: 40, time: expect.any(Number), service: 'payreq-sandbox', file: expect.stringMatching(/\.json\.log$/), line: 4, from_byte: expect.any(Number), msg: TORN },
      ]),
    );
    expect(server.stderr()).toBe('');
  });

  it('with SANDBOX_LOG=off, go to stderr as JSON lines', async () => {
    const server = await servers.start(await tornStore(), { SANDBOX_LOG: 'off' });
    expect(jsonLines(server.stderr()).map((l) => [l.level, l.msg])).toEqual([[40, TORN]]);
    expect(server.output().replace(server.stderr(), '')).not.toContain(TORN);
  });
});
