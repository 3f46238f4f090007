/**
 * Child processes of the bench: servers under test and autocannon runs. Every child is
 * tracked and killed when the bench ends, normally or not.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const LOAD_SCRIPT = fileURLToPath(new URL('./load.js', import.meta.url));
const children = new Set();

export function killAllChildren() {
  for (const child of children) {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
  children.clear();
}

process.on('exit', killAllChildren);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    killAllChildren();
    process.exit(130);
  });
}

/** A free loopback port: the OS picks one, we release it and hand it to the server. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

function track(child) {
  children.add(child);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  exited.then(() => children.delete(child));
  return exited;
}

/**
 * Environment of a server under test: the sandbox's own variables are cleared so defaults apply,
 * but for two per-merchant bounds one bench merchant passes at full speed: its 64 MB storage quota
 * (402s within a run of 7,000 creates a second) and its 1 MiB a second of request bodies (429s
 * past ~5,000 creates a second). Both are still counted on every create; only their sizes are raised.
 */
function serverEnv(extra = {}) {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith('SANDBOX_') || name === 'PUBLIC_BASE_URL' || name === 'PORT' || name === 'NODE_ENV') delete env[name];
  return { ...env, SANDBOX_MERCHANT_STORAGE_MB: '4096', SANDBOX_STORAGE_MB: '8192', SANDBOX_MERCHANT_BODY_KB_PER_SECOND: '1048576', ...extra };
}

/**
 * Starts a server the way `npm start` does (node dist/cli.js serve), or the bare Hono server,
 * and resolves once GET /healthz answers 200, with the time that took from spawn.
 * `store`: a postgres:// URL for `--store` (the file store on `dataFile` when absent).
 */
export async function startServer({ kind, dataFile, store, nodeFlags = [], env = {}, timeoutMs = 30_000 }) {
  const port = await freePort();
  const args =
    kind === 'bare'
      ? [...nodeFlags, 'bench/bare-server.js', '--port', String(port), '--host', '127.0.0.1', ...(dataFile ? ['--log', dataFile] : [])]
      : [...nodeFlags, 'dist/cli.js', 'serve', '--port', String(port), '--host', '127.0.0.1', '--data', dataFile, ...(store ? ['--store', store] : [])];
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, env: serverEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = track(child);
  let output = '';
  const keep = (chunk) => {
    output = (output + chunk.toString()).slice(-8192);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const url = `http://127.0.0.1:${port}`;
  let dead = null;
  exited.then((how) => (dead = how));
  for (;;) {
    if (dead) throw new Error(`${kind} server exited (${dead.code ?? dead.signal}) before it was healthy:\n${output}`);
    if (performance.now() - started > timeoutMs) throw new Error(`${kind} server not healthy after ${timeoutMs} ms:\n${output}`);
    try {
      const res = await fetch(`${url}/healthz`);
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  const startupMs = performance.now() - started;
  return {
    url,
    pid: child.pid,
    startupMs,
    output: () => output,
    memory: () => memoryOf(child.pid),
    cpuMs: () => cpuMsOf(child.pid),
    /** SIGKILL by default (the store is durable); graceful SIGTERM when a CPU profile must be written. */
    async stop({ graceful = false } = {}) {
      if (dead) return;
      child.kill(graceful ? 'SIGTERM' : 'SIGKILL');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** CPU time (user + system) a process has used so far, in ms. */
export function cpuMsOf(pid) {
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}
const CLOCK_TICKS = 100;

/** VmRSS and VmHWM (peak) of a process, in MB. */
export function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMB: kb('VmRSS') / 1024, peakMB: kb('VmHWM') / 1024 };
}

/** One autocannon run (or another load `script` taking the same JSON spec) in its own process; resolves with its figures. */
export async function runLoad(spec, script = LOAD_SCRIPT) {
  const child = spawn(process.execPath, [script, JSON.stringify(spec)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = track(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr = (stderr + c).slice(-8192)));
  const { code, signal } = await exited;
  const last = stdout.trim().split('\n').pop();
  if (code !== 0 || !last) throw new Error(`load run ${spec.workload} failed (${code ?? signal}):\n${stderr}`);
  return JSON.parse(last);
}
