/** `payreq-sandbox serve`: the settings the environment gives, the sandbox started on them, and its stop. */
import { createSandbox, isPostgresUrl } from './index.js';
import { redactedUrl } from './store/unavailable.js';
import { DEFAULT_STORAGE_LIMITS, MIB } from './store/storage-quota.js';
import { DEFAULT_SNAPSHOT_AFTER_BYTES, fsyncPolicy } from './store/file-log.js';
import { isDriverWriteAfterClose } from './store/postgres-connection.js';
import { pino } from 'pino';
import type { Logger as PinoLogger } from 'pino';
import { stopWhenLauncherEnds } from '../bin/launchers.js';
import { errorFields, loggerOr, stdoutByTurn } from './logger.js';
import type { Logger } from './logger.js';
import { drainDelayFromEnv } from './server/limits.js';
import { defaultEnrollLimit } from './services/config.js';
import type { HttpStatusMode, SandboxConfig } from './services/config.js';

/** The variable's value, one of two; the first when it is not set. */
function envChoice<T extends string>(env: NodeJS.ProcessEnv, name: string, choices: readonly [T, T]): T {
  const value = env[name] ?? choices[0];
  if (!(choices as readonly string[]).includes(value)) throw new Error(`${name} must be ${choices[0]} or ${choices[1]}, got ${value}`);
  return value as T;
}

/** The variable as a whole number of at least 0; `fallback` (0 unless given) when it is not set. */
function envWholeNumber(env: NodeJS.ProcessEnv, name: string, what: string, fallback = 0): number {
  const n = Number(env[name] ?? String(fallback));
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be ${what}, got ${env[name]}`);
  return n;
}

/** The variable as a positive number of MiB (fractions allowed), in bytes; `fallback` bytes when it is not set. */
function envMebibytes(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  const mb = Number(value);
  if (!Number.isFinite(mb) || mb <= 0) throw new Error(`${name} must be a positive number of MB (MiB, e.g. 64 or 0.5), got ${value}`);
  return Math.floor(mb * MIB);
}

/**
 * The settings environment variables give; flags win over them. `host` is the address to listen
 * on (--host or HOST): it decides the enrolment limit's default.
 */
export function configFromEnv(env: NodeJS.ProcessEnv, host: string = env.HOST ?? '127.0.0.1'): Partial<SandboxConfig> {
  const mode = envChoice<HttpStatusMode>(env, 'SANDBOX_HTTP_STATUS', ['mirror-code', 'always-200']);
  const rate = envWholeNumber(env, 'SANDBOX_RATE_LIMIT', 'a whole number (0 is off)');
  const retention = envWholeNumber(env, 'SANDBOX_RETENTION_DAYS', 'a whole number of days (0 keeps everything)');
  const idleDays = envWholeNumber(env, 'SANDBOX_MERCHANT_IDLE_DAYS', 'a whole number of days (0 keeps every merchant)');
  if (env.PUBLIC_BASE_URL && !/^https?:\/\/[^/\s]+(\/\S*)?$/.test(env.PUBLIC_BASE_URL)) {
    throw new Error(`PUBLIC_BASE_URL must be an absolute http(s) URL such as https://sandbox.example.com, got ${env.PUBLIC_BASE_URL}`);
  }
  const productTypes = env.SANDBOX_PRODUCT_TYPES?.split(',').map((t) => t.trim()).filter(Boolean);
  if (productTypes && (productTypes.length === 0 || productTypes.some((t) => !/^[A-Z0-9_]{1,32}$/.test(t)))) {
    throw new Error(`SANDBOX_PRODUCT_TYPES must be a comma-separated list of upper-case names such as QR_DYNAMIC,QR_STATIC, got ${env.SANDBOX_PRODUCT_TYPES}`);
  }
  const privateTargets = envChoice(env, 'SANDBOX_WEBHOOK_PRIVATE', ['allow', 'deny']);
  const proxies = envWholeNumber(env, 'SANDBOX_TRUST_PROXY', 'the number of proxies in front of the sandbox that append to X-Forwarded-For: a whole number, 0 (the default) for none, 1 for one');
  return {
    publicBaseUrl: env.PUBLIC_BASE_URL ? env.PUBLIC_BASE_URL.replace(/\/+$/, '') : undefined,
    adminToken: env.SANDBOX_ADMIN_TOKEN || undefined,
    httpStatusMode: mode,
    defaultRateLimit: rate,
    journal: env.SANDBOX_JOURNAL !== 'off',
    retentionDays: retention,
    merchantIdleDays: idleDays,
    webhookPrivateTargets: privateTargets === 'allow',
    metrics: envChoice(env, 'SANDBOX_METRICS', ['on', 'off']) === 'on',
    metricsToken: env.SANDBOX_METRICS_TOKEN || undefined,
    enrollLimitPerMinute:
      env.SANDBOX_ENROLL_LIMIT === undefined ? defaultEnrollLimit(host, proxies) : envWholeNumber(env, 'SANDBOX_ENROLL_LIMIT', 'a whole number of enrolments per client per minute (0 is no limit)'),
    trustProxy: proxies,
    logHealthChecks: envChoice(env, 'SANDBOX_LOG_HEALTH', ['off', 'on']) === 'on',
    bodyBytesPerSecond: 1024 * envWholeNumber(env, 'SANDBOX_MERCHANT_BODY_KB_PER_SECOND', 'a whole number of KiB of request bodies per merchant per second (0 is no limit)', 1024),
    storage: {
      merchantBytes: envMebibytes(env, 'SANDBOX_MERCHANT_STORAGE_MB', DEFAULT_STORAGE_LIMITS.merchantBytes),
      sandboxBytes: envMebibytes(env, 'SANDBOX_STORAGE_MB', DEFAULT_STORAGE_LIMITS.sandboxBytes),
    },
    ...(productTypes ? { productTypes } : {}),
  };
}

