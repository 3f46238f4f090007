import { isLoopbackHost } from '../services/config.js';

/** How long clients may take and how many connections they may hold. 0 turns a setting off (not the grace). */
export interface ServerLimits {
  /** From a connection's (or a request's) first byte to the end of its headers; then 408. */
  readonly headersTimeoutMs: number;
  /** From a request's first byte to the end of its body; then 408. */
  readonly requestTimeoutMs: number;
  /** After its headers and a 2 s grace, a body must arrive at least this fast on average (bytes a second); then 408. */
  readonly bodyMinBytesPerSecond: number;
  /** How long an idle keep-alive connection is kept between requests. */
  readonly keepAliveTimeoutMs: number;
  /**
   * Connections at once; beyond it the oldest connection with no request in progress of the
   * client holding the most connections is closed for the new one; when none is idle, one still
   * uploading of a client over its share (this cap ÷ the clients holding connections) is closed
   * for a client under it; else the new one is closed.
   */
  readonly maxConnections: number;
  /**
   * Connections at once from one client (an IPv4 address, an IPv6 /64); beyond it the client's
   * oldest connection with no request in progress (idle, or still sending its headers) is closed
   * for the new one, or the new one is closed when all are busy.
   */
  readonly maxConnectionsPerClient: number;
  /** How long a stop by signal lets answers in flight finish. */
  readonly shutdownGraceMs: number;
}

/**
 * Headers take one packet from any real client: 10 s is generous on a bad mobile link and
 * bounds a slowloris. A whole request (bodies are at most 64 KiB) in 30 s is ~2 KB/s; a body
 * below 1 KiB/s (a 64 KiB body in a minute, an 8 KiB one in 10 s) is a connection held, not a
 * slow link. Keep-alive 5 s is Node's default (behind a load balancer set it above the
 * balancer's idle timeout).
 * 4096 connections cost well under 100 MB; 256 per client is above any browser or load
 * generator the sandbox meets, and below what lets one address fill the server.
 */
export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  bodyMinBytesPerSecond: 1024,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 4096,
  maxConnectionsPerClient: 256,
  shutdownGraceMs: 10_000,
};

const ENV_NAMES: Record<keyof ServerLimits, string> = {
  headersTimeoutMs: 'SANDBOX_HEADERS_TIMEOUT_MS',
  requestTimeoutMs: 'SANDBOX_REQUEST_TIMEOUT_MS',
  bodyMinBytesPerSecond: 'SANDBOX_BODY_MIN_BYTES_PER_SECOND',
  keepAliveTimeoutMs: 'SANDBOX_KEEPALIVE_TIMEOUT_MS',
  maxConnections: 'SANDBOX_MAX_CONNECTIONS',
  maxConnectionsPerClient: 'SANDBOX_MAX_CONNECTIONS_PER_CLIENT',
  shutdownGraceMs: 'SANDBOX_SHUTDOWN_GRACE_MS',
};

/**
 * The limits environment variables set, over the defaults. Behind proxies
 * (SANDBOX_TRUST_PROXY=<n>, n of at least 1) every connection comes from a proxy, so there is no
 * per-client cap unless SANDBOX_MAX_CONNECTIONS_PER_CLIENT asks for one.
 */
export function serverLimitsFromEnv(env: NodeJS.ProcessEnv): ServerLimits {
  const limits: Record<string, number> = { ...DEFAULT_SERVER_LIMITS };
  if (Number(env.SANDBOX_TRUST_PROXY ?? '0') >= 1) limits.maxConnectionsPerClient = 0;
  for (const [key, name] of Object.entries(ENV_NAMES)) {
    const text = env[name];
    if (text === undefined || text === '') continue;
    const n = Number(text);
    const min = key === 'shutdownGraceMs' ? 1 : 0;
    if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be a whole number of at least ${min}${min === 0 ? ' (0 is off)' : ''}, got ${text}`);
    limits[key] = n;
  }
  return checkedLimits(limits as unknown as ServerLimits);
}

export function checkedLimits(limits: ServerLimits): ServerLimits {
  const { headersTimeoutMs: headers, requestTimeoutMs: request } = limits;
  if (headers > 0 && request > 0 && headers > request) {
    throw new Error(`${ENV_NAMES.headersTimeoutMs} (${headers}) must not be over ${ENV_NAMES.requestTimeoutMs} (${request}): the headers are part of the request`);
  }
  return limits;
}

/** The longest SANDBOX_DRAIN_DELAY_MS taken: longer is a typo, and a stop that never ends. */
const MAX_DRAIN_DELAY_MS = 600_000;

/**
 * SANDBOX_DRAIN_DELAY_MS: how long a stop by signal keeps serving, /readyz answering 503, before
 * it stops accepting. 5 s by default beyond loopback or behind proxies (SANDBOX_TRUST_PROXY of 1
 * or more: a balancer checking every second or two takes the instance out by then, also one on
 * this machine reaching it over loopback), else 0: on loopback alone no balancer stands in front.
 */
export function drainDelayFromEnv(env: NodeJS.ProcessEnv, host: string): number {
  const text = env.SANDBOX_DRAIN_DELAY_MS;
  const behindProxy = Number(env.SANDBOX_TRUST_PROXY ?? '0') >= 1;
  if (text === undefined || text === '') return isLoopbackHost(host) && !behindProxy ? 0 : 5000;
  if (!/^\d+$/.test(text) || Number(text) > MAX_DRAIN_DELAY_MS) {
    throw new Error(`SANDBOX_DRAIN_DELAY_MS must be a whole number of milliseconds from 0 to ${MAX_DRAIN_DELAY_MS} (how long a stopping instance keeps serving while a balancer takes it out; 0 stops at once), got ${text}`);
  }
  return Number(text);
}
