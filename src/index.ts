/**
 * The library face: start a sandbox in-process, for an integrator's own test suite.
 *
 *   const sandbox = await createSandbox({ store: 'memory' });
 *   const res = await sandbox.fetch(new Request('http://sandbox/openapi/v1/...'));
 */
import type { Hono } from 'hono';
import type { z } from 'zod';
import { Code } from './domain/codes.js';
import type { AppEnv } from './http/context.js';
import { createApp } from './http/app.js';
import { toJsonText } from './http/json-text.js';
import { DROPPED_HEADER } from './http/faults.js';
import { webhookEventBody } from './http/views.js';
import { enrollSchema, failSchema, paySchema, pickupSchema } from './http/schemas.js';
import { unknownFieldWarnings } from './http/unknown-fields.js';
import { enrollInputOf } from './http/sandbox/merchants/merchants.handlers.js';
import { listen } from './server.js';
import type { RunningServer } from './server.js';
import type { Clock } from './services/clock.js';
import { defaultConfig } from './services/config.js';
import type { SandboxConfig } from './services/config.js';
import { createServices, startScheduler } from './services/index.js';
import { SandboxMetrics } from './services/metrics.js';
import { loggerOr } from './logger.js';
import type { Logger } from './logger.js';
import type { Services } from './services/index.js';
import type { EnrollInput } from './services/merchants.js';
import { FileStore } from './store/file-store.js';
import type { FsyncPolicy } from './store/file-log.js';
import { MemoryStore } from './store/memory-store.js';
import { PostgresStore } from './store/postgres-store.js';
import type { Store } from './store/store.js';
import type { StorageLimits } from './store/storage-quota.js';

export interface SandboxOptions {
  /** Where data lives: in memory (default), a file, or a PostgreSQL database shared by several instances. */
  readonly store?: 'memory' | 'file' | 'postgres';
  /** The file of the file store; default data/sandbox.json. */
  readonly dataFile?: string;
  /** Start the file store on damaged files: drop the lines that cannot be read, say which through the logger, keep copies. */
  readonly repair?: boolean;
  /** When the file store's log reaches the disk (SANDBOX_FSYNC): always, second (default), off. */
  readonly fsync?: FsyncPolicy;
  /** The file store writes a snapshot once its log holds this many bytes (SANDBOX_SNAPSHOT_MB; default 64 MiB). */
  readonly snapshotAfterBytes?: number;
  /** The postgres:// or postgresql:// URL of the PostgreSQL store. */
  readonly url?: string;
  /** Real time in ms for the whole sandbox; each merchant's clock runs at an offset from it. */
  readonly clock?: Clock;
  /** Seed of generated names and fault randomness. */
  readonly seed?: number;
  /** Enroll the demo merchants on an empty store (default true). */
  readonly demoMerchants?: boolean;
  /** Run expiries and settlements in the background (default true). */
  readonly scheduler?: boolean;
  readonly config?: Partial<SandboxConfig>;
  /**
   * A logger (pino's, or anything with its debug/info/warn/error) for one JSON line per request
   * and per event an operator should see; none by default (the CLI passes one): then the events
   * alone go to stderr as JSON lines.
   */
  readonly log?: Logger;
  /** Also export the process's own metrics (CPU, memory, event loop) at /metrics: once per process. */
  readonly processMetrics?: boolean;
}

export interface EnrolledMerchant {
  readonly apiKey: string;
  readonly payeeId: string;
  readonly signingSalt: string;
  readonly homeCurrency: string;
}

/** The body of POST /sandbox/v1/merchants, with its field names. */
export interface EnrollBody {
  readonly name?: string;
  readonly city?: string;
  readonly home_currency?: string;
  readonly require_signature?: boolean;
  readonly rate_limit_per_second?: number;
  readonly inline_qr_image?: boolean;
  readonly auto_settle?: boolean;
  readonly qr_ttl_seconds?: number;
}

/** The body of POST /sandbox/v1/payments/{id}/pay. */
export interface PayBody {
  readonly payer?: string;
  readonly paid_currency_code?: string;
}

/**
 * Typed helpers that drive outcomes without HTTP. They take the HTTP bodies' field names and
 * refuse what the API would only warn about: an unknown field (a typo, or a camelCase name)
 * throws, naming it and the field meant, instead of falling back to a default.
 */
export interface SandboxControl {
  enroll(input?: EnrollBody): Promise<EnrolledMerchant>;
  /** `payer` alone, or the body `{payer}`. */
  pickup(apiKey: string, paymentId: string, payer?: string | { readonly payer?: string }): Promise<void>;
  pay(apiKey: string, paymentId: string, body?: PayBody): Promise<void>;
  /** `reason` alone, or the body `{reason}`. */
  fail(apiKey: string, paymentId: string, reason?: string | { readonly reason?: string }): Promise<void>;
  expire(apiKey: string, paymentId: string): Promise<void>;
  settle(apiKey: string, paymentId: string): Promise<void>;
  advanceClock(apiKey: string, seconds: number): Promise<void>;
  reset(apiKey: string): Promise<void>;
}

export interface Sandbox {
  readonly app: Hono<AppEnv>;
  readonly services: Services;
  /** Answers like the server; a `drop` fault rejects like a lost connection. */
  fetch(request: Request): Promise<Response>;
  /** Binds 127.0.0.1 unless given another hostname ('0.0.0.0' for every interface): a test's sandbox is not for the network. */
  listen(port?: number, hostname?: string): Promise<RunningServer>;
  readonly control: SandboxControl;
  readonly demoMerchants: readonly EnrolledMerchant[];
  close(): Promise<void>;
}

