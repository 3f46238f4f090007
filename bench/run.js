#!/usr/bin/env node
/**
 * The benchmark suite: bare Hono first (the framework's ceiling on this machine, in this run),
 * then the sandbox, each figure as a ratio to the matching bare one. `npm run bench` builds
 * and runs it; see bench/README.md for the flags.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBenchPostgres } from './lib/postgres.js';
import { killAllChildren, runLoad, startServer } from './lib/processes.js';
import { startRoundRobinProxy } from './lib/round-robin-proxy.js';
import { seedStore } from './lib/seed.js';
import { printTable } from './lib/report.js';
import { soak } from './soak.js';
import { storageBench } from './storage-memory.js';
import { scaleCommand } from './scale.js';
import { checkTargets } from './lib/targets.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RESULTS = path.join(ROOT, 'bench', 'results');

function parseArgs(argv) {
  const value = (name) => {
    const i = argv.indexOf(name);
    return i === -1 ? undefined : argv[i + 1];
  };
  const quick = argv.includes('--quick');
  const stores = (value('--stores') ?? 'file').split(',');
  for (const s of stores) if (s !== 'file' && s !== 'postgres') throw new Error(`--stores takes file, postgres or file,postgres, not ${JSON.stringify(s)}`);
  return {
    stores,
    quick,
    rounds: Number(value('--rounds') ?? (quick ? 1 : 3)),
    duration: Number(value('--duration') ?? (quick ? 2 : 6)),
    warmup: Number(value('--warmup') ?? (quick ? 0.5 : 1)),
    connections: Number(value('--connections') ?? 50),
    startups: Number(value('--startups') ?? (quick ? 1 : 3)),
    only: value('--only')?.split(','),
    profile: argv.includes('--profile'),
    noBare: argv.includes('--no-bare'),
    rate: value('--rate') === undefined ? undefined : Number(value('--rate')),
  };
}

const SEEDS = { small: 100, qr: 3000, '50k': 50_000, '100k': 100_000 };

/**
 * Every workload. `vs` names the bare figure it is divided by (GET for reads, POST for writes);
 * `key` ones are repeated every round and reported as medians.
 */
