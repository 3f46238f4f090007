/**
 * SPEC 14 under faults, on real `serve` processes and a throw-away PostgreSQL with fsync on:
 * the database dies under load (503 with a description, /healthz 503, reconnect by itself,
 * nothing acknowledged lost), an instance is SIGKILLed under load (its acknowledged creates are
 * read through the other), migrations (instances starting together, a newer schema refused),
 * and a database password never shown.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../src/store/postgres-schema.js';
import { startPostgres, type PostgresServer } from '../support/postgres.js';
import { CLI, killQuietly, startServer, type ServerProcess } from '../support/processes.js';

const KEY = 'sk_sandbox_demo_merchant_key';
const PAYEE = 'DEMO-MERCHANT-1';
const HEADERS = { 'Service-Api-Key': KEY, 'Content-Type': 'application/json' };
const PASSWORD = 'S3cret-pw-xyz';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let cluster: PostgresServer;
const scratch = mkdtempSync(join(tmpdir(), 'payreq-pg-faults-'));
let running: ServerProcess[] = [];

beforeAll(async () => {
  cluster = await startPostgres(); // fsync on: these are durability tests
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
  rmSync(scratch, { recursive: true, force: true });
});
afterEach(async () => {
  for (const s of running) killQuietly(s);
  await Promise.all(running.map((s) => s.exited));
  running = [];
  if (clusterDown) await restartCluster();
}, 60_000);

let clusterDown = false;
function killCluster(): void {
  clusterDown = true;
  cluster.kill();
}
async function restartCluster(): Promise<void> {
  await cluster.restart();
  clusterDown = false;
}

/** Runs SQL as the cluster's superuser on `database`. */
async function admin<T>(work: (sql: postgres.Sql) => Promise<T>, database = 'postgres'): Promise<T> {
  const url = new URL(cluster.url);
  url.pathname = `/${database}`;
  const sql = postgres(url.toString(), { max: 1, onnotice: () => {} });
  try {
    return await work(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

let databases = 0;
/** A new empty database; its URL, optionally with another user and a password. */
async function freshDatabase(owner?: { user: string; password: string }): Promise<string> {
  const name = `faults_${process.pid}_${++databases}`;
  await admin((sql) => sql.unsafe(`CREATE DATABASE ${name}${owner ? ` OWNER ${owner.user}` : ''}`));
  const url = new URL(cluster.url);
  url.pathname = `/${name}`;
  if (owner) {
    url.username = owner.user;
    url.password = owner.password;
  }
  return url.toString();
}

async function serve(storeUrl: string): Promise<ServerProcess> {
  const server = await startServer(join(scratch, 'unused.json'), { SANDBOX_STORE: storeUrl });
  running.push(server);
  return server;
}

/** `node dist/cli.js ...args` to its end: exit code and all output. */
function runCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, NODE_ENV: 'test', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`node dist/cli.js ${args.join(' ')} did not exit in 20 s:\n${output}`));
    }, 20_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

interface Answer {
  /** 0 when no answer came (refused, reset, or no answer within the timeout). */
  readonly status: number;
  readonly text: string;
}

/** Never throws: a request that got no answer is status 0 with the reason as text. */
async function request(url: string, init: RequestInit = {}, timeoutMs = 8_000): Promise<Answer> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    return { status: response.status, text: await response.text() };
  } catch (err) {
    const cause = (err as Error).cause as Error | undefined;
    return { status: 0, text: `no answer: ${(err as Error).name} ${cause?.message ?? (err as Error).message}` };
  }
}

const create = (base: string, ref: string) =>
  request(`${base}/openapi/v1/payments/payment`, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({ payee: PAYEE, product_type: 'QR_DYNAMIC', merchant_ref_no: ref, amount: 10.5 }),
  });
const read = (base: string, id: string) => request(`${base}/openapi/v1/payments/payment/${id}`, { headers: HEADERS });
const healthz = (base: string, timeoutMs?: number) => request(`${base}/healthz`, {}, timeoutMs);

