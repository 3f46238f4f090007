#!/usr/bin/env node
/** payreq-sandbox serve | replay | readiness | listen | qr decode. */
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { decodeEmvPayload } from './domain/emv.js';
import { createSandbox, isPostgresUrl } from './index.js';
import { redactedUrl } from './store/unavailable.js';
import { DEFAULT_STORAGE_LIMITS, MIB } from './store/storage-quota.js';
import { DEFAULT_SNAPSHOT_AFTER_BYTES, fsyncPolicy } from './store/file-log.js';
import { isDriverWriteAfterClose } from './store/postgres-connection.js';
import { pino } from 'pino';
import type { Logger as PinoLogger } from 'pino';
import { terminal } from './command-output.js';
import { stopWhenLauncherEnds } from '../bin/launchers.js';
import { environmentHelp } from './serve-environment.js';
import { unknownCommandText } from './unknown-command.js';
import { errorFields, loggerOr } from './logger.js';
import type { Logger } from './logger.js';
import { DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT_MS } from './scenarios/defaults.js';
import type { ReplayCommandOptions } from './scenarios/replay-command.js';
import { drainDelayFromEnv } from './server/limits.js';
import { defaultEnrollLimit } from './services/config.js';
import type { HttpStatusMode, SandboxConfig } from './services/config.js';

/** Exit codes of every command, so that a CI script can tell a failed check from a run that never happened. */
export const EXIT_CODES = { ok: 0, checksFailed: 1, couldNotRun: 2 } as const;

const EXIT_CODES_HELP = `
Exit codes:
  0  done: every scenario passed, the merchant is ready, the payload is valid
  1  checks failed: a scenario failed, a required readiness check does not pass, an invalid QR payload
  2  could not run: a usage error, an unknown command, a sandbox that cannot be reached, a port in use,
     a file that cannot be written, a bad setting`;