const WORKLOADS = [
  { name: 'bare-get', label: 'bare Hono GET (600 B JSON)', server: 'bare', load: 'bare-get', key: true },
  { name: 'bare-post', label: 'bare Hono POST (200 B JSON)', server: 'bare', load: 'bare-post', key: true },
  { name: 'bare-png', label: 'bare Hono GET (3.3 KB QR PNG)', server: 'bare', load: 'bare-png' },
  // The file store's floor (bench/bare-server.js /logged): how near bare the design itself lets status and create come.
  { name: 'floor-get', label: 'floor: bare GET + its journal line', server: 'bare', load: 'floor-get', vs: 'bare-get', floor: true },
  { name: 'floor-post', label: 'floor: bare POST + change line + journal', server: 'bare', load: 'floor-post', vs: 'bare-post', floor: true },
  // The base of the 2-instance rows: two bare servers behind the same round-robin proxy (a new upstream connection per request).
  { name: 'bare-get-proxy', label: 'bare Hono GET, 2 behind the proxy', server: 'bare', load: 'bare-get', vs: 'bare-get', instances: 2, proxy: true, key: true },
  { name: 'bare-post-proxy', label: 'bare Hono POST, 2 behind the proxy', server: 'bare', load: 'bare-post', vs: 'bare-post', instances: 2, proxy: true, key: true },
  { name: 'status', label: 'status GET', seed: 'small', load: 'status', vs: 'bare-get', key: true },
  { name: 'create', label: 'create (100 stored)', seed: 'small', load: 'create', vs: 'bare-post', key: true },
  { name: 'create-50k', label: 'create (50,000 stored)', seed: '50k', load: 'create', vs: 'bare-post', key: true },
  { name: 'create-100k', label: 'create (100,000 stored)', seed: '100k', load: 'create', vs: 'bare-post', key: true },
  { name: 'status-100k', label: 'status GET (100,000 stored)', seed: '100k', load: 'status', vs: 'bare-get' },
  { name: 'status-nojournal', label: 'status GET, SANDBOX_JOURNAL=off', seed: 'small', load: 'status', vs: 'bare-get', env: { SANDBOX_JOURNAL: 'off' } },
  { name: 'create-nojournal', label: 'create, SANDBOX_JOURNAL=off', seed: 'small', load: 'create', vs: 'bare-post', env: { SANDBOX_JOURNAL: 'off' } },
  // Issue 10: what /metrics and the request log cost (each measured by turning it off).
  { name: 'status-nometrics', label: 'status GET, SANDBOX_METRICS=off', seed: 'small', load: 'status', vs: 'bare-get', key: true, env: { SANDBOX_METRICS: 'off' } },
  { name: 'create-nometrics', label: 'create, SANDBOX_METRICS=off', seed: 'small', load: 'create', vs: 'bare-post', key: true, env: { SANDBOX_METRICS: 'off' } },
  { name: 'status-nolog', label: 'status GET, SANDBOX_LOG=off', seed: 'small', load: 'status', vs: 'bare-get', env: { SANDBOX_LOG: 'off' } },
  { name: 'create-nolog', label: 'create, SANDBOX_LOG=off', seed: 'small', load: 'create', vs: 'bare-post', env: { SANDBOX_LOG: 'off' } },
  { name: 'mixed', label: 'mixed (create/assign/pay/status)', seed: 'small', load: 'mixed', vs: 'bare-post' },
  { name: 'qr-png-cold', label: 'QR PNG cold', seed: 'qr', load: 'qr', params: { format: 'png' }, vs: 'bare-get' },
  { name: 'qr-png-cached', label: 'QR PNG cached', seed: 'qr', load: 'qr', params: { format: 'png', distinct: 8 }, vs: 'bare-get' },
  { name: 'qr-svg-cold', label: 'QR SVG cold', seed: 'qr', load: 'qr', params: { format: 'svg' }, vs: 'bare-get' },
  { name: 'qr-svg-cached', label: 'QR SVG cached', seed: 'qr', load: 'qr', params: { format: 'svg', distinct: 8 }, vs: 'bare-get' },
  // PostgreSQL store (issue 9, `--stores file,postgres`): a fresh database per run, seeded with the same 100 payments.
  { name: 'status-pg', label: 'status GET, PostgreSQL', store: 'postgres', seed: 'small', load: 'status', vs: 'bare-get', key: true },
  { name: 'create-pg', label: 'create (100 stored), PostgreSQL', store: 'postgres', seed: 'small', load: 'create', vs: 'bare-post', key: true },
  { name: 'status-pg-2', label: 'status GET, PostgreSQL, 2 via proxy', store: 'postgres', seed: 'small', load: 'status', vs: 'bare-get', vsProxy: 'bare-get-proxy', instances: 2, proxy: true, key: true },
  { name: 'create-pg-2', label: 'create, PostgreSQL, 2 via proxy', store: 'postgres', seed: 'small', load: 'create', vs: 'bare-post', vsProxy: 'bare-post-proxy', instances: 2, proxy: true, key: true },
];

const STARTUPS = [
  { name: 'startup-empty', label: 'start-up, empty store', seed: null },
  { name: 'startup-100k', label: 'start-up, 100,000 payments', seed: '100k' },
];

const median = (xs) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function gitState() {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
    return { commit, srcDirty: dirty };
  } catch {
    return { commit: 'unknown', srcDirty: false };
  }
}

/** How many payments the demo merchant holds once a workload is done (RSS depends on it). */
async function storedPayments(url) {
  try {
    const answer = await fetch(`${url}/sandbox/v1/payments?limit=1`, { headers: { 'Service-Api-Key': 'sk_sandbox_demo_merchant_key' } });
    return (await answer.json()).total;
  } catch {
    return undefined;
  }
}

