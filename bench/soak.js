#!/usr/bin/env node
/**
 * The soak (issue 10, defect 3): a sandbox started as `npm start` starts it, under a steady mixed
 * load (create, assign, pay, status) from two merchants whose webhooks can never be delivered:
 * one URL hangs (a server that reads the request and never answers) and one refuses (a closed
 * port). Every flow queues three deliveries that fail and are retried. RSS and the server's open
 * sockets are sampled every 5 s; the target is RSS at most 300 MB for the whole run, with the
 * sockets bounded by the delivery caps.
 *
 *   npm run bench -- --soak            # 10 minutes
 *   npm run bench -- --soak 2          # 2 minutes
 */
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { freePort, killAllChildren, memoryOf, runLoad, startServer, cpuMsOf } from './lib/processes.js';

const RSS_TARGET_MB = 300;
const SAMPLE_MS = 5000;

/** Open sockets of a process (its fds that are sockets). */
function socketsOf(pid) {
  let n = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) n++;
    } catch {
      // closed while we looked
    }
  }
  return n;
}

/** A webhook target that takes the connection, reads the request and never answers. */
async function hangingTarget() {
  const held = new Set();
  const server = http.createServer((req, res) => {
    held.add(res);
    req.resume();
    res.on('close', () => held.delete(res));
  });
  server.keepAliveTimeout = 0;
  server.requestTimeout = 0;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/hooks`,
    held: () => held.size,
    close: () => {
      for (const res of held) res.destroy();
      server.close();
    },
  };
}

async function call(base, method, route, key, body) {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: { 'Service-Api-Key': key, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json();
  if (res.status !== 200) throw new Error(`${method} ${route} answered ${res.status}: ${json.description}`);
  return json;
}

/** The rate of the hostile run that found defect 3 (about 340 requests per second in all). */
const RATE_PER_MERCHANT = 170;

export async function soak({ minutes = 10, rate = RATE_PER_MERCHANT, log = console.log } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'payreq-soak-'));
  const hanging = await hangingTarget();
  // Nothing listens on a port just released: every delivery there is refused.
  const refusing = `http://127.0.0.1:${await freePort()}/hooks`;
  const server = await startServer({ kind: 'sandbox', dataFile: path.join(dir, 's.json') });
  try {
    const demo = { key: 'sk_sandbox_demo_merchant_key', payee: 'DEMO-MERCHANT-1' };
    const enrolled = await call(server.url, 'POST', '/sandbox/v1/merchants', '', { name: 'Soak' });
    const second = { key: enrolled.api_key, payee: enrolled.payee_id };
    if (!process.env.SOAK_NO_WEBHOOKS) {
      await call(server.url, 'PUT', '/sandbox/v1/webhook', demo.key, { url: hanging.url });
      await call(server.url, 'PUT', '/sandbox/v1/webhook', second.key, { url: refusing });
    }

    const samples = [];
    const sample = () => {
      const s = { at: samples.length * (SAMPLE_MS / 1000), ...memoryOf(server.pid), sockets: socketsOf(server.pid), held: hanging.held() };
      samples.push(s);
      return s;
    };
    const started = Date.now();
    const cpuBefore = cpuMsOf(server.pid);
    log(`soak: ${minutes} min of mixed load, ${rate} req/s from each of 2 merchants, webhooks to a hanging and a refusing target`);
    log(`soak: start RSS ${sample().rssMB.toFixed(0)} MB`);
    const timer = setInterval(() => {
      const s = sample();
      if (samples.length % 6 === 0) log(`soak: ${Math.round((Date.now() - started) / 1000)} s  RSS ${s.rssMB.toFixed(0)} MB  sockets ${s.sockets}  held by the hanging target ${s.held}`);
    }, SAMPLE_MS);
    const duration = minutes * 60;
    const loads = await Promise.all(
      [demo, second].map((m) => runLoad({ url: server.url, workload: 'mixed', duration, connections: 20, rate, params: m })),
    );
    clearInterval(timer);
    const end = sample();
    const deliveries = await call(server.url, 'GET', '/sandbox/v1/webhook/deliveries?limit=200', demo.key);
    const health = await fetch(`${server.url}/healthz`);
    const requests = loads.reduce((n, l) => n + l.total, 0);
    const result = {
      minutes,
      requests,
      reqPerSec: requests / duration,
      non2xx: loads.reduce((n, l) => n + l.non2xx, 0),
      errors: loads.reduce((n, l) => n + l.errors, 0),
      cpuUsPerReq: ((cpuMsOf(server.pid) - cpuBefore) * 1000) / requests,
      rssStartMB: samples[0].rssMB,
      rssMaxMB: Math.max(...samples.map((s) => s.rssMB)),
      rssEndMB: end.rssMB,
      socketsMax: Math.max(...samples.map((s) => s.sockets)),
      heldMax: Math.max(...samples.map((s) => s.held)),
      deliveriesListed: deliveries.deliveries.length,
      healthz: health.status,
    };
    log(
      `soak: ${result.requests} requests (${result.reqPerSec.toFixed(0)} req/s, ${result.non2xx} non-2xx, ${result.errors} errors), ` +
        `RSS ${result.rssStartMB.toFixed(0)} -> max ${result.rssMaxMB.toFixed(0)} MB (target <= ${RSS_TARGET_MB}), end ${result.rssEndMB.toFixed(0)} MB, ` +
        `sockets max ${result.socketsMax}, held by the hanging target max ${result.heldMax}, /healthz ${result.healthz}`,
    );
    log(`soak: ${result.rssMaxMB <= RSS_TARGET_MB ? 'MET' : 'NOT MET'}: RSS <= ${RSS_TARGET_MB} MB`);
    return result;
  } finally {
    await server.stop();
    hanging.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const minutes = Number(process.argv[2] ?? 10);
  soak({ minutes })
    .catch((err) => {
      console.error(err);
      process.exitCode = 1;
    })
    .finally(killAllChildren);
}
