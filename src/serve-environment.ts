/**
 * The environment variables `serve` reads, each with its default, for `serve --help`. What each
 * does is on one docs page (docs/hosting.md#configuration); a test checks that every variable
 * the code reads is listed here.
 */
import { DEFAULT_SERVER_LIMITS } from './server/limits.js';
import { DEFAULT_STORAGE_LIMITS, MIB } from './store/storage-quota.js';

const limits = DEFAULT_SERVER_LIMITS;

export const SERVE_ENVIRONMENT: readonly (readonly [name: string, fallback: string])[] = [
  ['PORT', '8080 (--port)'],
  ['HOST', '127.0.0.1 (--host)'],
  ['SANDBOX_DATA', 'data/sandbox.json (--data)'],
  ['SANDBOX_STORE', 'file (--store: file, memory or postgres://...)'],
  ['SANDBOX_FSYNC', 'second (or always, off): when the file store flushes its log to the disk'],
  ['SANDBOX_SNAPSHOT_MB', '64: the file store writes a snapshot once its log holds this much'],
  ['PUBLIC_BASE_URL', 'the origin of each request'],
  ['SANDBOX_ADMIN_TOKEN', 'unset: anyone may enroll'],
  ['SANDBOX_DEMO_MERCHANTS', 'on, or off when SANDBOX_ADMIN_TOKEN is set'],
  ['SANDBOX_HTTP_STATUS', 'mirror-code (or always-200)'],
  ['SANDBOX_RATE_LIMIT', '0: no limit per key'],
  ['SANDBOX_ENROLL_LIMIT', '10 a minute per client when strangers can reach it, else 0'],
  ['SANDBOX_TRUST_PROXY', '0: the socket address is the client'],
  ['SANDBOX_MERCHANT_BODY_KB_PER_SECOND', '1024'],
  ['SANDBOX_JOURNAL', 'on'],
  ['SANDBOX_PRODUCT_TYPES', 'QR_DYNAMIC,QR_STATIC,IN_APP'],
  ['SANDBOX_WEBHOOK_PRIVATE', 'allow (deny on a hosted sandbox)'],
  ['SANDBOX_RETENTION_DAYS', '0: keep every payment'],
  ['SANDBOX_MERCHANT_IDLE_DAYS', '0: keep every merchant'],
  ['SANDBOX_MERCHANT_STORAGE_MB', String(DEFAULT_STORAGE_LIMITS.merchantBytes / MIB)],
  ['SANDBOX_STORAGE_MB', String(DEFAULT_STORAGE_LIMITS.sandboxBytes / MIB)],
  ['SANDBOX_METRICS', 'on'],
  ['SANDBOX_METRICS_TOKEN', 'unset: /metrics is open'],
  ['SANDBOX_LOG', 'on'],
  ['SANDBOX_LOG_HEALTH', 'off'],
  ['LOG_LEVEL', 'info'],
  ['SANDBOX_HEADERS_TIMEOUT_MS', String(limits.headersTimeoutMs)],
  ['SANDBOX_REQUEST_TIMEOUT_MS', String(limits.requestTimeoutMs)],
  ['SANDBOX_BODY_MIN_BYTES_PER_SECOND', String(limits.bodyMinBytesPerSecond)],
  ['SANDBOX_KEEPALIVE_TIMEOUT_MS', String(limits.keepAliveTimeoutMs)],
  ['SANDBOX_MAX_CONNECTIONS', String(limits.maxConnections)],
  ['SANDBOX_MAX_CONNECTIONS_PER_CLIENT', `${limits.maxConnectionsPerClient} (0 with SANDBOX_TRUST_PROXY)`],
  ['SANDBOX_SHUTDOWN_GRACE_MS', String(limits.shutdownGraceMs)],
  ['SANDBOX_DRAIN_DELAY_MS', '0 on a loopback HOST without SANDBOX_TRUST_PROXY, else 5000'],
];

/** The help text: every variable with its default, and where each is explained. */
export function environmentHelp(): string {
  const width = Math.max(...SERVE_ENVIRONMENT.map(([name]) => name.length)) + 2;
  const lines = SERVE_ENVIRONMENT.map(([name, fallback]) => `  ${name.padEnd(width)}${fallback}`);
  return `\nEnvironment (flags win; what each does: docs/hosting.md#configuration):\n  ${'variable'.padEnd(width)}default\n${lines.join('\n')}`;
}