function wholeNumber(name: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`${name} must be a whole number ${max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`}, got ${value}.`);
    }
    return n;
  };
}

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

interface ServeOptions {
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

async function serveCommand(options: ServeOptions): Promise<void> {
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

/** The version in package.json, one folder up from src/cli.ts and dist/cli.js alike. */
function packageVersion(): string {
  const file = fileURLToPath(new URL('../package.json', import.meta.url));
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
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
    // Written asynchronously: lines that come while a write is under way go out together with the next (a synchronous write per line cost ~20 % of a status GET).
    // What is still buffered goes out at exit (the stop handler flushes it).
    pino.destination({ dest: 1, sync: false }),
  );
}

function qrDecodeCommand(payload: string): void {
  const decoded = decodeEmvPayload(payload);
  for (const tag of decoded.tags) {
    console.log(`${tag.tag}  ${tag.name.padEnd(32)} ${tag.children ? '' : tag.value}`);
    for (const child of tag.children ?? []) console.log(`  ${child.tag}  ${child.name.padEnd(30)} ${child.value}`);
  }
  console.log(decoded.crcValid ? 'CRC: valid' : 'CRC: INVALID');
  if (decoded.paymentCode) console.log(`payment_code: ${decoded.paymentCode}`);
  for (const error of decoded.errors) terminal.err(`error: ${error}`);
  if (!decoded.valid) process.exitCode = 1;
}

export function buildProgram(): Command {
  const program = new Command('payreq-sandbox')
    .description('A sandbox of the QR payment request service.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .addHelpText('after', EXIT_CODES_HELP)
    // Usage errors throw instead of exiting, so main() gives them the "could not run" code.
    .exitOverride();

  program
    .command('serve', { isDefault: true })
    .description('serve the sandbox over HTTP')
    .addOption(new Option('-p, --port <port>', 'port to listen on (0 picks a free one)').env('PORT').default(8080).argParser(wholeNumber('--port', 0, 65535)))
    .addOption(new Option('--host <host>', 'address to listen on (0.0.0.0 for every interface, as a hosted sandbox needs)').env('HOST').default('127.0.0.1'))
    .addOption(new Option('-d, --data <file>', 'file of the file store').env('SANDBOX_DATA').default('data/sandbox.json'))
    .option('--memory', 'keep everything in memory (same as --store memory)', false)
    .option('--repair', 'start on a damaged file store: keep every whole line that can be read, say in the log what was dropped, keep <file>.damaged-<time> copies, write the rest as a new snapshot', false)
    .addOption(
      new Option('--store <store>', 'file, memory, or postgres://user:pass@host:port/db to share one sandbox between instances')
        .env('SANDBOX_STORE')
        .default('file'),
    )
    .addOption(new Option('--seed <n>', 'seed of generated names and fault randomness').default(42).argParser(wholeNumber('--seed', 0)))
    .addHelpText('after', environmentHelp())
    // serve is the default command, so a mistyped command arrives here as an argument.
    .allowExcessArguments(true)
    .action((options: ServeOptions, command: Command) => {
      const [unknown] = command.args;
      if (unknown !== undefined) {
        terminal.err(unknownCommandText(program, unknown));
        throw new CommanderError(EXIT_CODES.couldNotRun, 'payreq-sandbox.unknownCommand', `unknown command '${unknown}'`);
      }
      return serveCommand(options);
    });

  program
    .command('dev-postgres')
    .description("start a throw-away PostgreSQL on 127.0.0.1 (Debian's server binaries) to try the shared store; Ctrl-C removes it")
    .action(async () => {
      const { startPostgres } = await import('./dev/local-postgres.js');
      const server = await startPostgres();
      console.log(`PostgreSQL listening: ${server.url}\nin another shell:  SANDBOX_STORE=${server.url} npm start\nCtrl-C stops it and deletes its data (${server.dataDir}).`);
      const stop = () => void server.stop().then(() => process.exit(0));
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });

  program
    .command('readiness')
    .description("print a merchant's go-live checklist (GET /sandbox/v1/readiness); exits 1 when a required check does not pass")
    .addOption(new Option('-u, --base-url <url>', 'the sandbox').env('SANDBOX_BASE_URL').default('http://127.0.0.1:8080').argParser(httpUrl))
    .requiredOption('-k, --key <key>', "the merchant's Service-Api-Key")
    .option('--junit <file>', 'also write a JUnit XML report (one testcase per check); its folder is created')
    .option('--json', 'print the report as JSON on stdout instead of the checklist')
    .addHelpText('after', '\nExit codes: 0 ready, 1 a required check does not pass, 2 the report could not be had or written.')
    .action(async (options: { baseUrl: string; key: string; junit?: string; json?: boolean }) => {
      const { readinessCommand } = await import('./readiness-command.js');
      process.exitCode = await readinessCommand(options);
    });

  program
    .command('listen')
    .description("forward a (hosted) sandbox's webhook deliveries of a merchant to a local URL, signed as sent, and report the local answers back")
    .addOption(new Option('-u, --base-url <url>', 'the sandbox').env('SANDBOX_BASE_URL').default('http://127.0.0.1:8080').argParser(httpUrl))
    .requiredOption('-k, --key <key>', "the merchant's Service-Api-Key")
    .requiredOption('-f, --forward-to <url>', 'the local receiver, e.g. http://localhost:3000/hooks', forwardUrl)
    .option('--events <types>', 'only these event types, comma-separated (e.g. payment.paid,payment.expired)')
    .option('--no-color', 'no colours (also off with NO_COLOR or when not on a terminal)')
    .addHelpText('after', '\nRuns until Ctrl-C (exit 0). Exit 2: a wrong key, a refused request, or a sandbox that cannot be reached at the start.')
    .action(async (options: { baseUrl: string; key: string; forwardTo: string; events?: string; color: boolean }) => {
      const { listenCommand } = await import('./listen-command.js');
      process.exitCode = await listenCommand(options);
    });

  const qr = program.command('qr').description('EMVCo QR payload tools');
  qr.command('decode')
    .description('print the EMV tags of a payload by name and whether its CRC holds; exits 1 on an invalid payload')
    .argument('<payload>', 'the qr_data.payload text')
    .action((payload: string) => qrDecodeCommand(payload));

  program
    .command('replay')
    .description('replay scenario files against an in-process sandbox (default) or --base-url; exits 1 on any failure')
    .argument('<paths...>', 'scenario files (.yaml, .yml, .json) or folders of them')
    .addOption(new Option('-u, --base-url <url>', 'replay against the sandbox at this URL (it enrolls its own merchants there)').env('SANDBOX_BASE_URL').argParser(httpUrl))
    .addOption(new Option('-c, --concurrency <n>', 'scenario files replayed at once').default(DEFAULT_CONCURRENCY).argParser(wholeNumber('--concurrency', 1)))
    .addOption(new Option('-t, --timeout <ms>', "default client timeout of each request, ms").default(DEFAULT_TIMEOUT_MS).argParser(wholeNumber('--timeout', 1)))
    .option('--junit <file>', 'also write a JUnit XML report (one testcase per file) to this file; its folder is created')
    .addOption(new Option('--reporter <name>', 'human (per file and step) or json (the whole report on stdout)').choices(['human', 'json']).default('human'))
    .option('--json', 'the same as --reporter json')
    .addOption(new Option('--admin-token <token>', 'sent when enrolling, for a sandbox with SANDBOX_ADMIN_TOKEN').env('SANDBOX_ADMIN_TOKEN'))
    .option('-q, --quiet', 'list the steps of failing files only')
    .option('--no-color', 'plain output, also when stdout is a terminal')
    .addHelpText(
      'after',
      '\nExamples:\n  payreq-sandbox replay scenarios/\n  payreq-sandbox replay scenarios/ --base-url http://localhost:8080 --junit reports/scenarios.xml\n\nExit codes: 0 every file passed, 1 a file failed (a step, or a malformed file), 2 could not run (no files, the sandbox cannot be reached, the report cannot be written).',
    )
    .action(async (paths: string[], options: ReplayCommandOptions & { json?: boolean }) => {
      // Loaded only for this command: the runner and its YAML parser add ~150 ms to every start-up.
      const { INTERRUPTED_EXIT_CODE, replayCommand } = await import('./scenarios/replay-command.js');
      // Ctrl-C reports what ran (summary, --junit) and exits 130; a second one exits at once.
      const interrupt = new AbortController();
      const onInterrupt = () => (interrupt.signal.aborted ? process.exit(INTERRUPTED_EXIT_CODE) : interrupt.abort());
      process.on('SIGINT', onInterrupt);
      const code = await replayCommand(paths, { ...options, ...(options.json ? { reporter: 'json' as const } : {}), signal: interrupt.signal });
      process.off('SIGINT', onInterrupt);
      // Files cut short may still hold the event loop: the report is out, so the process ends here.
      if (code === INTERRUPTED_EXIT_CODE) process.exit(code);
      process.exitCode = code;
    });

  pointToHelpAfterError(program);
  return program;
}

/** A usage error ends with where the options are, not with the whole help: serve's would push the error off the screen. */
function pointToHelpAfterError(command: Command, path = ''): void {
  const named = path ? `${path} ${command.name()}` : command.name();
  command.showHelpAfterError(`(${named} --help lists the options)`);
  for (const sub of command.commands) pointToHelpAfterError(sub, named);
}

function httpUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('--base-url must be a URL such as http://localhost:8080.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidArgumentError('--base-url must be an http or https URL.');
  return value;
}

function forwardUrl(value: string): string {
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) throw new InvalidArgumentError('--forward-to must be an http or https URL such as http://localhost:3000/hooks.');
  return value;
}

/** A reader that went away (`payreq-sandbox replay ... | head`) ends the command quietly, not with an EPIPE stack. */
function quietOnClosedPipes(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(process.exitCode ?? EXIT_CODES.ok);
      throw err;
    });
  }
}

/** The command line: runs the command argv names; a usage error or one that stops the command before it runs exits 2. */
export async function main(argv: readonly string[]): Promise<void> {
  quietOnClosedPipes();
  const program = buildProgram();
  // A mistyped command (its options after it, too) is not serve's business: commander would pass it to serve, the default.
  const [first] = argv.slice(2);
  if (first !== undefined && !first.startsWith('-') && first !== 'help' && !program.commands.some((c) => c.name() === first)) {
    terminal.err(unknownCommandText(program, first));
    process.exit(EXIT_CODES.couldNotRun);
  }
  try {
    await program.parseAsync(argv);
  } catch (err) {
    // Commander has printed its own message (usage errors), or nothing at all (--help, --version).
    if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : EXIT_CODES.couldNotRun);
    terminal.err(err instanceof Error ? err.message : String(err));
    process.exit(EXIT_CODES.couldNotRun);
  }
}

// Run when started as `node dist/cli.js`; bin/payreq-sandbox.js calls main() too.
const invokedDirectly = process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) void main(process.argv);