async function waitForHealthy(base: string, withinMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const answer = await healthz(base);
    if (answer.status === 200) return Date.now() - started;
    if (Date.now() - started > withinMs) throw new Error(`/healthz not 200 within ${withinMs} ms: ${answer.status} ${answer.text}`);
    await sleep(100);
  }
}

/** A 503 as SPEC 14 wants it: the JSON envelope, code 503, a description naming the database, no stack. */
function expectDatabase503(answer: Answer, soft = false): void {
  const check = soft ? expect.soft : expect;
  check(answer.status, answer.text).toBe(503);
  if (answer.status !== 503) return;
  const body = JSON.parse(answer.text) as { code: number; description: string };
  check(body.code).toBe(503);
  check(body.description).toMatch(/database/i);
  check(answer.text).not.toMatch(/\n\s+at |Error:|node_modules|\.[jt]s:\d+/);
}

interface Outcome {
  readonly ref: string;
  readonly via: string;
  readonly answer: Answer;
}

/** Creates with unique refs, `concurrency` in flight, each sent to `target(n)`, until stop(). */
function createLoad(prefix: string, concurrency: number, target: (n: number) => string) {
  const outcomes: Outcome[] = [];
  let stopped = false;
  let n = 0;
  const worker = async () => {
    while (!stopped) {
      const i = n++;
      const ref = `${prefix}-${i}`;
      const via = target(i);
      const answer = await create(via, ref);
      outcomes.push({ ref, via, answer });
      if (answer.status !== 200) await sleep(10);
    }
  };
  const workers = Array.from({ length: concurrency }, worker);
  return {
    outcomes,
    acked: () => outcomes.filter((o) => o.answer.status === 200).map((o) => ({ ...o, id: (JSON.parse(o.answer.text) as { payment_id: string }).payment_id })),
    stop: async () => {
      stopped = true;
      await Promise.all(workers);
    },
  };
}

/** Reads every id through `base`, 20 at a time; returns the ones that did not answer 200 with their ref. */
async function unreadable(base: string, acked: { id: string; ref: string }[]): Promise<string[]> {
  const missing: string[] = [];
  for (let i = 0; i < acked.length; i += 20) {
    await Promise.all(
      acked.slice(i, i + 20).map(async ({ id, ref }) => {
        const answer = await read(base, id);
        const body = JSON.parse(answer.text) as { merchant_ref_no?: string };
        if (answer.status !== 200 || body.merchant_ref_no !== ref) missing.push(`${id} (${ref}): ${answer.status} ${answer.text.slice(0, 200)}`);
      }),
    );
  }
  return missing;
}

