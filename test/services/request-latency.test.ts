/** Our request latency histogram gives exactly the text prom-client's own Histogram gives for the same observations. */
import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RequestLatencyHistogram } from '../../src/services/request-latency.js';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

describe('RequestLatencyHistogram', () => {
  it('scrapes to the same Prometheus text as prom-client Histogram, bucket edges included', async () => {
    const theirs = new Registry();
    const reference = new Histogram({ name: 'h_seconds', help: 'h', labelNames: ['method', 'route', 'status'] as const, buckets: BUCKETS, registers: [theirs] });
    const ours = new Registry();
    const histogram = new RequestLatencyHistogram('h_seconds', 'h', BUCKETS);
    ours.registerMetric(histogram as never);

    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const routes = ['/openapi/v1/payments/payment', '/openapi/v1/payments/payment/:payment_id', 'unmatched'];
    const values = [...BUCKETS, 0, 20, ...Array.from({ length: 500 }, () => random() ** 3 * 12)];
    for (const [i, seconds] of values.entries()) {
      const method = i % 3 === 0 ? 'POST' : 'GET';
      const route = routes[i % routes.length]!;
      const status = [200, 404, 402][i % 2]!;
      reference.observe({ method, route, status: String(status) }, seconds);
      histogram.observe(method, route, String(status), seconds);
    }
    const sorted = async (r: Registry) => (await r.metrics()).split('\n').sort();
    expect(await sorted(ours)).toEqual(await sorted(theirs));
  });
});
