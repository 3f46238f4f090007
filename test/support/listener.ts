/** `node dist/cli.js listen ...` as a child process, as a developer runs it, and the secret it prints. */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { afterEach } from 'vitest';
import { CLI } from './processes.js';
import { until } from './until.js';

export interface ListenerProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  output(): string;
  /** The secret of the last `Webhook secret:` line printed, once printed. */
  secret(): Promise<string>;
}

export function runListen(args: readonly string[], env: Record<string, string> = {}): ListenerProcess {
  const child = spawn(process.execPath, [CLI, 'listen', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const secret = () => until(() => [...output.matchAll(/Webhook secret: (whsec_\S+)/g)].at(-1)?.[1], `the listener's secret line (output: ${output})`, 15_000, 20);
  return { child, exited, output: () => output, secret };
}

/** Listeners started in a test are killed after it. */
export function listenersPerTest(): (args: readonly string[], env?: Record<string, string>) => ListenerProcess {
  let running: ListenerProcess[] = [];
  afterEach(() => {
    for (const l of running) if (l.child.exitCode === null && l.child.signalCode === null) l.child.kill('SIGKILL');
    running = [];
  });
  return (args, env) => {
    const l = runListen(args, env);
    running.push(l);
    return l;
  };
}

/** One JSON request to a real server: `key` as Service-Api-Key, `body` as JSON. */
export async function call(base: string, method: string, route: string, key?: string, body?: unknown): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = key ? { 'Service-Api-Key': key } : {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${base}${route}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  return { status: res.status, body: await res.json() };
}
