/**
 * SANDBOX_FSYNC (SPEC 23), counted on a real `serve` under strace: `always` flushes the log to the
 * disk with every write, `second` (the default) at most once a second whatever the traffic, `off`
 * never. Two bursts of creates 1.5 s apart; the process is then killed, so a stop adds nothing.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../support/files.js';
import { DEMO_KEY, createBody } from '../support/http.js';
import { CLI } from '../support/processes.js';

afterAll(removeTempDirs);

const probe = spawnSync('strace', ['-f', '-e', 'trace=none', 'true'], { encoding: 'utf8' });
const CANNOT = probe.error ? `strace is not installed (scripts/ensure-store-tools.sh installs it)` : probe.status !== 0 ? `strace cannot trace here: ${probe.stderr.trim().split('\n')[0]}` : undefined;

/** fsync and fdatasync calls of a `serve` with this policy over two bursts of `perBurst` creates. */
async function fsyncsUnder(policy: 'always' | 'second' | 'off', perBurst: number): Promise<number> {
  const dir = tempDir('payreq-fsync-');
  const trace = path.join(dir, 'strace.txt');
  const child = spawn('strace', ['-f', '-qq', '-e', 'trace=fsync,fdatasync', '-o', trace, process.execPath, CLI, 'serve', '--port', '0', '--host', '127.0.0.1', '--data', path.join(dir, 's.json')], {
    env: { ...process.env, NODE_ENV: 'test', SANDBOX_STORE: 'file', SANDBOX_FSYNC: policy },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    let output = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve did not start under strace:\n${output}`)), 30_000);
      child.stdout!.on('data', (d: Buffer) => {
        output += d.toString();
        const match = /listening on (http:\/\/[^\s]+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
    });
    const at = () => readFileSync(trace, 'utf8').split('\n').filter((l) => /\bf(data)?sync\(/.test(l)).length;
    const atStart = at();
    for (const burst of [0, 1]) {
      if (burst) await new Promise((resolve) => setTimeout(resolve, 1_500));
      for (let i = 0; i < perBurst; i++) {
        const answer = await fetch(`${url}/openapi/v1/payments/payment`, { method: 'POST', headers: { 'Service-Api-Key': DEMO_KEY, 'Content-Type': 'application/json' }, body: JSON.stringify(createBody({ merchant_ref_no: `f-${burst}-${i}` })) });
        expect(answer.status).toBe(200);
      }
    }
    // The flush a second after the last write.
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    return at() - atStart;
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
}

describe.skipIf(CANNOT !== undefined)(`SANDBOX_FSYNC counted with strace${CANNOT ? ` (skipped: ${CANNOT})` : ''}`, () => {
  it('always: at least one fsync per create', async () => {
    expect(await fsyncsUnder('always', 30)).toBeGreaterThanOrEqual(60);
  });

  it('second (the default): about one per second of writes, however many creates', async () => {
    const count = await fsyncsUnder('second', 30);
    expect(count).toBeGreaterThanOrEqual(2);
    expect(count).toBeLessThanOrEqual(8);
  });

  it('off: none', async () => {
    expect(await fsyncsUnder('off', 30)).toBe(0);
  });
});
