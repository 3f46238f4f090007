/**
 * What the balancer tests share (test/cluster/haproxy-restart.test.ts, nginx-restart.test.ts):
 * an example config with only its ports changed, the balancer run from Debian's binary, keep-alive
 * load of creates and status reads through it, and a rolling restart of real `serve` processes.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { DEMO_KEY, createBody } from '../helpers.js';
import { startServer } from '../support/processes.js';
import type { ServerProcess } from '../support/processes.js';
import { httpRequest } from '../support/raw-http.js';

export const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));

const headers = { 'Service-Api-Key': DEMO_KEY, 'Content-Type': 'application/json' };

/** `count` ports free on 127.0.0.1 right now. */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: count }, () => new Promise<ReturnType<typeof createServer>>((resolve) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => resolve(server));
    })),
  );
  const ports = servers.map((s) => (s.address() as { port: number }).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

/** The example config at `file` with each `127.0.0.1:<port>` it names moved to another port (and `edit` applied, for a control), written into `dir`. */
export function templated(file: string, ports: Record<number, number>, dir: string, edit: (text: string) => string = (text) => text): string {
  let text = edit(readFileSync(path.join(EXAMPLES, file), 'utf8'));
  for (const [from, to] of Object.entries(ports)) {
    expect(text, `${file} names 127.0.0.1:${from}`).toContain(`127.0.0.1:${from}`);
    text = text.replaceAll(`127.0.0.1:${from}`, `127.0.0.1:${to}`);
  }
  const out = path.join(dir, path.basename(file));
  writeFileSync(out, text);
  return out;
}

/** Debian's binary of `name` (scripts/ensure-<name>.sh, run by npm's pretest, installs it). */
export function debianBinary(name: string): string {
  for (const bin of [`/usr/sbin/${name}`, `/usr/bin/${name}`]) if (existsSync(bin)) return bin;
  throw new Error(`${name} is missing: run bash scripts/ensure-${name}.sh (npm test's pretest does) as root, or apt-get install ${name}`);
}

/** Runs a balancer in the foreground; `stop()` ends it. */
export function runBalancer(bin: string, args: readonly string[]): { readonly child: ChildProcess; output(): string; stop(): Promise<void> } {
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** How the instances run behind a balancer, as the README's hosted section says (the delay is shorter than the 5 s default off loopback, still well above the ~1.5 s HAProxy takes). */
export function instanceEnv(storeUrl: string): Record<string, string> {
  return { SANDBOX_STORE: storeUrl, SANDBOX_TRUST_PROXY: '1', SANDBOX_KEEPALIVE_TIMEOUT_MS: '65000', SANDBOX_DRAIN_DELAY_MS: '3000', SANDBOX_LOG: 'off' };
}

/** Starts `serve` on `port` (again, after a restart). */
export function startInstance(dataFile: string, port: number, env: Record<string, string>): Promise<ServerProcess> {
  return startServer(dataFile, env, ['--port', String(port)]);
}

export interface Outcome {
  readonly kind: 'create' | 'read';
  readonly ref: string;
  readonly status?: number;
  readonly paymentId?: string;
  readonly error?: string;
}

async function send(url: string, kind: Outcome['kind'], ref: string, agent: http.Agent, body?: string, paymentId?: string): Promise<Outcome> {
  try {
    const sent = await httpRequest(url, kind === 'create' ? 'POST' : 'GET', headers, body, agent);
    const id = sent.status === 200 ? (JSON.parse(sent.body) as { payment_id?: string }).payment_id : undefined;
    return { kind, ref, status: sent.status, ...(id ?? paymentId ? { paymentId: id ?? paymentId } : {}), ...(sent.status !== 200 ? { error: sent.body.slice(0, 200) } : {}) };
  } catch (err) {
    return { kind, ref, error: (err as NodeJS.ErrnoException).code ?? (err as Error).message };
  }
}

/**
 * `clients` keep-alive clients (one connection each) through `base`, each sending a create and
 * then a status read of a payment created before, one after another, until `stop()`, `maxEach`
 * rounds or `maxMs`.
 */
export function keepAliveLoad(base: string, { clients = 8, maxEach = 4000, maxMs = 45_000, prefix = 'roll' } = {}) {
  const outcomes: Outcome[] = [];
  const created: string[] = [];
  let stopped = false;
  const deadline = Date.now() + maxMs;
  const agents = Array.from({ length: clients }, () => new http.Agent({ keepAlive: true, maxSockets: 1 }));
  const loops = agents.map(async (agent, c) => {
    for (let n = 0; n < maxEach && !stopped && Date.now() < deadline; n++) {
      const ref = `${prefix}-${c}-${n}`;
      const made = await send(`${base}/openapi/v1/payments/payment`, 'create', ref, agent, JSON.stringify(createBody({ merchant_ref_no: ref })));
      outcomes.push(made);
      if (made.paymentId) created.push(made.paymentId);
      const id = created[Math.floor(Math.random() * created.length)];
      if (id) outcomes.push(await send(`${base}/openapi/v1/payments/payment/${id}`, 'read', ref, agent, undefined, id));
    }
  });
  return {
    outcomes,
    /** Ends the load; resolves with every outcome once the last request is answered. */
    async stop(): Promise<Outcome[]> {
      stopped = true;
      await Promise.all(loops);
      for (const agent of agents) agent.destroy();
      return outcomes;
    },
  };
}

/** Requests that were not answered 200 by the sandbox: a balancer's own 502/503/504, or a connection error. */
export function failed(outcomes: readonly Outcome[]): Outcome[] {
  return outcomes.filter((o) => o.status !== 200);
}

/** The example config `file` appears in docs/hosting.md word for word. */
export function expectInReadme(file: string): void {
  const page = readFileSync(fileURLToPath(new URL('../../docs/hosting.md', import.meta.url)), 'utf8');
  expect(page.includes(readFileSync(path.join(EXAMPLES, file), 'utf8')), `docs/hosting.md shows examples/${file} verbatim`).toBe(true);
}

/** A merchant of its own, enrolled through `base`. */
export async function enroll(base: string, name: string): Promise<{ key: string; payee: string }> {
  const answer = await httpRequest(`${base}/sandbox/v1/merchants`, 'POST', { 'Content-Type': 'application/json' }, JSON.stringify({ name }), false);
  expect(answer.status, answer.body).toBe(200);
  const body = JSON.parse(answer.body) as { api_key: string; payee_id: string };
  return { key: body.api_key, payee: body.payee_id };
}

/** `count` creates of amount 900.04 (committed, then the connection dropped), one after another: the statuses the balancer answered (0 for none). */
export async function drops(base: string, m: { key: string; payee: string }, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let n = 0; n < count; n++) {
    const body = JSON.stringify({ payee: m.payee, product_type: 'QR_DYNAMIC', merchant_ref_no: `drop-${new URL(base).port}-${n}`, amount: 900.04 });
    const answer = await httpRequest(`${base}/openapi/v1/payments/payment`, 'POST', { 'Service-Api-Key': m.key, 'Content-Type': 'application/json' }, body, false).catch(() => ({ status: 0 }));
    statuses.push(answer.status);
  }
  return statuses;
}

/** Every acknowledged create reads back through `base`, with its merchant_ref_no. */
export async function expectAllReadable(base: string, outcomes: readonly Outcome[]): Promise<void> {
  const acknowledged = outcomes.filter((o) => o.kind === 'create' && o.status === 200);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const unreadable: string[] = [];
  for (let i = 0; i < acknowledged.length; i += 64) {
    await Promise.all(
      acknowledged.slice(i, i + 64).map(async (o) => {
        const read = await httpRequest(`${base}/openapi/v1/payments/payment/${o.paymentId}`, 'GET', headers, undefined, agent);
        const body = JSON.parse(read.body) as { merchant_ref_no?: string };
        if (read.status !== 200 || body.merchant_ref_no !== o.ref) unreadable.push(`${o.ref} ${o.paymentId}: ${read.status} ${read.body.slice(0, 120)}`);
      }),
    );
  }
  agent.destroy();
  expect(unreadable).toEqual([]);
}