export async function createSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const config = defaultConfig({ ...(options.seed !== undefined ? { seed: options.seed } : {}), ...options.config });
  const store = storeOf(options, loggerOr(options.log), config.storage);
  await store.open();
  const metrics = config.metrics ? new SandboxMetrics() : undefined;
  if (metrics && options.processMetrics) metrics.withProcessMetrics();
  const services = createServices(store, config, options.clock, { webhookBody: webhookEventBody, json: toJsonText }, { log: options.log, metrics });
  const demos = options.demoMerchants === false ? [] : await services.merchants.ensureDemoMerchants();
  const stopScheduler = options.scheduler === false ? () => {} : startScheduler(services);
  const app = createApp(services);
  const servers: RunningServer[] = [];

  const merchantOf = (apiKey: string) => services.merchants.authenticate(apiKey);
  const control: SandboxControl = {
    async enroll(input = {}) {
      const body = libraryBody('enroll', enrollSchema, input);
      const { merchant, apiKey } = await services.merchants.enroll(enrollInputOf(body));
      return { apiKey, payeeId: merchant.payeeId, signingSalt: merchant.signingSalt, homeCurrency: merchant.homeCurrency };
    },
    async pickup(apiKey, paymentId, payer) {
      const body = libraryBody('pickup', pickupSchema, typeof payer === 'string' ? { payer } : payer);
      await services.payments.pickup(await merchantOf(apiKey), paymentId, body.payer ?? undefined);
    },
    async pay(apiKey, paymentId, input) {
      const body = libraryBody('pay', paySchema, input);
      await services.payments.pay(await merchantOf(apiKey), paymentId, { payer: body.payer ?? undefined, paidCurrency: body.paid_currency_code ?? undefined });
    },
    async fail(apiKey, paymentId, reason) {
      const body = libraryBody('fail', failSchema, typeof reason === 'string' ? { reason } : reason);
      await services.payments.fail(await merchantOf(apiKey), paymentId, body.reason ?? undefined);
    },
    async expire(apiKey, paymentId) {
      await services.payments.expire(await merchantOf(apiKey), paymentId);
    },
    async settle(apiKey, paymentId) {
      await services.payments.settle(await merchantOf(apiKey), paymentId);
    },
    async advanceClock(apiKey, seconds) {
      await services.advanceClock(await merchantOf(apiKey), seconds);
    },
    async reset(apiKey) {
      await services.resetMerchant(await merchantOf(apiKey));
    },
  };

  return {
    app,
    services,
    control,
    demoMerchants: demos.map(({ merchant: m, apiKey }) => ({ apiKey, payeeId: m.payeeId, signingSalt: m.signingSalt, homeCurrency: m.homeCurrency })),
    async fetch(request) {
      const response = await app.fetch(request);
      if (response.headers.get(DROPPED_HEADER)) throw new TypeError('fetch failed: the sandbox dropped the connection (drop fault)');
      return response;
    },
    async listen(port = 0, hostname = '127.0.0.1') {
      const server = await listen(app, port, hostname, {}, services.logger);
      servers.push(server);
      return server;
    },
    async close() {
      stopScheduler();
      services.webhooks.close();
      await Promise.all(servers.map((s) => s.close()));
      await store.close();
    },
  };
}

/** A helper's body checked as the route checks it, except that an unknown field is an error here, not a warning. */
function libraryBody<S extends z.ZodObject>(helper: string, schema: S, input: unknown): z.output<S> {
  const body = input ?? {};
  const fields = Object.keys(schema.shape).join(', ');
  if (typeof body !== 'object' || Array.isArray(body)) throw new TypeError(`control.${helper} takes an object with the API's fields (${fields}), got ${Array.isArray(body) ? 'an array' : typeof body}.`);
  // Refused here, not ignored as by the API: the warning is worded without that word.
  const unknown = unknownFieldWarnings(schema, body as Record<string, unknown>, true, 'field', false);
  if (unknown.length > 0) throw new TypeError(`control.${helper}: ${unknown.join('; ')}. It takes the API's field names: ${fields}.`);
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new TypeError(`control.${helper}: ${parsed.error.issues.map((issue) => issue.message).join('; ')}.`);
  return parsed.data;
}

/** `limits`: what the journal, evidence and deliveries keep within, in bytes (the PostgreSQL store reads them at each create and trim). */
function storeOf(options: SandboxOptions, logger: Logger, limits: StorageLimits): Store {
  if (options.store === 'file') {
    const { fsync, snapshotAfterBytes } = options;
    return new FileStore({ dataFile: options.dataFile ?? 'data/sandbox.json', repair: options.repair === true, fsync, snapshotAfterBytes, logger, limits });
  }
  if (options.store === 'postgres') {
    if (!options.url || !isPostgresUrl(options.url)) throw new Error('createSandbox({ store: "postgres" }) needs url: a postgres:// or postgresql:// URL of the database.');
    return new PostgresStore({ url: options.url, logger, limits });
  }
  return new MemoryStore(limits);
}

/** True for the URLs the PostgreSQL store takes. */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\/./.test(value);
}

export { Code };
export type { SandboxConfig, Services, EnrollInput, RunningServer, Logger };
export { decodeEmvPayload, toEmvPayload, crc16CcittFalse } from './domain/emv.js';
export { signBody, stringToSign } from './domain/signature.js';
