#!/usr/bin/env node
/**
 * One load run with autocannon, in its own process (never the server's). Prints one JSON line
 * with the figures on stdout. The bench runs it twice: a warm-up, then the measured run.
 *
 * Usage: node bench/lib/load.js '<json spec>'
 *   spec: { url, workload, duration, connections, params }
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

export const DEMO_KEY = 'sk_sandbox_demo_merchant_key';
export const DEMO_PAYEE = 'DEMO-MERCHANT-1';

const spec = JSON.parse(process.argv[2]);
const params = spec.params ?? {};
const JSON_HEADERS = { 'content-type': 'application/json' };
// A soak drives other merchants too (params.key, params.payee); the demo merchant by default.
const KEYED = { 'service-api-key': params.key ?? DEMO_KEY };
const PAYEE = params.payee ?? DEMO_PAYEE;
const KEYED_JSON = { ...KEYED, ...JSON_HEADERS };

/** Unique per process, so two runs against one store never collide on merchant_ref_no. */
const runId = `${process.pid.toString(36)}${Date.now().toString(36)}`;
let counter = 0;
const nextRef = () => `bench-${runId}-${++counter}`;

/** A create body of about 200 bytes, like the bare POST body. */
const createBody = () =>
  JSON.stringify({
    payee: PAYEE,
    product_type: 'QR_DYNAMIC',
    merchant_ref_no: nextRef(),
    amount: 10.5,
    currency_code: 'SGD',
    metadata: { order: 'A-1001', channel: 'web' },
  });

const BARE_BODY = JSON.stringify({
  payee: DEMO_PAYEE,
  product_type: 'QR_DYNAMIC',
  merchant_ref_no: 'bench-bare-0000000000-000001',
  amount: 10.5,
  currency_code: 'SGD',
  metadata: { order: 'A-1001', channel: 'web' },
});

function cycle(list) {
  let i = 0;
  return () => list[i++ % list.length];
}

const listFromFile = (key) => JSON.parse(readFileSync(params.listFile, 'utf8'))[key];

const PAYMENTS = '/openapi/v1/payments/payment';

/** Each workload: the requests one virtual client (connection) repeats. */
const WORKLOADS = {
  'bare-get': () => [{ method: 'GET', path: '/json' }],
  'bare-post': () => [{ method: 'POST', path: '/json', headers: JSON_HEADERS, body: BARE_BODY }],
  'bare-png': () => [{ method: 'GET', path: '/png' }],
  'floor-get': () => [{ method: 'GET', path: '/logged' }],
  'floor-post': () => [{ method: 'POST', path: '/logged', headers: JSON_HEADERS, setupRequest: (req) => ({ ...req, body: createBody() }) }],
  status: () => {
    const nextId = cycle(listFromFile('ids'));
    return [{ method: 'GET', headers: KEYED, setupRequest: (req) => ({ ...req, path: `${PAYMENTS}/${nextId()}` }) }];
  },
  create: () => [{ method: 'POST', path: PAYMENTS, headers: KEYED_JSON, setupRequest: (req) => ({ ...req, body: createBody() }) }],
  mixed: () => {
    const withId = (suffix, body) => (req, context) => (context.id ? { ...req, path: suffix(context.id), ...(body ? { body } : {}) } : null);
    return [
      {
        method: 'POST',
        path: PAYMENTS,
        headers: KEYED_JSON,
        setupRequest: (req) => ({ ...req, body: createBody() }),
        onResponse: (status, body, context) => {
          context.id = status === 200 ? JSON.parse(body).payment_id : undefined;
        },
      },
      { method: 'POST', headers: KEYED_JSON, setupRequest: withId((id) => `${PAYMENTS}/${id}/assign`, JSON.stringify({ payer: 'bench-payer-1' })) },
      { method: 'POST', headers: KEYED_JSON, setupRequest: withId((id) => `/sandbox/v1/payments/${id}/pay`, '{}') },
      { method: 'GET', headers: KEYED, setupRequest: withId((id) => `${PAYMENTS}/${id}`) },
    ];
  },
  qr: () => {
    const tokens = listFromFile('tokens');
    const nextToken = cycle(params.distinct ? tokens.slice(0, params.distinct) : tokens);
    return [{ method: 'GET', setupRequest: (req) => ({ ...req, path: `/sandbox/v1/qr/${nextToken()}?format=${params.format}` }) }];
  },
};

async function run(duration) {
  const requests = WORKLOADS[spec.workload]();
  // A fixed rate (--rate, for profiling) keeps the server below saturation, so samples show work, not waiting.
  const rate = spec.rate ? { overallRate: spec.rate } : {};
  return autocannon({ url: spec.url, connections: spec.connections, duration, requests, timeout: 10, ...rate });
}

const r = await run(spec.duration);
const statusCounts = Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([code, s]) => [code, s.count]));
console.log(
  JSON.stringify({
    reqPerSec: r.requests.total / r.duration,
    reqPerSecAvg: r.requests.average,
    latency: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max, mean: r.latency.average },
    total: r.requests.total,
    duration: r.duration,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCounts,
  }),
);
