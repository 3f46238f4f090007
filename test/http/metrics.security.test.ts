/**
 * SPEC 18: /metrics stays small whatever clients send. Every status 100-599 injected by
 * Sandbox-Fault (error= and error-after-commit=), odd methods and random paths leave the label
 * values within fixed sets, and a second such flood adds no series.
 */
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { METHOD_LABELS, STATUS_LABELS } from '../../src/services/metrics.js';
import { call, createPayment, memorySandbox, sandboxPerTest } from '../support/http.js';

interface Series {
  readonly method: string;
  readonly route: string;
  readonly status: string;
}

async function scrape(sandbox: Sandbox): Promise<{ text: string; series: Series[] }> {
  const text = await (await sandbox.fetch(new Request('http://sandbox.test/metrics'))).text();
  const series: Series[] = [];
  for (const line of text.split('\n')) {
    const m = /^payreq_http_requests_total\{method="([^"]*)",route="([^"]*)",status="([^"]*)"\}/.exec(line);
    if (m) series.push({ method: m[1]!, route: m[2]!, status: m[3]! });
  }
  return { text, series };
}

/** Every status 100-599 as error= on create and as error-after-commit= on a status read, odd methods, random paths. */
async function flood(sandbox: Sandbox, round: number): Promise<void> {
  const { payment_id } = await createPayment(sandbox);
  for (let status = 100; status <= 599; status++) {
    await call(sandbox, 'POST', '/openapi/v1/payments/payment', { body: { merchant_ref_no: `flood-${round}-${status}` }, headers: { 'Sandbox-Fault': `error=${status}` } });
    await call(sandbox, 'GET', `/openapi/v1/payments/payment/${payment_id}`, { headers: { 'Sandbox-Fault': `error-after-commit=${status}` } });
  }
  for (let i = 0; i < 40; i++) {
    const method = ['PROPFIND', 'MKCOL', 'BREW', `X-${round}-${i}`, 'PATCH', 'OPTIONS'][i % 6]!;
    await call(sandbox, method, i % 2 ? `/openapi/v1/payments/payment/${payment_id}` : `/nowhere/${round}/${i}`);
    await call(sandbox, 'GET', `/openapi/v1/payments/payment/pay_${round}_${i}/${i}`);
  }
}

function expectFixedLabels(sandbox: Sandbox, series: readonly Series[]): void {
  const routes = new Set([...sandbox.app.routes.map((r) => r.path), 'unmatched']);
  const statuses = new Set([...STATUS_LABELS, 'injected', 'dropped', 'other']);
  for (const s of series) {
    expect(METHOD_LABELS.has(s.method) || s.method === 'other', s.method).toBe(true);
    expect(routes.has(s.route) && !s.route.endsWith('*'), s.route).toBe(true);
    expect(statuses.has(s.status), s.status).toBe(true);
  }
}

describe('/metrics under a flood of injected statuses, odd methods and random paths', () => {
  const each = sandboxPerTest();

  it('labels only fixed values, and a second flood adds no series and barely a byte', async () => {
    await scrape(each.sandbox);
    await flood(each.sandbox, 1);
    const first = await scrape(each.sandbox);
    expectFixedLabels(each.sandbox, first.series);
    const labels = (s: Series) => `${s.method} ${s.route} ${s.status}`;
    const seen = new Set(first.series.map(labels));
    // What the sandbox answers by itself keeps its number; statuses it would never answer are one label.
    expect(seen).toContain('POST /openapi/v1/payments/payment 503');
    expect(seen).toContain('POST /openapi/v1/payments/payment injected');
    expect(seen).toContain('GET /openapi/v1/payments/payment/:payment_id injected');
    expect(seen).toContain('other unmatched 404');
    expect([...seen].some((l) => / 4(18|99)$| 5(99|42)$|PROPFIND|BREW|X-1/.test(l))).toBe(false);
    // Two routes × (14 catalogue statuses + 303/304/414 + injected) at most, plus the odd methods and paths.
    expect(first.series.length).toBeLessThanOrEqual(60);
    expect(first.text.length).toBeLessThan(120_000);
    console.log(`after one flood: ${first.series.length} series, ${first.text.length} bytes`);

    await flood(each.sandbox, 2);
    const second = await scrape(each.sandbox);
    expect(second.series.map(labels).sort()).toEqual([...seen].sort());
    // Only the counts' digits grow.
    expect(second.text.length).toBeLessThan(first.text.length * 1.05);
  });

  it('counts a dropped connection as dropped, not as its stand-in status', async () => {
    const { payment_id } = await createPayment(each.sandbox);
    await expect(each.sandbox.fetch(new Request(`http://sandbox.test/openapi/v1/payments/payment/${payment_id}`, { headers: { 'Service-Api-Key': 'sk_sandbox_demo_merchant_key', 'Sandbox-Fault': 'drop' } }))).rejects.toThrow(/dropped/);
    const { series } = await scrape(each.sandbox);
    expect(series).toContainEqual({ method: 'GET', route: '/openapi/v1/payments/payment/:payment_id', status: 'dropped' });
    expect(series.some((s) => s.status === '599' || s.status === '204')).toBe(false);
  });
});

describe('/metrics with SANDBOX_HTTP_STATUS=always-200', () => {
  it('counts the HTTP status sent (200), and the flood stays within the fixed labels', async () => {
    const sandbox = await memorySandbox({ config: { httpStatusMode: 'always-200' } });
    try {
      await flood(sandbox, 1);
      const { series, text } = await scrape(sandbox);
      expectFixedLabels(sandbox, series);
      expect(new Set(series.map((s) => s.status))).toEqual(new Set(['200']));
      expect(series.length).toBeLessThanOrEqual(10);
      expect(text.length).toBeLessThan(40_000);
    } finally {
      await sandbox.close();
    }
  });
});
