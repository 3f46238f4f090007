/**
 * The request latency histogram, counted in plain arrays per label set and handed to prom-client
 * (which formats and serves it) only when scraped. prom-client's own Histogram validates and
 * hashes the label object on every observe; on the hottest path of every request that was most
 * of what /metrics cost a status read (bench: status with metrics 0.94 x without, see bench/README.md).
 */
import type { MetricValueWithName } from 'prom-client';

interface Series {
  readonly method: string;
  readonly route: string;
  readonly status: string;
  /** Per bucket (and one past the last, for +Inf): the requests that fell in it, not cumulative. */
  readonly counts: number[];
  sum: number;
  count: number;
}

type Sample = MetricValueWithName<string>;

export class RequestLatencyHistogram {
  readonly type = 'histogram' as const;
  readonly aggregator = 'sum' as const;
  private readonly series = new Map<string, Series>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly buckets: readonly number[],
  ) {}

  observe(method: string, route: string, status: string, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = { method, route, status, counts: new Array<number>(this.buckets.length + 1).fill(0), sum: 0, count: 0 }));
    let i = 0;
    while (i < this.buckets.length && seconds > this.buckets[i]!) i++;
    s.counts[i]!++;
    s.sum += seconds;
    s.count++;
  }

  /** What prom-client's registry formats: the same samples its Histogram would give. */
  async get(): Promise<{ name: string; help: string; type: 'histogram'; values: Sample[]; aggregator: 'sum' }> {
    const values: Sample[] = [];
    for (const s of this.series.values()) {
      const labels = { method: s.method, route: s.route, status: s.status };
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += s.counts[i]!;
        values.push({ metricName: `${this.name}_bucket`, labels: { le, ...labels }, value: cumulative });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { le: '+Inf', ...labels }, value: s.count });
      values.push({ metricName: `${this.name}_sum`, labels, value: s.sum });
      values.push({ metricName: `${this.name}_count`, labels, value: s.count });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}
