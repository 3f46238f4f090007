/**
 * The other side of "stops with npx": a serve npm started and left alone keeps serving, Ctrl-C
 * to its terminal still drains it and writes the store, and a serve npm did not start (nohup, a shell
 * that backgrounds it and exits, a container's init adopting it) outlives its parent.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from './support/files.js';
import { freePort } from './support/ports.js';
import { CLI } from './support/processes.js';
import { until } from './support/until.js';

const root = fileURLToPath(new URL('..', import.meta.url));
/** More than a few of the launcher checks (every 250 ms). */
const LEFT_ALONE_MS = 2_000;
let groups: number[] = [];
let pids: number[] = [];

afterEach(() => {
  for (const pgid of groups) signal(-pgid, 'SIGKILL');
  for (const pid of pids) signal(pid, 'SIGKILL');
  groups = [];
  pids = [];
});
afterAll(() => removeTempDirs());

function signal(pid: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}
const isAlive = (pid: number): boolean => signal(pid, 0 as unknown as NodeJS.Signals);
const serving = async (port: number): Promise<boolean> => (await fetch(`http://127.0.0.1:${port}/livez`).catch(() => undefined))?.status === 200;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The environment of a process npm did not start: none of the npm_* variables npm sets. */
function withoutNpm(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('npm_')));
}

describe('a serve started through npm', () => {
  it('keeps serving when left alone, and Ctrl-C (SIGINT to the terminal group) drains it and writes the store', async () => {
    const port = await freePort();
    const data = join(tempDir('launcher-'), 'sandbox.json');
    // A terminal's foreground job: npm, its shell and node in one process group, as Ctrl-C reaches them.
    // npm exec starts it as npm start does (npm, sh -c, node), without npm start's build of dist/ under other tests.
    const npm: ChildProcess = spawn('npm', ['exec', '--offline', '--', 'node', CLI, 'serve', '--port', String(port), '--data', data], {
      cwd: root,
      detached: true,
      env: { ...withoutNpm(), npm_config_update_notifier: 'false', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    groups.push(npm.pid!);
    let output = '';
    npm.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    npm.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    await until(() => (/listening on http/.test(output) ? true : undefined), `npm start to listen:\n${output}`, 60_000, 50);
    await sleep(LEFT_ALONE_MS);
    expect(await serving(port), output).toBe(true);

    signal(-npm.pid!, 'SIGINT');
    await until(async () => ((await serving(port)) ? undefined : true), 'the port to be freed after Ctrl-C', 15_000, 100);
    // The snapshot is written by the drain's store close, the last step before exit 0.
    await until(() => (existsSync(data) ? true : undefined), `the store snapshot ${data} after Ctrl-C`, 15_000, 100);
  }, 90_000);
});

describe('a serve npm did not start', () => {
  it('outlives the shell that started it in the background (nohup, a container init adopting it) and still stops on SIGTERM', async () => {
    const port = await freePort();
    const shell = spawnSync('sh', ['-c', `nohup "${process.execPath}" "${CLI}" serve --memory --port ${port} >/dev/null 2>&1 & echo $!`], { env: withoutNpm(), encoding: 'utf8' });
    const pid = Number(shell.stdout.trim());
    pids.push(pid);
    await until(async () => ((await serving(port)) ? true : undefined), 'serve to listen', 30_000, 50);
    await sleep(LEFT_ALONE_MS);
    expect(await serving(port)).toBe(true);
    signal(pid, 'SIGTERM');
    await until(() => (isAlive(pid) ? undefined : true), `serve ${pid} to end after SIGTERM`, 15_000, 50);
  }, 60_000);
});