describe('PostgreSQL store under faults (real processes, fsync on)', () => {
  it('database SIGKILLed under load: 200 or a described 503, /healthz 503, reconnects by itself, nothing acknowledged lost', async () => {
    const database = await freshDatabase();
    const server = await serve(database);
    const load = createLoad('outage', 20, () => server.url);
    await sleep(1000);
    const ackedBefore = load.acked().length;
    killCluster();
    await sleep(1000);
    const healthDown = await healthz(server.url, 3_000);
    const downSince = load.outcomes.length;
    await sleep(1000);
    const healthStillDown = await healthz(server.url, 3_000);
    await load.stop();
    await restartCluster();
    const show = (list: Outcome[], total = load.outcomes.length) => [
      `${list.length} of ${total} creates`,
      ...list.slice(0, 3).map((o) => `${o.ref}: ${o.answer.status} ${o.answer.text.slice(0, 160)}`),
    ];
    const none = (total = load.outcomes.length) => [`0 of ${total} creates`];

    // Soft: the recovery and durability checks below still run and report when these fail.
    // Every answer, before, during and after the kill: 200 or a described 503; never a 500, a stack, or no answer.
    expect.soft(show(load.outcomes.filter((o) => o.answer.status !== 200 && o.answer.status !== 503)), 'answers neither 200 nor 503').toEqual(none());
    const unavailable = load.outcomes.filter((o) => o.answer.status === 503);
    for (const o of unavailable.slice(0, 50)) expectDatabase503(o.answer, true);
    expect.soft(ackedBefore, 'creates acknowledged before the kill').toBeGreaterThan(20);
    expect.soft(unavailable.length, 'creates answered 503 while the database was down').toBeGreaterThan(20);
    // From a second after the kill on, every create is refused.
    const late = load.outcomes.slice(downSince);
    expect.soft(show(late.filter((o) => o.answer.status !== 503), late.length), 'answers after the database was gone').toEqual(none(late.length));
    expectDatabase503(healthDown, true);
    expectDatabase503(healthStillDown, true);
    expect(server.child.exitCode).toBeNull();
    expect(server.child.signalCode).toBeNull();

    // Back without restarting the sandbox.
    await waitForHealthy(server.url, 10_000);
    const after = await Promise.all(Array.from({ length: 10 }, (_, i) => create(server.url, `after-outage-${i}`)));
    expect(after.map((a) => a.status)).toEqual(Array(10).fill(200));

    // Nothing acknowledged is lost.
    const acked = load.acked();
    expect(await unreadable(server.url, acked)).toEqual([]);

    // A 503 that says "nothing was changed" must mean it: no payment with that ref exists.
    const refs = unavailable.filter((o) => /nothing was changed/.test(o.answer.text)).map((o) => o.ref);
    const name = new URL(database).pathname.slice(1);
    const made = await admin((sql) => sql<{ merchant_ref_no: string }[]>`SELECT merchant_ref_no FROM payreq_payments WHERE merchant_ref_no = ANY(${refs})`, name);
    expect(made.map((r) => r.merchant_ref_no), '503 "nothing was changed" but the payment exists').toEqual([]);
    expect(server.child.exitCode).toBeNull();
  }, 45_000);

  it('kill -9 of one of two instances under load: every create acknowledged by either is read through the other', async () => {
    const database = await freshDatabase();
    const [a, b] = await Promise.all([serve(database), serve(database)]);
    const load = createLoad('two', 20, (i) => (i % 2 === 0 ? a.url : b.url));
    await sleep(1000);
    a.child.kill('SIGKILL');
    const exit = await a.exited;
    await sleep(1000);
    await load.stop();

    expect(exit.signal).toBe('SIGKILL');
    const acked = load.acked();
    const fromA = acked.filter((o) => o.via === a.url);
    const fromB = acked.filter((o) => o.via === b.url);
    expect(fromA.length).toBeGreaterThan(10);
    expect(fromB.length).toBeGreaterThan(10);
    // B never noticed: every answer it gave was a 200.
    const fromBNot200 = load.outcomes.filter((o) => o.via === b.url && o.answer.status !== 200);
    expect(fromBNot200.map((o) => `${o.answer.status} ${o.answer.text}`)).toEqual([]);
    expect(await unreadable(b.url, acked)).toEqual([]);
    const health = await healthz(b.url);
    expect(health.status).toBe(200);
  }, 30_000);

  describe('migrations', () => {
    it('three instances started at the same moment on an empty database all come up and serve', async () => {
      const database = await freshDatabase();
      const servers = await Promise.all([serve(database), serve(database), serve(database)]);
      for (const s of servers) expect((await healthz(s.url)).status).toBe(200);
      const made = await create(servers[0]!.url, 'migrated-1');
      expect(made.status).toBe(200);
      const { payment_id } = JSON.parse(made.text) as { payment_id: string };
      for (const s of servers) expect((await read(s.url, payment_id)).status).toBe(200);
      const name = new URL(database).pathname.slice(1);
      const rows = await admin((sql) => sql<{ version: number }[]>`SELECT version FROM payreq_schema`, name);
      expect(rows).toEqual([{ version: SCHEMA_VERSION }]);
    }, 30_000);

    it('a database whose schema is newer than the sandbox is refused, and left as it was', async () => {
      const database = await freshDatabase();
      const first = await serve(database);
      first.child.kill('SIGTERM');
      await first.exited;
      const name = new URL(database).pathname.slice(1);
      await admin((sql) => sql`UPDATE payreq_schema SET version = 99`, name);

      const run = await runCli(['serve', '--port', '0', '--host', '127.0.0.1'], { SANDBOX_STORE: database });
      expect(run.code).not.toBe(0);
      expect(run.code).not.toBeNull();
      expect(run.output).toMatch(/schema version 99.*newer than this sandbox understands/);
      expect(run.output).not.toMatch(/listening on/);
      const rows = await admin((sql) => sql<{ version: number }[]>`SELECT version FROM payreq_schema`, name);
      expect(rows).toEqual([{ version: 99 }]);
    }, 30_000);
  });

  describe('the database password is never shown', () => {
    it('not in the banner, the logs of an outage, /healthz or the 503 answers', async () => {
      await admin((sql) => sql.unsafe(`CREATE ROLE carol LOGIN PASSWORD '${PASSWORD}'`));
      const database = await freshDatabase({ user: 'carol', password: PASSWORD });
      expect(database).toContain(PASSWORD);
      const server = await serve(database);
      expect(server.output()).toMatch(/store: postgres postgres:\/\/carol:\*\*\*@127\.0\.0\.1/);
      const made = await create(server.url, 'secret-1');
      expect(made.status).toBe(200);
      const { payment_id } = JSON.parse(made.text) as { payment_id: string };

      const answers: Answer[] = [];
      killCluster();
      await sleep(300);
      answers.push(await healthz(server.url), await create(server.url, 'secret-2'), await read(server.url, payment_id));
      answers.push(await request(`${server.url}/sandbox/v1/payments`, { headers: HEADERS }));
      await restartCluster();
      for (const answer of answers) expectDatabase503(answer);
      await waitForHealthy(server.url, 10_000);
      expect((await read(server.url, payment_id)).status).toBe(200);
      server.child.kill('SIGTERM');
      expect((await server.exited).code).toBe(0);

      // A start while the database is down fails, and says why without the password.
      const down = new URL(database);
      down.port = String(cluster.port === 1 ? 2 : 1);
      const refused = await runCli(['serve', '--port', '0', '--host', '127.0.0.1', '--store', down.toString()]);

      for (const text of [server.output(), refused.output, ...answers.map((a) => a.text)]) expect(text).not.toContain(PASSWORD);
      // One line when the outage starts (not one per failed request), the password masked.
      const outages = server.output().split('\n').filter((line) => line.includes('"msg":"store: the database cannot be reached'));
      expect(outages).toHaveLength(1);
      expect(JSON.parse(outages[0]!)).toMatchObject({ level: 50, database: expect.stringMatching(/^postgres:\/\/carol:\*\*\*@\S+$/) });
      expect(answers[0]!.text).toContain('carol:***@');
      expect(refused.code).not.toBe(0);
      expect(refused.output).toMatch(/cannot be reached/);
    }, 40_000);

    it('serve --store with a value that is not a store exits non-zero without echoing it', async () => {
      const bad = `mysql://u:${PASSWORD}@h/db`;
      const viaFlag = await runCli(['serve', '--port', '0', '--store', bad]);
      const viaEnv = await runCli(['serve', '--port', '0'], { SANDBOX_STORE: bad });
      for (const run of [viaFlag, viaEnv]) {
        expect(run.code).not.toBe(0);
        expect(run.output).toMatch(/must be file, memory, or a postgres/);
        expect(run.output).not.toContain(PASSWORD);
      }
    }, 30_000);
  });
});
