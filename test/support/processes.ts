/** Runs `node dist/cli.js serve` as a child process on a random port, as a user would. */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';

export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly url: string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** stdout and stderr as they came. */
  output(): string;
  /** stderr alone. */
  stderr(): string;
}

/** `args`: more options of serve (--repair). */
export async function startServer(dataFile: string, env: Record<string, string> = {}, args: readonly string[] = []): Promise<ServerProcess> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build (npm test does) before the durability tests`);
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--host', '127.0.0.1', '--data', dataFile, ...args], {
    // NODE_ENV=test: as the tests run; the product behaves the same under it.
    // No enrolment limit: tests enroll a merchant per scenario file from one address (the limit has its own test).
    env: { ...process.env, NODE_ENV: 'test', SANDBOX_STORE: 'file', SANDBOX_ENROLL_LIMIT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => {
    output += d.toString();
    stderr += d.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in 20 s:\n${output}`)), 20_000);
    const check = () => {
      const match = /listening on http:\/\/[^\s:]+:(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        resolve(Number(match[1]));
      }
    };
    child.stdout!.on('data', check);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`server exited (code ${code}, signal ${signal}) before listening:\n${output}`));
    });
  });
  return { child, url: `http://127.0.0.1:${port}`, exited, output: () => output, stderr: () => stderr };
}

/** Stops a server that a failed test left running. */
export function killQuietly(server: ServerProcess | undefined): void {
  if (server && server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
}

/**
 * Real `serve` processes for one test file: each started one is killed after its test. Call at
 * the top of a describe or file; it registers the afterEach itself.
 */
export function serversPerTest(): {
  start(dataFile: string, env?: Record<string, string>, args?: readonly string[]): Promise<ServerProcess>;
  track(server: ServerProcess): ServerProcess;
} {
  let running: ServerProcess[] = [];
  afterEach(() => {
    for (const s of running) killQuietly(s);
    running = [];
  });
  const track = (server: ServerProcess) => {
    running.push(server);
    return server;
  };
  return { start: async (dataFile, env = {}, args = []) => track(await startServer(dataFile, env, args)), track };
}
