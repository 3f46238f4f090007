#!/usr/bin/env node
/**
 * The scale workload (SPEC 19, "Scale"): one sandbox started as `npm start` starts it (file
 * store, every feature on), or two instances on one PostgreSQL database, serving 1,000
 * merchants at once. Each merchant creates a payment and polls it a few times, over and over, at
 * a steady total rate, from a load process of its own (lib/scale-load.js); some merchants have a
 * rate_limit_per_second, and their answers show whether the limit held. Prints requests, errors,
 * p50/p99 of creates and of polls, server RSS at start, peak and end, and CPU per request.
 *
 *   npm run bench -- --scale                      # file store, 1,000 merchants, 60 s
 *   npm run bench -- --scale --store postgres     # two instances on one PostgreSQL database
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBenchPostgres } from './lib/postgres.js';
import { killAllChildren, memoryOf, runLoad, startServer } from './lib/processes.js';

const SCALE_LOAD = fileURLToPath(new URL('./lib/scale-load.js', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));

export const SCALE_DEFAULTS = {
  merchants: 1000,
  // Every 20th merchant has a limit below what its flow sends (a create and 3 polls 100 ms apart).
  limitedEvery: 20,
  limit: 2,
  // Requests per second in all: about a third of what one file-store instance takes on 2 quiet cores.
  rate: 1000,
  // On PostgreSQL the database, two instances and the load share the same cores.
  postgresRate: 500,
  duration: 60,
  warmup: 5,
  polls: 3,
  pollIntervalMs: 100,
  connections: 64,
  timeoutMs: 10_000,
};

/** Enrolls `count` merchants, a few at a time, spread over the instances; answers [{ key, payee, limit }]. */
async function enrollMerchants(urls, count, limitOf) {
  const merchants = new Array(count);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const limit = limitOf(i);
      const res = await fetch(`${urls[i % urls.length]}/sandbox/v1/merchants`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Scale Shop ${i + 1}`, ...(limit > 0 ? { rate_limit_per_second: limit } : {}) }),
      });
      const body = await res.json();
      if (res.status !== 200) throw new Error(`enrolling merchant ${i + 1} answered ${res.status}: ${body.description}`);
      merchants[i] = { key: body.api_key, payee: body.payee_id, limit };
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return merchants;
}

const totalRss = (servers) => servers.reduce((sum, s) => sum + s.memory().rssMB, 0);

/**
 * One run of the workload. `postgres`: { freshDatabase(): Promise<url>, cpuMs?() } to run
 * `instances` (2 by default) on one new database; the file store otherwise (one instance).
 */
export async function runScale(options = {}) {
  const o = { ...SCALE_DEFAULTS, ...(options.postgres ? { rate: SCALE_DEFAULTS.postgresRate } : {}), ...options };
  o.warmup = Math.min(o.warmup, o.duration / 4);
  const log = o.log ?? (() => {});
  const postgres = o.postgres;
  const instances = postgres ? (o.instances ?? 2) : 1;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'payreq-scale-'));
  const servers = [];
  try {
    const store = postgres ? await postgres.freshDatabase() : undefined;
    // The enrolment limit (10 a minute per client) is off: the bench enrolls every merchant from one address.
    for (let i = 0; i < instances; i++) {
      servers.push(await startServer({ kind: 'sandbox', dataFile: path.join(dir, `s${i}.json`), store, env: { SANDBOX_ENROLL_LIMIT: '0' } }));
    }
    const urls = servers.map((s) => s.url);
    const rssStartMB = totalRss(servers);
    const enrolStarted = performance.now();
    const limitOf = (i) => (o.limitedEvery > 0 && i % o.limitedEvery === o.limitedEvery - 1 ? o.limit : 0);
    const merchants = await enrollMerchants(urls, o.merchants, limitOf);
    const enrolMs = performance.now() - enrolStarted;
    const rssEnrolledMB = totalRss(servers);
    log(`scale: ${o.merchants} merchants enrolled in ${(enrolMs / 1000).toFixed(1)} s (${merchants.filter((m) => m.limit > 0).length} limited to ${o.limit}/s); RSS ${rssStartMB.toFixed(0)} -> ${rssEnrolledMB.toFixed(0)} MB`);
    const merchantsFile = path.join(dir, 'merchants.json');
    writeFileSync(merchantsFile, JSON.stringify(merchants));

    // RSS sampled while the load runs; VmHWM (the kernel's peak) is read at the end as well.
    let rssPeakSampledMB = rssEnrolledMB;
    const sampler = setInterval(() => (rssPeakSampledMB = Math.max(rssPeakSampledMB, totalRss(servers))), 250);
    const cpuBefore = servers.reduce((sum, s) => sum + s.cpuMs(), 0);
    const pgBefore = postgres?.cpuMs?.();
    log(`scale: ${o.duration} s at ${o.rate} req/s: each merchant creates a payment, then polls it ${o.polls} times ${o.pollIntervalMs} ms apart, over ${instances} instance(s)`);
    let load;
    try {
      load = await runLoad(
        {
          workload: 'scale',
          urls,
          merchantsFile,
          rate: o.rate,
          duration: o.duration,
          warmup: o.warmup,
          polls: o.polls,
          pollIntervalMs: o.pollIntervalMs,
          connections: o.connections,
          timeoutMs: o.timeoutMs,
        },
        SCALE_LOAD,
      );
    } finally {
      clearInterval(sampler);
    }
    const perRequest = (ms) => (ms * 1000) / Math.max(load.requests, 1);
    const cpuUsPerReq = perRequest(servers.reduce((sum, s) => sum + s.cpuMs(), 0) - cpuBefore);
    const pgCpuUsPerReq = pgBefore === undefined ? undefined : perRequest(postgres.cpuMs() - pgBefore);
    const memories = servers.map((s) => s.memory());
    const result = {
      store: postgres ? 'postgres' : 'file',
      instances,
      options: { ...o, log: undefined, postgres: undefined },
      enrolMs,
      ...load,
      cpuUsPerReq,
      pgCpuUsPerReq,
      rss: {
        startMB: rssStartMB,
        enrolledMB: rssEnrolledMB,
        peakMB: Math.max(rssPeakSampledMB, memories.reduce((sum, m) => sum + m.peakMB, 0)),
        endMB: memories.reduce((sum, m) => sum + m.rssMB, 0),
        perInstanceEndMB: memories.map((m) => m.rssMB),
      },
    };
    result.problems = problemsOf(result);
    return result;
  } finally {
    for (const s of servers) await s.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What makes a run fail: an unexpected answer, no 429 at all for the limited keys, or a limit surely broken. */
function problemsOf(r) {
  const problems = [];
  if (r.errors > 0) problems.push(`${r.errors} answers were errors (non-2xx other than a limited key's 429): ${r.errorSamples.join(' | ')}`);
  if (r.limited.merchants > 0 && r.limited.refused429 === 0) problems.push('no 429 at all: the limited merchants were never refused, so the limit was not tried');
  for (const m of r.limited.overTheLimit) problems.push(`${m.payee} (limit ${m.limit}/s) had ${m.admittedWithinASecond} requests let through within one second`);
  if (r.requests === 0) problems.push('no request was answered');
  return problems;
}

/** The printed lines of a result. */
export function describeScale(r) {
  const ms = (x) => (x === null ? '-' : `${x.toFixed(1)} ms`);
  const where = r.store === 'postgres' ? `PostgreSQL, ${r.instances} instances on one database` : 'file store, one instance';
  const rss = r.instances > 1 ? ` (all ${r.instances} together; each at the end ${r.rss.perInstanceEndMB.map((x) => x.toFixed(0)).join(' / ')} MB)` : '';
  return [
    `scale (${where}): ${r.options.merchants} merchants, ${r.requests} requests in ${r.seconds.toFixed(1)} s (${r.reqPerSec.toFixed(0)} req/s, ${r.flows} create-and-poll flows${r.instances > 1 ? `; ${r.perInstance.join(' / ')} per instance` : ''})`,
    `  errors ${r.errors} (non-2xx other than the limited keys' 429)  429s ${r.limited.refused429} for the ${r.limited.merchants} merchants limited to ${r.options.limit}/s  most let through within one second ${r.limited.mostAdmittedWithinASecond}`,
    `  create p50 ${ms(r.latency.create.p50)} p99 ${ms(r.latency.create.p99)}  poll p50 ${ms(r.latency.poll.p50)} p99 ${ms(r.latency.poll.p99)}  (2xx answers after a ${r.options.warmup} s warm-up)`,
    `  server RSS start ${r.rss.startMB.toFixed(0)} MB, ${r.options.merchants} enrolled ${r.rss.enrolledMB.toFixed(0)} MB, peak ${r.rss.peakMB.toFixed(0)} MB, end ${r.rss.endMB.toFixed(0)} MB${rss}`,
    `  server CPU ${r.cpuUsPerReq.toFixed(0)} us/req${r.pgCpuUsPerReq === undefined ? '' : `  PostgreSQL ${r.pgCpuUsPerReq.toFixed(0)} us/req`}  load avg ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`,
    r.problems.length === 0 ? '  OK: no errors, and the limit held' : `  FAILED: ${r.problems.join('; ')}`,
  ];
}

/** `npm run bench -- --scale [--store file|postgres] [--merchants N] [--rate R] [--duration S] [--instances N]` */
export async function scaleCommand(argv) {
  const value = (name) => {
    const i = argv.indexOf(name);
    return i === -1 ? undefined : argv[i + 1];
  };
  const store = value('--store') ?? 'file';
  if (store !== 'file' && store !== 'postgres') throw new Error(`--store takes file or postgres, not ${JSON.stringify(store)}`);
  const numbers = {};
  for (const name of ['merchants', 'rate', 'duration', 'instances']) {
    const given = value(`--${name}`);
    if (given === undefined) continue;
    if (!/^\d+$/.test(given) || Number(given) < 1) throw new Error(`--${name} takes a whole number of at least 1, not ${JSON.stringify(given)}`);
    numbers[name] = Number(given);
  }
  if (numbers.instances !== undefined && store !== 'postgres') throw new Error('--instances needs --store postgres: one file-store instance owns its data file');
  const log = (line) => process.stderr.write(`${line}\n`);
  const pg = store === 'postgres' ? await startBenchPostgres() : undefined;
  try {
    const result = await runScale({ ...numbers, log, postgres: pg && { freshDatabase: () => pg.freshDatabase(), cpuMs: () => pg.cpuMs() } });
    for (const line of describeScale(result)) console.log(line);
    const results = path.join(ROOT, 'bench', 'results');
    mkdirSync(results, { recursive: true });
    const file = path.join(results, `scale-${store}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, JSON.stringify({ ...result, loadavg: os.loadavg(), cpus: os.cpus().length, node: process.version }, null, 2));
    console.log(`results: ${path.relative(ROOT, file)}`);
    if (result.problems.length > 0) process.exitCode = 1;
  } finally {
    await pg?.stop().catch(() => undefined);
    killAllChildren();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  scaleCommand(process.argv.slice(2)).catch((err) => {
    console.error(err instanceof Error ? err.stack : err);
    killAllChildren();
    process.exit(1);
  });
}
