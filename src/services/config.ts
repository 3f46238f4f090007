/** Settings of one sandbox instance, from flags and environment (docs/hosting.md#configuration lists them). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BlockList, isIP } from 'node:net';
import type { RateTable } from '../domain/currencies.js';
import { DEFAULT_STORAGE_LIMITS } from '../store/storage-quota.js';
import type { StorageLimits } from '../store/storage-quota.js';

export type HttpStatusMode = 'mirror-code' | 'always-200';

export interface SandboxConfig {
  /** Base URL written into qr_data; when unset, each request's own origin. */
  readonly publicBaseUrl: string | undefined;
  /** When set, enrolling a merchant needs `Authorization: Bearer <token>`. */
  readonly adminToken: string | undefined;
  readonly httpStatusMode: HttpStatusMode;
  /** Requests per second per key for newly enrolled merchants; 0 is off. */
  readonly defaultRateLimit: number;
  readonly productTypes: readonly string[];
  readonly rates: RateTable;
  /** Seed of generated payers and of fault-rule randomness. */
  readonly seed: number;
  readonly maxPaymentsPerMerchant: number;
  /** Enrolment is refused past this many merchants, so a shared sandbox's memory stays bounded. */
  readonly maxMerchants: number;
  /** How long a `timeout` fault holds a response at most, ms. */
  readonly timeoutHoldMs: number;
  /** Keep the request journal (SANDBOX_JOURNAL=off turns it off, for benchmarks). */
  readonly journal: boolean;
  /** Payments older than this many days that can no longer change are deleted; 0 keeps everything. */
  readonly retentionDays: number;
  /** Delay before each webhook attempt, ms; the first is normally 0. */
  readonly webhookRetryDelaysMs: readonly number[];
  /** Deliver webhooks to loopback and private addresses (SANDBOX_WEBHOOK_PRIVATE=deny turns it off, for a hosted sandbox). */
  readonly webhookPrivateTargets: boolean;
  /** Enrolments per client address per minute when no admin token is set; 0 is no limit. */
  readonly enrollLimitPerMinute: number;
  /** How often a `payreq-sandbox listen` stream gets a heartbeat comment, so proxies' idle timeouts do not cut it, ms. */
  readonly streamHeartbeatMs: number;
  /** Bytes of request bodies one merchant may send per second on one instance (SANDBOX_MERCHANT_BODY_KB_PER_SECOND); 0 is no limit. */
  readonly bodyBytesPerSecond: number;
  /**
   * How many proxies stand in front (SANDBOX_TRUST_PROXY=<n>): the client address is then the n-th
   * X-Forwarded-For entry from the right; 0 (or false) takes the socket's. true is the same as 1.
   */
  readonly trustProxy: number | boolean;
  /** Write request lines for /livez, /readyz and /healthz too (SANDBOX_LOG_HEALTH=on); off, a balancer's probes would fill the log. */
  readonly logHealthChecks: boolean;
  /** Serve GET /metrics (SANDBOX_METRICS=off turns it off). */
  readonly metrics: boolean;
  /** When set, GET /metrics answers only `Authorization: Bearer <token>` (SANDBOX_METRICS_TOKEN). */
  readonly metricsToken: string | undefined;
  /**
   * A merchant whose key has not been used for this many days of real time is deleted, with all
   * it holds (SANDBOX_MERCHANT_IDLE_DAYS); 0 keeps every merchant.
   */
  readonly merchantIdleDays: number;
  /**
   * Bytes of stored records a merchant may hold, and the whole sandbox (SANDBOX_MERCHANT_STORAGE_MB,
   * SANDBOX_STORAGE_MB): past them creates and enrolment answer 402 (store/storage-quota.ts).
   */
  readonly storage: StorageLimits;
}

export const DEFAULT_PRODUCT_TYPES = ['QR_DYNAMIC', 'QR_STATIC', 'IN_APP'] as const;

/** The shipped rate table, data/rates.json (two folders up from both src/services and dist/services). */
export const RATES_FILE = fileURLToPath(new URL('../../data/rates.json', import.meta.url));

export function loadRates(file: string = RATES_FILE): RateTable {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const rates: Record<string, number> = {};
  for (const [code, rate] of Object.entries(raw)) {
    if (code.startsWith('_')) continue;
    if (typeof rate !== 'number' || !(rate > 0)) throw new Error(`${file}: the rate of ${code} must be a positive number`);
    rates[code] = rate;
  }
  return rates;
}

export function defaultConfig(overrides: Partial<SandboxConfig> = {}): SandboxConfig {
  return {
    publicBaseUrl: undefined,
    adminToken: undefined,
    httpStatusMode: 'mirror-code',
    defaultRateLimit: 0,
    productTypes: DEFAULT_PRODUCT_TYPES,
    rates: overrides.rates ?? loadRates(),
    seed: 42,
    maxPaymentsPerMerchant: 200_000,
    maxMerchants: 10_000,
    timeoutHoldMs: 120_000,
    journal: true,
    retentionDays: 0,
    webhookRetryDelaysMs: [0, 1000, 5000, 30_000, 120_000],
    webhookPrivateTargets: true,
    metrics: true,
    metricsToken: undefined,
    // The server's default is 10 (SANDBOX_ENROLL_LIMIT, SPEC 15); an in-process sandbox has no strangers.
    enrollLimitPerMinute: 0,
    // The server's default is 1 MiB a second (SANDBOX_MERCHANT_BODY_KB_PER_SECOND); an in-process sandbox has one tenant.
    bodyBytesPerSecond: 0,
    streamHeartbeatMs: 15_000,
    trustProxy: false,
    logHealthChecks: false,
    // Off for local use (npm start, the library): nobody else's merchants pile up there. A hosted
    // sandbox, where anyone may enroll, should set SANDBOX_MERCHANT_IDLE_DAYS (30, say).
    merchantIdleDays: 0,
    storage: DEFAULT_STORAGE_LIMITS,
    ...overrides,
  };
}

/** Enrolments per client per minute where strangers can reach the sandbox (SPEC 15); none where only this machine can. */
export const STRANGERS_ENROLL_LIMIT = 10;

/**
 * The enrolment limit when SANDBOX_ENROLL_LIMIT is not set: 10 a minute when strangers can reach
 * the server (bound beyond loopback, or behind a proxy), else none, so a local replay of every
 * scenario file (each enrolls a merchant) does not wait minutes.
 */
export function defaultEnrollLimit(host: string, trustProxy: number | boolean): number {
  return Number(trustProxy) > 0 || !isLoopbackHost(host) ? STRANGERS_ENROLL_LIMIT : 0;
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** True for a listen address only this machine can reach: localhost, 127.0.0.0/8, ::1 (in any of its forms). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.trim().toLowerCase().replace(/^\[|\]$/g, '');
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  const family = isIP(bare);
  return family !== 0 && LOOPBACK.check(bare, family === 6 ? 'ipv6' : 'ipv4');
}