async function main() {
  const soakAt = process.argv.indexOf('--soak');
  if (soakAt !== -1) {
    // The soak is its own run (minutes long, one server): `--soak [minutes]`, 10 by default.
    const minutes = Number(process.argv[soakAt + 1]?.startsWith('--') ? 10 : (process.argv[soakAt + 1] ?? 10));
    const result = await soak({ minutes, log: (line) => process.stderr.write(`${line}\n`) });
    mkdirSync(RESULTS, { recursive: true });
    writeFileSync(path.join(RESULTS, `soak-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify(result, null, 2));
    return;
  }
  const storageAt = process.argv.indexOf('--storage');
  if (storageAt !== -1) {
    // Its own run too (SPEC 18): heap per stored byte, then a server's RSS at the budget: `--storage [budget MB]`, 64 by default.
    const budgetMb = Number(process.argv[storageAt + 1]?.startsWith('--') ? 64 : (process.argv[storageAt + 1] ?? 64));
    const result = await storageBench({ budgetMb });
    mkdirSync(RESULTS, { recursive: true });
    writeFileSync(path.join(RESULTS, `storage-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify(result, null, 2));
    return;
  }
  if (process.argv.includes('--scale')) {
    // The scale workload is its own run too (1,000 merchants, one minute): see bench/scale.js.
    await scaleCommand(process.argv.slice(2));
    return;
  }
  const opts = parseArgs(process.argv.slice(2));
  if (!existsSync(path.join(ROOT, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: run `npm run build` first (npm run bench does).');
  // --only names workloads (of any store); otherwise --stores picks them (file by default).
  const wanted = (w) => (opts.only ? opts.only.includes(w.name) : opts.stores.includes(w.store ?? 'file'));
  const measured = WORKLOADS.filter((w) => w.server !== 'bare' && wanted(w));
  const bareWanted = (w) =>
    !opts.noBare &&
    (!opts.only || opts.only.some((n) => !n.startsWith('startup'))) &&
    // The proxied bare rows only as the base of a proxied row (or when named).
    (!w.proxy || measured.some((m) => m.vsProxy === w.name) || Boolean(opts.only?.includes(w.name))) &&
    // The floor rows in a whole run, or when named.
    (!w.floor || !opts.only || opts.only.includes(w.name));
  const workloads = WORKLOADS.filter((w) => (w.server === 'bare' ? bareWanted(w) : wanted(w)));
  const startups = STARTUPS.filter((s) => (opts.only ? opts.only.includes(s.name) : opts.stores.includes('file')));
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'payreq-bench-'));
  const profileDir = path.join(RESULTS, `profiles-${stamp}`);
  const nodeFlags = opts.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const began = performance.now();
  const log = (line) => process.stderr.write(`[${((performance.now() - began) / 1000).toFixed(0).padStart(3)}s] ${line}\n`);
  let pg = null;

  try {
    // Seed once; each server gets its own copy, so every run starts from the same store.
    const needed = new Set([...workloads.map((w) => w.seed), ...startups.map((s) => s.seed)].filter(Boolean));
    const seeds = {};
    for (const name of needed) {
      const file = path.join(tmp, `seed-${name}.json`);
      const t = performance.now();
      const { ids, tokens, merchants, payments } = await seedStore(file, SEEDS[name]);
      const listFile = path.join(tmp, `seed-${name}.lists.json`);
      writeFileSync(listFile, JSON.stringify({ ids: ids.slice(0, 5000), tokens: tokens.slice(0, 5000) }));
      // PostgreSQL runs get the same merchants and payments, written into each fresh database.
      const forPostgres = workloads.some((w) => w.store === 'postgres' && w.seed === name);
      seeds[name] = { file, listFile, ...(forPostgres ? { merchants, payments } : {}) };
      log(`seeded ${SEEDS[name]} payments in ${Math.round(performance.now() - t)} ms`);
    }
    if (workloads.some((w) => w.store === 'postgres')) {
      const t = performance.now();
      pg = await startBenchPostgres();
      log(`PostgreSQL cluster up in ${Math.round(performance.now() - t)} ms (fsync on), postmaster pid ${pg.postmasterPid}`);
    }

    let serial = 0;
    const freshStore = (seed) => {
      const dir = path.join(tmp, `run-${++serial}`);
      mkdirSync(dir);
      const dataFile = path.join(dir, 's.json');
      if (seed) {
        // The snapshot and its log: a snapshot without its log is a damaged store, refused at start.
        copyFileSync(seeds[seed].file, dataFile);
        copyFileSync(`${seeds[seed].file}.log`, `${dataFile}.log`);
      }
      return dataFile;
    };

    const runs = Object.fromEntries(workloads.map((w) => [w.name, []]));
    const runOne = async (w) => {
      const instances = w.instances ?? 1;
      const store = w.store === 'postgres' ? await pg.freshDatabase(w.seed ? seeds[w.seed] : undefined) : undefined;
      const servers = [];
      let proxy;
      try {
        // Several instances share one database; each gets a data file it never uses on PostgreSQL.
        for (let i = 0; i < instances; i++) {
          servers.push(await startServer({ kind: w.server === 'bare' ? 'bare' : 'sandbox', dataFile: freshStore(store ? null : w.seed), store, nodeFlags, env: w.env }));
        }
        if (w.proxy) proxy = await startRoundRobinProxy(servers.map((x) => x.url));
        const url = proxy?.url ?? servers[0].url;
        const spec = {
          url,
          workload: w.load,
          connections: opts.connections,
          rate: opts.rate,
          params: { ...w.params, ...(w.seed ? { listFile: seeds[w.seed].listFile } : {}) },
        };
        if (opts.warmup > 0) await runLoad({ ...spec, duration: opts.warmup });
        const serversCpu = () => servers.reduce((sum, x) => sum + x.cpuMs(), 0);
        const cpuBefore = serversCpu();
        const pgBefore = store ? pg.cpuMs() : 0;
        // The proxy runs in this process, which otherwise only waits for the load run.
        const proxyBefore = proxy ? process.cpuUsage() : undefined;
        const result = await runLoad({ ...spec, duration: opts.duration });
        const perReq = (ms) => (ms * 1000) / Math.max(result.total, 1);
        // Server CPU per request (all instances): steadier than req/s when other work shares the cores.
        result.cpuUsPerReq = perReq(serversCpu() - cpuBefore);
        if (store) result.pgCpuUsPerReq = perReq(pg.cpuMs() - pgBefore);
        if (proxy) {
          const used = process.cpuUsage(proxyBefore);
          result.proxyCpuUsPerReq = perReq((used.user + used.system) / 1000);
        }
        const memories = servers.map((x) => x.memory());
        result.memory = { rssMB: Math.max(...memories.map((m) => m.rssMB)), peakMB: Math.max(...memories.map((m) => m.peakMB)) };
        if (w.server !== 'bare') result.stored = await storedPayments(url);
        runs[w.name].push(result);
        const bad = result.non2xx + result.errors;
        const extra = `${result.pgCpuUsPerReq === undefined ? '' : `  PG ${result.pgCpuUsPerReq.toFixed(0)} us/req`}${result.proxyCpuUsPerReq === undefined ? '' : `  proxy ${result.proxyCpuUsPerReq.toFixed(0)} us/req`}`;
        const pids = opts.profile ? `  pid ${servers.map((x) => x.pid).join(',')}` : '';
        log(`${w.name.padEnd(16)} ${Math.round(result.reqPerSec).toString().padStart(6)} req/s  p99 ${result.latency.p99} ms  CPU ${result.cpuUsPerReq.toFixed(0)} us/req${extra}  RSS ${result.memory.rssMB.toFixed(0)} MB${result.stored === undefined ? '' : ` (${result.stored} payments)`}${pids}${bad ? `  !! ${bad} non-2xx/errors ${JSON.stringify(result.statusCounts)}` : ''}`);
      } finally {
        await proxy?.close();
        for (const x of servers) await x.stop({ graceful: opts.profile });
      }
    };

    // Key figures in interleaved rounds, so a burst of load from elsewhere hits bare and sandbox alike.
    for (let round = 1; round <= opts.rounds; round++) {
      log(`round ${round} of ${opts.rounds}`);
      for (const w of workloads.filter((x) => x.key)) await runOne(w);
    }
    for (const w of workloads.filter((x) => !x.key)) await runOne(w);

    const startupRuns = Object.fromEntries(startups.map((s) => [s.name, []]));
    for (let i = 0; i < opts.startups; i++) {
      for (const s of startups) {
        const server = await startServer({ kind: 'sandbox', dataFile: freshStore(s.seed), nodeFlags });
        const memory = server.memory();
        await server.stop({ graceful: opts.profile });
        startupRuns[s.name].push({ startupMs: server.startupMs, memory });
        log(`${s.name.padEnd(14)} ${server.startupMs.toFixed(0)} ms  RSS ${memory.rssMB.toFixed(0)} MB`);
      }
    }

    const figures = {};
    for (const w of workloads) {
      const rs = runs[w.name];
      if (rs.length === 0) continue;
      const medianOf = (key) => (rs.every((r) => r[key] === undefined) ? undefined : median(rs.map((r) => r[key])));
      figures[w.name] = {
        label: w.label,
        vs: w.vs ?? null,
        vsProxy: w.vsProxy ?? null,
        store: w.server === 'bare' ? null : (w.store ?? 'file'),
        instances: w.instances ?? 1,
        rounds: rs.length,
        reqPerSec: median(rs.map((r) => r.reqPerSec)),
        p50: median(rs.map((r) => r.latency.p50)),
        p99: median(rs.map((r) => r.latency.p99)),
        cpuUsPerReq: median(rs.map((r) => r.cpuUsPerReq)),
        pgCpuUsPerReq: medianOf('pgCpuUsPerReq'),
        proxyCpuUsPerReq: medianOf('proxyCpuUsPerReq'),
        rssMB: median(rs.map((r) => r.memory.rssMB)),
        peakMB: Math.max(...rs.map((r) => r.memory.peakMB)),
        stored: median(rs.map((r) => r.stored)),
        non2xx: rs.reduce((n, r) => n + r.non2xx + r.errors, 0),
        spread: rs.length > 1 ? (Math.max(...rs.map((r) => r.reqPerSec)) - Math.min(...rs.map((r) => r.reqPerSec))) / median(rs.map((r) => r.reqPerSec)) : 0,
      };
    }
    for (const f of Object.values(figures)) {
      f.ratio = f.vs && figures[f.vs] ? f.reqPerSec / figures[f.vs].reqPerSec : null;
      if (f.vsProxy) f.ratioProxy = figures[f.vsProxy] ? f.reqPerSec / figures[f.vsProxy].reqPerSec : null;
    }
    for (const s of startups) {
      const rs = startupRuns[s.name];
      if (rs.length === 0) continue;
      figures[s.name] = {
        label: s.label,
        rounds: rs.length,
        startupMs: median(rs.map((r) => r.startupMs)),
        rssMB: median(rs.map((r) => r.memory.rssMB)),
        peakMB: Math.max(...rs.map((r) => r.memory.peakMB)),
      };
    }

    const targets = checkTargets(figures);
    const results = {
      stamp,
      git: gitState(),
      node: process.version,
      cpus: os.cpus().length,
      loadavg: os.loadavg(),
      options: opts,
      figures,
      targets,
      runs,
      startupRuns,
      profileDir: opts.profile ? profileDir : undefined,
    };
    mkdirSync(RESULTS, { recursive: true });
    const text = JSON.stringify(results, null, 2);
    writeFileSync(path.join(RESULTS, `${stamp}.json`), text);
    writeFileSync(path.join(RESULTS, 'latest.json'), text);
    printTable(results);
    console.log(`\nresults: bench/results/${stamp}.json (and latest.json); ${((performance.now() - began) / 1000).toFixed(0)} s in all`);
    if (opts.profile) console.log(`CPU profiles: ${path.relative(ROOT, profileDir)}  (summarise with: node bench/profile.js <file.cpuprofile>)`);
  } finally {
    await pg?.stop().catch(() => undefined);
    killAllChildren();
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.stack : err);
  killAllChildren();
  process.exit(1);
});
