/**
 * The Prometheus metrics of one sandbox (prom-client), in a registry of its own so that two
 * sandboxes in one process never count into each other. Labels carry route patterns, statuses
 * and outcomes: never an id, a key or a raw path.
 */
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import { Code } from '../domain/codes.js';
import type { PaymentEvent } from '../domain/payment.js';
import { RequestLatencyHistogram } from './request-latency.js';

/**
 * The statuses the sandbox answers by itself: its code catalogue, 414 (a path over the limit),
 * the payer page's 303 and the QR image's 304. Any other status a client can only have injected
 * (Sandbox-Fault: error=418), so it is counted as `injected`: the label's values stay this set.
 */
export const STATUS_LABELS: ReadonlySet<string> = new Set([...Object.values(Code), 303, 304, 414].map(String));
/** The methods counted by name; any other a client sends (PROPFIND, MKCOL, ...) is counted as `other`. */
export const METHOD_LABELS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * The status label: one of STATUS_LABELS, `held` or `dropped` (an answer a timeout fault held
 * back, a connection a drop fault cut), `injected` (another status a fault gave) or (a status
 * nothing should answer) `other`.
 */
export function statusLabel(status: number | 'held' | 'dropped', injected: boolean): string {
  if (typeof status === 'string') return status;
  const label = String(status);
  if (STATUS_LABELS.has(label)) return label;
  return injected ? 'injected' : 'other';
}

export const methodLabel = (method: string): string => (METHOD_LABELS.has(method) ? method : 'other');

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class SandboxMetrics {
  readonly registry = new Registry();
  readonly latency = this.registered(
    new RequestLatencyHistogram('payreq_http_request_duration_seconds', 'Time to answer an HTTP request, by method, route pattern and status.', LATENCY_BUCKETS),
  );
  /** Read from the latency histogram's counts when scraped: one prom-client call per request instead of two. */
  readonly requests = new Counter({
    name: 'payreq_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
    collect: async () => {
      this.requests.reset();
      for (const sample of (await this.latency.get()).values) {
        if (sample.metricName === 'payreq_http_request_duration_seconds_count') this.requests.inc(sample.labels as Record<'method' | 'route' | 'status', string>, sample.value);
      }
    },
  });
  readonly payments = new Counter({
    name: 'payreq_payment_events_total',
    help: 'Payment events committed: created (to P or W) and every transition, by event and the status it led to.',
    labelNames: ['event', 'status'] as const,
    registers: [this.registry],
  });
  readonly deliveries = new Counter({
    name: 'payreq_webhook_deliveries_total',
    help: 'Webhook delivery attempts, by outcome (delivered, retry, failed).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly storeWrites = new Histogram({
    name: 'payreq_store_write_duration_seconds',
    help: 'Time to store a payment change (a create or a transition), by store and operation.',
    labelNames: ['store', 'operation'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  /**
   * Counts one answered request (its latency, and so its count). `route` is a route pattern or
   * `unmatched`; method and status are folded onto fixed sets, so whatever clients send, the
   * series are at most methods × route patterns × statuses.
   */
  observeRequest(method: string, route: string, status: number | 'held' | 'dropped', seconds: number, injected = false): void {
    this.latency.observe(methodLabel(method), route, statusLabel(status, injected), seconds);
  }

  private registered<M extends RequestLatencyHistogram>(metric: M): M {
    // prom-client's registry takes any metric with a name, help, type and get(): it formats and serves it.
    this.registry.registerMetric(metric as never);
    return metric;
  }

  /** Adds the process's own metrics (CPU, memory, event-loop lag, GC): once per process, by the server. */
  withProcessMetrics(): this {
    collectDefaultMetrics({ register: this.registry });
    return this;
  }

  countEvents(events: readonly PaymentEvent[]): void {
    for (const event of events) this.payments.inc({ event: event.type, status: event.to });
  }
}
