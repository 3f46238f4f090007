/**
 * `npx payreq-sandbox serve` (or listen) in a clone, stopped by stopping npx: the node process
 * npx started is gone shortly after, whether npx passes the signal on (SIGTERM) or cannot (SIGKILL).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer, Sandbox } from '../src/index.js';
import { DEMO_KEY, memorySandbox } from './helpers.js';
import { removeTempDirs, tempDir } from './support/files.js';
import { freePort } from './support/ports.js';
import { until } from './support/until.js';

const root = fileURLToPath(new URL('..', import.meta.url));
let started: ChildProcess[] = [];
/** The node processes under npx, killed after each test should the test fail to end them. */
let nodes: number[] = [];
let sandbox: Sandbox;
let server: RunningServer;

beforeAll(async () => {
  sandbox = await memorySandbox();
  server = await sandbox.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await sandbox.close();
  removeTempDirs();
});
afterEach(() => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  started = [];
  for (const pid of nodes) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  nodes = [];
});

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The node process running payreq-sandbox among the descendants of `pid` (Linux's /proc). */
function nodeDescendant(pid: number): number | undefined {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // Gone meanwhile.
    }
  }
  const queue = [...(children.get(pid) ?? [])];
  while (queue.length > 0) {
    const candidate = queue.shift()!;
    const cmdline = (() => {
      try {
        return readFileSync(`/proc/${candidate}/cmdline`, 'utf8').split('\0');
      } catch {
        return [];
      }
    })();
    if (/(^|\/)node$/.test(cmdline[0] ?? '') && cmdline.some((arg) => arg.endsWith('payreq-sandbox'))) return candidate;
    queue.push(...(children.get(candidate) ?? []));
  }
  return undefined;
}

/** Starts `npx payreq-sandbox <args>` in the clone; answers npx and the node process it started, once it is running. */
async function npx(args: readonly string[], ready: RegExp): Promise<{ npx: ChildProcess; node: number; output: () => string }> {
  const child = spawn('npx', ['payreq-sandbox', ...args], {
    cwd: root,
    // Its own npm cache, without install scripts: npx links the clone as it is (no rebuild of dist/ under other tests).
    env: { ...process.env, npm_config_cache: tempDir('npx-cache-'), npm_config_ignore_scripts: 'true', npm_config_update_notifier: 'false', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  await until(() => (ready.test(output) ? true : undefined), `npx payreq-sandbox ${args.join(' ')} to start:\n${output}`, 60_000, 50);
  const node = await until(() => nodeDescendant(child.pid!), 'the node process under npx', 5_000);
  nodes.push(node);
  return { npx: child, node, output: () => output };
}

describe('started through npx, stopped with npx', () => {
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    it(`serve: ${signal} to npx ends the node process and frees the port`, async () => {
      const port = await freePort();
      const { npx: launcher, node } = await npx(['serve', '--port', String(port), '--memory'], /listening on http:\/\/127\.0\.0\.1:\d+/);
      expect((await fetch(`http://127.0.0.1:${port}/livez`)).status).toBe(200);
      launcher.kill(signal);
      await until(() => (isAlive(node) ? undefined : true), `node ${node} to end after ${signal} to npx`, 5_000, 50);
      await expect(fetch(`http://127.0.0.1:${port}/livez`)).rejects.toThrow();
    }, 90_000);
  }

  it('listen: SIGTERM to npx ends the node process', async () => {
    const { npx: launcher, node } = await npx(['listen', '--base-url', server.url, '--key', DEMO_KEY, '--forward-to', 'http://127.0.0.1:9/hooks'], /ready|forwarding|listening|connected/i);
    launcher.kill('SIGTERM');
    await until(() => (isAlive(node) ? undefined : true), `node ${node} to end after SIGTERM to npx`, 5_000, 50);
  }, 90_000);
});
