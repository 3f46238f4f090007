/**
 * The PostgreSQL side of the bench (issue 9): one throw-away cluster per bench run
 * (startPostgres from dist/dev/local-postgres.js, fsync on: the durability a 2xx promises), a
 * fresh database per workload, seeded through the compiled PostgresStore with the same payments
 * the file store gets (so the status workload reads the same ids), and the cluster's CPU time.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import postgres from 'postgres';
import { cpuMsOf } from './processes.js';

const dist = (p) => new URL(`../../dist/${p}`, import.meta.url).href;

/** Starts the cluster; answers { url, freshDatabase(seed), cpuMs(), stop() }. */
export async function startBenchPostgres() {
  const { startPostgres } = await import(dist('dev/local-postgres.js'));
  const server = await startPostgres(); // not { fast: true }: fsync and synchronous_commit stay on
  const admin = postgres(server.url, { max: 1, onnotice: () => {} });
  const postmasterPid = Number(readFileSync(path.join(server.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  let serial = 0;
  return {
    url: server.url,
    postmasterPid,
    /** A new, empty database (schema and demo merchants written by the store), then `seed` payments in it. */
    async freshDatabase(seed) {
      const name = `bench_${++serial}`;
      await admin.unsafe(`CREATE DATABASE ${name}`);
      const url = new URL(server.url);
      url.pathname = `/${name}`;
      await seedPostgres(url.href, seed);
      return url.href;
    },
    /** CPU time of the whole cluster so far (postmaster, its live children, and the children it has reaped), in ms. */
    cpuMs: () => clusterCpuMs(postmasterPid),
    async stop() {
      await admin.end({ timeout: 1 }).catch(() => undefined);
      await server.stop();
    },
  };
}

/** Writes the seed's merchants and payments through the store's own insert (as create stores a payment). */
async function seedPostgres(url, seed) {
  const { PostgresStore } = await import(dist('store/postgres-store.js'));
  const store = new PostgresStore({ url, maxConnections: 8 });
  try {
    await store.open();
    for (const merchant of seed?.merchants ?? []) await store.saveMerchant(merchant);
    const payments = seed?.payments ?? [];
    for (let i = 0; i < payments.length; i += 64) {
      const results = await Promise.all(payments.slice(i, i + 64).map((p) => store.insertPayment(p)));
      const bad = results.find((r) => r !== 'inserted');
      if (bad) throw new Error(`seeding PostgreSQL: insertPayment answered ${bad}`);
    }
  } finally {
    await store.close();
  }
}

const CLOCK_TICKS = 100;

/** utime + stime of the postmaster and its live children, plus cutime + cstime (children already reaped). */
function clusterCpuMs(postmasterPid) {
  const fields = (pid) => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  };
  const own = fields(postmasterPid);
  // Fields after the name: ppid is the 2nd, utime..cstime the 12th to 15th.
  let ms = cpuMsOf(postmasterPid) + ((Number(own[13]) + Number(own[14])) * 1000) / CLOCK_TICKS;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (Number(fields(entry)[1]) === postmasterPid) ms += cpuMsOf(entry);
    } catch {
      // gone meanwhile
    }
  }
  return ms;
}
