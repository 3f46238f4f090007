#!/usr/bin/env node
/**
 * The load of the scale workload (bench/scale.js), in its own process: many merchants, each
 * creating a payment and then polling it a few times, over and over, at a steady total rate.
 * Prints one JSON line with the figures on stdout.
 *
 * Not autocannon: its rate limit releases each connection's quota at the start of every second
 * (a burst a second, not a steady rate), it keeps one latency histogram for every kind of
 * request, and the limit check needs the send and answer time of each request of a limited key.
 *
 * Usage: node bench/lib/scale-load.js '<json spec>'
 *   spec: { urls, merchantsFile, rate, duration, warmup, polls, pollIntervalMs, connections, timeoutMs }
 *   merchantsFile: [{ key, payee, limit }] (limit: the key's rate_limit_per_second, 0 for none)
 */
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { mostSurelyWithinASecond } from './limit-check.js';

const PAYMENTS = '/openapi/v1/payments/payment';

const spec = JSON.parse(process.argv[2]);
const merchants = JSON.parse(readFileSync(spec.merchantsFile, 'utf8'));
// With a timeout set, Node 20's agent drops an idle socket 1 s before the server's `Keep-Alive: timeout=5` (without one it ignores the hint and can reuse a closing socket: ECONNRESET).
const agentOptions = { keepAlive: true, maxSockets: spec.connections, timeout: spec.timeoutMs };
const targets = spec.urls.map((u) => ({ url: new URL(u), agent: new http.Agent(agentOptions) }));
/** Wall-clock milliseconds with sub-millisecond steps, comparable with the server's Date.now(). */
const wallNow = () => performance.timeOrigin + performance.now();

const runId = `${process.pid.toString(36)}${Date.now().toString(36)}`;
let refs = 0;

const stats = {
  requests: 0,
  statuses: { create: {}, poll: {} },
  latencies: { create: [], poll: [] },
  errors: 0,
  errorSamples: [],
  refused: 0,
  flows: 0,
  skipped: 0,
  perInstance: targets.map(() => 0),
};
/** Per limited merchant: [sentAt, answeredAt] of each request the server let through. */
const admitted = new Map();

/** One request of `merchant`, each to the next instance in turn: a merchant's requests reach every instance alike. */
function send(merchant, method, path, body) {
  const at = (merchant.sent = (merchant.sent ?? 0) + 1) % targets.length;
  stats.perInstance[at]++;
  const target = targets[at];
  const key = merchant.key;
  const sentAt = wallNow();
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: target.url.hostname,
        port: target.url.port,
        method,
        path,
        agent: target.agent,
        headers: { 'service-api-key': key, ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}) },
        timeout: spec.timeoutMs,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode, text, sentAt, answeredAt: wallNow() }));
        res.on('error', (err) => resolve({ status: 0, text: String(err), sentAt, answeredAt: wallNow() }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${spec.timeoutMs} ms`)));
    req.on('error', (err) => resolve({ status: 0, text: String(err.message ?? err), sentAt, answeredAt: wallNow() }));
    req.end(body);
  });
}

/** Counts an answer; a 429 is expected only for a key with a limit, every other non-2xx is an error. */
function record(kind, merchant, answer, measured) {
  stats.requests++;
  const counts = stats.statuses[kind];
  counts[answer.status] = (counts[answer.status] ?? 0) + 1;
  const ok = answer.status >= 200 && answer.status < 300;
  if (ok && measured) stats.latencies[kind].push(answer.answeredAt - answer.sentAt);
  if (ok && merchant.limit > 0) admitted.get(merchant.key).push([answer.sentAt, answer.answeredAt]);
  if (answer.status === 429 && merchant.limit > 0) stats.refused++;
  else if (!ok) {
    stats.errors++;
    if (stats.errorSamples.length < 5) stats.errorSamples.push(`${kind} ${answer.status}: ${answer.text.slice(0, 300)}`);
  }
  return ok;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** One merchant's turn: create a payment, then poll it `polls` times, `pollIntervalMs` apart. */
async function flow(merchant, measured) {
  const body = JSON.stringify({
    payee: merchant.payee,
    product_type: 'QR_DYNAMIC',
    merchant_ref_no: `scale-${runId}-${++refs}`,
    amount: 10.5,
    currency_code: 'SGD',
    metadata: { order: 'A-1001', channel: 'web' },
  });
  const created = await send(merchant, 'POST', PAYMENTS, body);
  if (!record('create', merchant, created, measured())) return;
  const id = JSON.parse(created.text).payment_id;
  for (let i = 0; i < spec.polls; i++) {
    await sleep(spec.pollIntervalMs);
    record('poll', merchant, await send(merchant, 'GET', `${PAYMENTS}/${id}`), measured());
  }
}

const percentile = (sorted, p) => (sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]);
function summary(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const round = (x) => (x === null ? null : Math.round(x * 100) / 100);
  return { count: s.length, p50: round(percentile(s, 50)), p90: round(percentile(s, 90)), p99: round(percentile(s, 99)), max: round(s.at(-1) ?? null) };
}

async function run() {
  for (const m of merchants) if (m.limit > 0) admitted.set(m.key, []);
  // Flows start evenly over time, merchants in turn; a merchant whose last flow is still running waits for its next turn.
  const flowsPerSecond = spec.rate / (1 + spec.polls);
  const busy = new Set();
  const running = new Set();
  const began = performance.now();
  const elapsed = () => (performance.now() - began) / 1000;
  const measured = () => elapsed() >= spec.warmup;
  let turn = 0;
  await new Promise((resolve) => {
    const tick = setInterval(() => {
      if (elapsed() >= spec.duration) {
        clearInterval(tick);
        resolve(undefined);
        return;
      }
      const due = Math.floor(elapsed() * flowsPerSecond);
      while (stats.flows + stats.skipped < due) {
        const index = turn++ % merchants.length;
        if (busy.has(index)) {
          stats.skipped++;
          continue;
        }
        busy.add(index);
        stats.flows++;
        const p = flow(merchants[index], measured).finally(() => {
          busy.delete(index);
          running.delete(p);
        });
        running.add(p);
      }
    }, 5);
  });
  // The flows under way finish (bounded by their requests' timeout).
  await Promise.all(running);
  const seconds = elapsed();
  let most = 0;
  let limitedAdmitted = 0;
  const over = [];
  for (const m of merchants) {
    if (!(m.limit > 0)) continue;
    const spans = admitted.get(m.key);
    limitedAdmitted += spans.length;
    const n = mostSurelyWithinASecond(spans);
    most = Math.max(most, n);
    if (n > m.limit) over.push({ payee: m.payee, limit: m.limit, admittedWithinASecond: n });
  }
  for (const t of targets) t.agent.destroy();
  return {
    seconds,
    requests: stats.requests,
    reqPerSec: stats.requests / seconds,
    flows: stats.flows,
    skippedTurns: stats.skipped,
    statuses: stats.statuses,
    perInstance: stats.perInstance,
    errors: stats.errors,
    errorSamples: stats.errorSamples,
    latency: { create: summary(stats.latencies.create), poll: summary(stats.latencies.poll) },
    limited: {
      merchants: admitted.size,
      admitted: limitedAdmitted,
      refused429: stats.refused,
      mostAdmittedWithinASecond: most,
      overTheLimit: over,
    },
  };
}

console.log(JSON.stringify(await run()));
