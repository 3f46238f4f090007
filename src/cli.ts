#!/usr/bin/env node
/** payreq-sandbox serve | replay | readiness | listen | qr decode. */
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { decodeEmvPayload } from './domain/emv.js';
import { terminal } from './command-output.js';
import { environmentHelp } from './serve-environment.js';
import { unknownCommandText } from './unknown-command.js';
import { serveCommand } from './serve-command.js';
import type { ServeOptions } from './serve-command.js';
import { DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT_MS } from './scenarios/defaults.js';
import type { ReplayCommandOptions } from './scenarios/replay-command.js';

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

/** The version in package.json, one folder up from src/cli.ts and dist/cli.js alike. */
function packageVersion(): string {
  const file = fileURLToPath(new URL('../package.json', import.meta.url));
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
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
