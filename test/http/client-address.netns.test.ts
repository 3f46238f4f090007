/**
 * SPEC 26 over real sockets: addresses of one IPv6 /64 are one client for the enrolment limit and
 * the per-client connection cap. Inside a network namespace this test makes (addresses only on
 * its `lo`, deleted after), a `serve` process and a client script each run with `ip netns exec`;
 * no packet leaves the namespace. Skipped, with one line saying why, where `ip netns` is not
 * permitted. HAProxy, on the example config, runs in the namespace too, to show its per-source
 * limit counts the /64 as one source.
 */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { debianBinary, templated } from '../cluster/rolling-restart.js';
import { removeTempDirs, tempDir } from '../support/files.js';
import { CLI } from '../support/processes.js';

const NS = `payreq-v6-${process.pid}`;
const NET = '2001:db8:1::';
const OTHER = '2001:db8:2::1';
const SERVER = `${NET}1`;
/** 16 addresses of the /64 besides the server's. */
const MINE = Array.from({ length: 16 }, (_, i) => `${NET}${(0x100 + i).toString(16)}`);

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: 'pipe' });
}

const permitted = (() => {
  try {
    ip('netns', 'add', NS);
    return true;
  } catch (err) {
    console.log(`skipped: ip netns is not permitted here (${String((err as Error).message).split('\n')[0]})`);
    return false;
  }
})();

let server: ChildProcess | undefined;
let haproxy: ChildProcess | undefined;
let output = '';

beforeAll(async () => {
  if (!permitted) return;
  ip('-n', NS, 'link', 'set', 'lo', 'up');
  for (const address of [SERVER, ...MINE]) ip('-n', NS, 'addr', 'add', `${address}/64`, 'dev', 'lo', 'nodad');
  ip('-n', NS, 'addr', 'add', `${OTHER}/64`, 'dev', 'lo', 'nodad');
  server = spawn('ip', ['netns', 'exec', NS, process.execPath, CLI, 'serve', '--host', '::', '--port', '8080'], {
    env: { ...process.env, NODE_ENV: 'test', SANDBOX_STORE: 'memory', SANDBOX_ENROLL_LIMIT: '3', SANDBOX_MAX_CONNECTIONS_PER_CLIENT: '4', SANDBOX_LOG: 'off' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  server.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const deadline = Date.now() + 15_000;
  while (!/listening|http:\/\//i.test(output) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}, 30_000);

afterAll(() => {
  server?.kill('SIGKILL');
  haproxy?.kill('SIGKILL');
  if (permitted) ip('netns', 'del', NS);
  removeTempDirs();
});

/** Runs `body` (an async function body with `http`, `net` and the constants in scope) in the namespace; its JSON result. */
function inNamespace(body: string): unknown {
  const script = `import http from 'node:http'; import net from 'node:net';
const SERVER = ${JSON.stringify(SERVER)}, MINE = ${JSON.stringify(MINE)}, OTHER = ${JSON.stringify(OTHER)};
const enroll = (from) => new Promise((resolve) => {
  const req = http.request({ host: SERVER, port: 8080, path: '/sandbox/v1/merchants', method: 'POST', localAddress: from, headers: { 'Content-Type': 'application/json' }, agent: false }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)); });
  req.on('error', (e) => resolve(e.code)); req.end('{}');
});
const idle = (from) => new Promise((resolve) => { const s = net.connect({ host: SERVER, port: 8080, localAddress: from }, () => resolve(s)); s.on('error', () => {}); });
const result = await (async () => { ${body} })();
console.log(JSON.stringify(result));`;
  const out = execFileSync('ip', ['netns', 'exec', NS, process.execPath, '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
  return JSON.parse(out.trim().split('\n').pop()!);
}

describe.runIf(permitted)('an IPv6 /64 is one client, over real sockets in a network namespace', () => {
  it('the server runs in the namespace', () => expect(output).not.toBe(''));

  it('enrolment: 3 a minute from the /64, each request from another of its addresses; an address of another /64 still enrolls', () => {
    const statuses = inNamespace(`const out = []; for (const from of MINE.slice(0, 6)) out.push(await enroll(from)); out.push(await enroll(OTHER)); return out;`);
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429, 200]);
  });

  it('connections: 8 idle connections from 8 addresses of the /64 keep 4 open (the per-client cap); 4 from another /64 all stay', () => {
    const open = inNamespace(`
      const mine = []; for (const from of MINE.slice(8, 16)) { mine.push(await idle(from)); await new Promise((r) => setTimeout(r, 20)); }
      const other = []; for (let i = 0; i < 4; i++) other.push(await idle(OTHER));
      await new Promise((r) => setTimeout(r, 300));
      const alive = (list) => list.filter((s) => !s.destroyed && !s.readableEnded).length;
      const result = { mine: alive(mine), other: alive(other) };
      for (const s of [...mine, ...other]) s.destroy();
      return result;`);
    expect(open).toEqual({ mine: 4, other: 4 });
  });

  it("HAProxy with the example config (its front bound to the namespace's IPv6 address) counts the /64 as one source: 80 idle connections from 16 of its addresses keep 64 open; another /64 keeps all 10", async () => {
    const bindV6 = (text: string) => text.replace('bind 127.0.0.1:8080', `bind [${SERVER}]:9080`);
    const config = templated('haproxy/haproxy.cfg', { 8081: 8080, 8082: 8083, 8404: 9404 }, tempDir('payreq-netns-haproxy-'), bindV6);
    let said = '';
    haproxy = spawn('ip', ['netns', 'exec', NS, debianBinary('haproxy'), '-db', '-f', config], { stdio: ['ignore', 'pipe', 'pipe'] });
    haproxy.stdout!.on('data', (d: Buffer) => (said += d.toString()));
    haproxy.stderr!.on('data', (d: Buffer) => (said += d.toString()));
    const open = inNamespace(`
      const idleTo = (from) => new Promise((resolve) => { const s = net.connect({ host: SERVER, port: 9080, localAddress: from }, () => resolve(s)); s.on('error', () => resolve(s)); });
      // Until HAProxy listens (a refused connection is destroyed at once).
      for (let i = 0; i < 100; i++) { const s = await idleTo(OTHER); const up = !s.destroyed; s.destroy(); if (up) break; await new Promise((r) => setTimeout(r, 50)); }
      await new Promise((r) => setTimeout(r, 100));
      const mine = []; for (let i = 0; i < 80; i++) mine.push(await idleTo(MINE[i % 16]));
      const other = []; for (let i = 0; i < 10; i++) other.push(await idleTo(OTHER));
      await new Promise((r) => setTimeout(r, 500));
      const alive = (list) => list.filter((s) => !s.destroyed && !s.readableEnded).length;
      const result = { mine: alive(mine), other: alive(other) };
      for (const s of [...mine, ...other]) s.destroy();
      return result;`);
    expect(open, said).toEqual({ mine: 64, other: 10 });
  });
});