export interface ServeOptions {
  port: number;
  host: string;
  data: string;
  memory: boolean;
  store: string;
  seed: number;
  repair: boolean;
}

/**
 * --store / SANDBOX_STORE: file, memory, or the URL of a PostgreSQL database. Checked here, not
 * by commander, whose message would repeat the value, and it may be a URL with a password.
 */
function storeChoice(value: string): string {
  if (value === 'file' || value === 'memory' || isPostgresUrl(value)) return value;
  throw new Error('SANDBOX_STORE / --store must be file, memory, or a postgres:// or postgresql:// URL such as postgres://user:pass@localhost:5432/sandbox.');
}

export async function serveCommand(options: ServeOptions): Promise<void> {
  const chosen = options.memory ? 'memory' : storeChoice(options.store);
  const postgresUrl = isPostgresUrl(chosen) ? chosen : undefined;
  const storeKind = postgresUrl ? 'postgres' : chosen === 'memory' ? 'memory' : 'file';
  const config = configFromEnv(process.env, options.host);
  const drainDelayMs = drainDelayFromEnv(process.env, options.host);
  const log = envChoice(process.env, 'SANDBOX_LOG', ['on', 'off']) === 'on' ? requestLogger() : undefined;
  // The events an operator should see: through the request lines' logger, or on stderr without one.
  const logger = loggerOr(log);
  // A hosted sandbox (admin token set) does not open the public demo keys unless asked to.
  const demos = envChoice(process.env, 'SANDBOX_DEMO_MERCHANTS', config.adminToken ? ['off', 'on'] : ['on', 'off']) === 'on';
  if (postgresUrl) guardDriverWriteAfterClose(logger);
  const fileStore = { fsync: fsyncPolicy(process.env.SANDBOX_FSYNC), snapshotAfterBytes: envMebibytes(process.env, 'SANDBOX_SNAPSHOT_MB', DEFAULT_SNAPSHOT_AFTER_BYTES) };
  const sandbox = await createSandbox({ store: storeKind, dataFile: options.data, url: postgresUrl, seed: options.seed, config, log, processMetrics: true, demoMerchants: demos, repair: options.repair, ...fileStore });
  const server = await sandbox.listen(options.port, options.host).catch(async (err: unknown) => {
    await sandbox.close().catch(() => {});
    throw listenError(err, options.port, options.host);
  });
  // The address really bound (localhost is resolved to 127.0.0.1 or ::1 by the listen).
  const everywhere = server.address === '0.0.0.0' || server.address === '::';
  const bound = `http://${server.address.includes(':') ? `[${server.address}]` : server.address}:${server.port}`;
  const base = sandbox.services.config.publicBaseUrl ?? (everywhere ? `http://localhost:${server.port}` : bound);
  const [demo, signed] = sandbox.demoMerchants;
  const where = storeKind === 'file' ? ` ${options.data}` : postgresUrl ? ` ${redactedUrl(postgresUrl)}` : '';
  console.log(`payreq-sandbox listening on ${bound}${everywhere ? ' (every interface)' : ''}  (store: ${storeKind}${where})`);
  if (sandbox.services.config.publicBaseUrl) console.log(`public base URL:      ${base}`);
  if (demo) console.log(`demo merchant:        payee ${demo.payeeId}  Service-Api-Key: ${demo.apiKey}`);
  if (signed) console.log(`demo merchant signed: payee ${signed.payeeId}  Service-Api-Key: ${signed.apiKey}  (signing salt: see docs/merchants.md)`);
  console.log(`try: curl -H 'Service-Api-Key: ${demo?.apiKey ?? '<key>'}' ${base}/sandbox/v1/payments`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    // /readyz answers 503 from now on: a balancer checking it stops sending here during the delay.
    sandbox.services.drain.start(signal);
    if (drainDelayMs > 0) console.log(`${signal}: draining: /readyz answers 503; still serving for ${drainDelayMs / 1000} s (SANDBOX_DRAIN_DELAY_MS) so a balancer takes this instance out first`);
    // Announced when the delay is over, as the server stops accepting.
    const finishing = () => console.log(`${signal}: finishing in-flight requests (up to ${server.limits.shutdownGraceMs / 1000} s) and writing the store...`);
    if (drainDelayMs === 0) finishing();
    else setTimeout(finishing, drainDelayMs).unref();
    // Serves on for the delay (every answer then the last on its connection); no new connections after it; answers in flight finish; what is left after the grace is cut.
    await server.close(server.limits.shutdownGraceMs, drainDelayMs);
    try {
      await sandbox.close();
    } catch (err) {
      // The log still holds every acknowledged change; the next start replays it.
      logger.error(errorFields(err), 'store snapshot not written at stop: the write-ahead log keeps every change and the next start replays it');
      log?.flush();
      process.exit(1);
    }
    // The request log is buffered: what it holds goes out before the process does.
    log?.flush();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  // Started through npx or npm start: stopped when that npm is (see launcher.ts).
  stopWhenLauncherEnds(() => void stop('npm (the launcher) ended'));
}

/** A readable message for a port that cannot be listened on, instead of Node's bare code. */
function listenError(err: unknown, port: number, host: string): Error {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') return new Error(`port ${port} is already in use on ${host}: stop what is listening there, or choose another port with --port or PORT (e.g. PORT=8081 npm start).`);
  if (code === 'EACCES') return new Error(`not allowed to listen on port ${port} on ${host} (ports below 1024 need root): choose a port from 1024 to 65535 with --port or PORT.`);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return new Error(`cannot listen on ${host}: it is not an address of this machine; use 127.0.0.1 (local) or 0.0.0.0 (every interface) with --host or HOST.`);
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * Keeps the server up through the one uncaught error the PostgreSQL driver throws when the
 * database dies under load (see isDriverWriteAfterClose); any other uncaught error ends the
 * process as Node would (exit code 1), said through the logger with its stack.
 */
function guardDriverWriteAfterClose(logger: Logger): void {
  process.on('uncaughtException', (err) => {
    if (isDriverWriteAfterClose(err)) {
      logger.warn({}, 'store: the PostgreSQL driver wrote to a connection already closed (the database went away); that connection is dropped');
      return;
    }
    // The process ends: its stack is the one record of why (pino writes out what it buffered at exit).
    logger.error({ ...errorFields(err), stack: err.stack }, 'uncaught error: the process ends');
    process.exit(1);
  });
}

/** One JSON line per request, and per event an operator should see, on stdout (pino). */
function requestLogger(): PinoLogger {
  return pino(
    {
      level: process.env.LOG_LEVEL ?? 'info',
      base: { service: 'payreq-sandbox' },
      // Named fields only, never a header or a body; redact is the guard should one ever be added (top level only: ~1 us).
      redact: { paths: ['api_key', 'signing_salt', 'salt', 'sign', 'password', 'authorization'], censor: '***' },
    },
    // A turn's lines in one synchronous write (a write per line cost ~20 % of a status GET), a warning or an error at once; what is still held goes out at exit.
    stdoutByTurn(),
  );
}
