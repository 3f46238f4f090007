/**
 * A throw-away PostgreSQL cluster, run from Debian's server binaries (scripts/ensure-postgres.sh):
 * for the tests, the bench, and `payreq-sandbox dev-postgres` (a database to try the shared store).
 * Each call makes a fresh cluster in its own temp directory, listening on 127.0.0.1 only.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, openSync, closeSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface PostgresServer {
  url: string;
  dataDir: string;
  port: number;
  /** Fast shutdown, then removes the temp directory; the server cannot be restarted after this. */
  stop(): Promise<void>;
  /** SIGKILLs the postmaster, as a crash would. */
  kill(): void;
  /** Starts again on the same data dir and port; if still running, first stops it the way `pg_ctl stop -m immediate` does. */
  restart(): Promise<void>;
}

export function postgresBinDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'postgres'))) : [];
  versions.sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a));
  if (!versions[0]) throw new Error('No PostgreSQL server binaries; run scripts/ensure-postgres.sh or set PG_BIN.');
  return join(root, versions[0], 'bin');
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

// initdb and postgres refuse to run as root, so as root the server processes run as the `postgres` OS user.
function serverIdentity(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

export async function startPostgres(options: { fast?: boolean } = {}): Promise<PostgresServer> {
  const bin = postgresBinDir();
  const who = serverIdentity();
  const root = mkdtempSync(join(tmpdir(), 'pg-test-'));
  if (who) chownSync(root, who.uid, who.gid);
  const dataDir = join(root, 'data');
  const logFile = join(root, 'postgres.log');
  // LC_ALL=C keeps a host's uninstalled locale from making initdb or postgres fail or warn.
  const env = { ...process.env, LC_ALL: 'C', LANG: 'C' };
  await run(join(bin, 'initdb'), ['-D', dataDir, '-A', 'trust', '-U', 'sandbox', '-E', 'UTF8', '--no-locale', '--no-sync', '--no-instructions'], { env, ...who });

  const settings = ['max_connections=200', 'listen_addresses=127.0.0.1', `unix_socket_directories=${root}`, 'timezone=UTC'];
  if (options.fast) settings.push('fsync=off', 'synchronous_commit=off', 'full_page_writes=off');

  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let port = 0;
  let gone = false;

  const launch = async (): Promise<void> => {
    const log = openSync(logFile, 'a');
    // postgres itself (not pg_ctl or runuser) is our child, so kill() can SIGKILL the postmaster by its pid.
    const proc = spawn(join(bin, 'postgres'), ['-D', dataDir, '-p', String(port), ...settings.flatMap((s) => ['-c', s])], { env, stdio: ['ignore', log, log], ...who });
    closeSync(log);
    child = proc;
    exited = new Promise((resolve) => proc.once('exit', () => resolve()));
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`postgres exited during start-up:\n${readFileSync(logFile, 'utf8').slice(-2000)}`);
      try {
        await run(join(bin, 'pg_isready'), ['-q', '-h', '127.0.0.1', '-p', String(port), '-U', 'sandbox', '-d', 'postgres'], { env });
        return;
      } catch {
        await sleep(25);
      }
    }
    proc.kill('SIGKILL');
    throw new Error(`postgres did not accept connections within 30 s:\n${readFileSync(logFile, 'utf8').slice(-2000)}`);
  };

  const running = () => child !== undefined && child.exitCode === null && child.signalCode === null;
  const halt = async (signal: NodeJS.Signals) => {
    if (running()) child?.kill(signal);
    await exited;
  };
  // A worker that dies without calling stop() must not leave a postmaster and its directory behind.
  const onExit = () => {
    if (running()) child?.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  };
  process.once('exit', onExit);

  // The free port can be taken by someone else before postgres binds it, so a failed first start tries another port.
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    try {
      await launch();
      break;
    } catch (error) {
      await halt('SIGKILL');
      if (attempt >= 3 || !/could not (bind|create listen)/i.test(String(error))) {
        onExit();
        process.off('exit', onExit);
        throw error;
      }
    }
  }

  return {
    url: `postgres://sandbox@127.0.0.1:${port}/postgres`,
    dataDir,
    port,
    kill: () => {
      if (running()) child?.kill('SIGKILL');
    },
    restart: async () => {
      if (gone) throw new Error('restart() after stop(): the cluster was removed');
      await halt('SIGQUIT'); // SIGQUIT is what pg_ctl stop -m immediate sends: no checkpoint, crash recovery on start.
      // Backends orphaned by a SIGKILLed postmaster hold its shared memory until they notice and exit, so start-up is retried.
      for (let attempt = 1; ; attempt++) {
        try {
          await launch();
          return;
        } catch (error) {
          await halt('SIGKILL');
          if (attempt >= 40 || !/shared memory block|lock file .* already exists|could not bind/i.test(String(error))) throw error;
          await sleep(250);
        }
      }
    },
    stop: async () => {
      if (gone) return;
      gone = true;
      await halt('SIGINT'); // SIGINT is what pg_ctl stop -m fast sends.
      onExit();
      process.off('exit', onExit);
    },
  };
}
