/** The PostgreSQL pool: while the database is away calls fail at once (nothing sent), not queued through postgres.js's back-off of up to 20 s. */
import { setTimeout as delay } from 'node:timers/promises';
import postgres from 'postgres';
import type { Logger } from '../logger.js';
import { StoreUnavailableError } from './unavailable.js';

export type Sql = postgres.Sql | postgres.TransactionSql;
export type Run = <T>(query: (sql: postgres.Sql) => Promise<T>) => Promise<T>;

/** PostgreSQL text cannot hold NUL: a key with one matches nothing stored (and must not reach the server, which refuses it). */
export function cannotBeStored(text: string): boolean {
  return text.includes('\0');
}

/** Keeps `value` as the newest of an instance's copies (merchants, payments, counts, sums); past 10,000 the oldest go first. */
export function keep<V>(map: Map<string, V>, key: string, value: V): V {
  map.delete(key);
  map.set(key, value);
  if (map.size > 10_000) map.delete(map.keys().next().value!);
  return value;
}

/** A call without an answer by then fails with 503 (its outcome unknown). */
const CALL_DEADLINE_MS = 5_000;
const PROBE_EVERY_MS = 1_000;

export class PostgresConnection {
  private sql: postgres.Sql;
  private downSince: number | null = null;
  private downReason = '';
  /** When a call first went unanswered past the deadline, while none has been answered since (a silent database is not marked down). */
  private lateSince: number | null = null;
  private closed = false;

  constructor(
    private readonly url: string,
    /** The URL with its password masked. */
    private readonly shownUrl: string,
    private readonly maxConnections: number,
    /** Where the outages are said: one line when one starts, one when it ends. */
    private readonly logger: Logger,
  ) {
    this.sql = this.pool();
  }

  async run<T>(query: (sql: postgres.Sql) => Promise<T>): Promise<T> {
    if (this.closed) throw new StoreUnavailableError('the PostgreSQL store is closed', false);
    if (this.downSince !== null) {
      throw new StoreUnavailableError(`the database ${this.shownUrl} cannot be reached since ${new Date(this.downSince).toISOString()} (${this.downReason})`, false);
    }
    const sql = this.sql;
    let deadline: NodeJS.Timeout | undefined;
    let missed = false;
    const late = new Promise<never>((_, reject) => {
      deadline = setTimeout(() => {
        missed = true;
        reject(new StoreUnavailableError(`the database ${this.shownUrl} did not answer within ${CALL_DEADLINE_MS / 1000} s`, true));
      }, CALL_DEADLINE_MS);
    });
    try {
      const result = await Promise.race([query(sql), late]);
      if (this.lateSince !== null) {
        this.logger.warn({ database: this.shownUrl, silent_s: Math.round((Date.now() - this.lateSince) / 1000) }, 'store: the database answers again');
        this.lateSince = null;
      }
      return result;
    } catch (err) {
      // One line when calls start to go unanswered, not one per call (the HTTP layer logs none).
      if (missed && this.lateSince === null) {
        this.lateSince = Date.now();
        this.logger.error({ database: this.shownUrl, deadline_s: CALL_DEADLINE_MS / 1000 }, 'store: the database does not answer in time; answering 503 for the calls it leaves unanswered');
      }
      const unavailable = connectionFailure(err, this.shownUrl);
      // An error from a pool already replaced (its queued calls rejected) says nothing of the new one.
      if (unavailable && sql === this.sql) this.markDown(unavailable.code);
      throw unavailable?.error ?? err;
    } finally {
      clearTimeout(deadline);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.sql.end({ timeout: 5 });
  }

  /** No array types fetched: the driver runs that statement on each new connection without awaiting it, so a connection the database drops then rejects it unhandled, which ends the process; lists are sent as JSON. */
  private pool(max = this.maxConnections): postgres.Sql {
    return postgres(this.url, {
      max,
      fetch_types: false,
      connect_timeout: CALL_DEADLINE_MS / 1000,
      idle_timeout: 60,
      onnotice: () => {},
      connection: { application_name: 'payreq-sandbox' },
    });
  }

  /** One line when the outage starts (tryAgain writes one when it ends): the HTTP layer logs none per request. */
  private markDown(reason: string): void {
    if (this.downSince !== null || this.closed) return;
    this.downSince = Date.now();
    this.downReason = reason;
    this.logger.error({ database: this.shownUrl, reason }, 'store: the database cannot be reached; answering 503 and trying again every second');
    void this.tryAgain();
  }

  /** A second after the outage starts, and after each probe that failed, a one-connection pool of its own asks again. */
  private async tryAgain(): Promise<void> {
    for (let answered = false; !answered; ) {
      await delay(PROBE_EVERY_MS, undefined, { ref: false });
      if (this.closed) return;
      const probe = this.pool(1);
      answered = await probe`SELECT 1`.then(() => true, () => false);
      await probe.end({ timeout: 0 }).catch(() => undefined);
    }
    if (this.closed) return;
    // The old pool may sit in a long back-off: a fresh one serves from now on.
    const old = this.sql;
    this.sql = this.pool();
    void old.end({ timeout: 0 }).catch(() => undefined);
    this.logger.warn({ database: this.shownUrl, down_s: Math.round((Date.now() - this.downSince!) / 1000) }, 'store: the database is reachable again');
    this.downSince = null;
  }
}

/** postgres.js 3.4.9 may write to a dead socket from a setImmediate (outside any call); serve-command.ts lets it pass, the calls on it answer 503. */
export function isDriverWriteAfterClose(err: unknown): boolean {
  return err instanceof TypeError && /reading 'write'/.test(err.message) && /postgres[\\/]src[\\/]connection\.js/.test(err.stack ?? '');
}

/** Error codes of a connection that failed or was lost (postgres.js and Node's socket errors). */
const CONNECTION_ERRORS = new Set([
  'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT',
  'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN',
]);

/** The StoreUnavailableError for a connection failure (and its code), or undefined for any other error. */
function connectionFailure(err: unknown, shownUrl: string): { error: StoreUnavailableError; code: string } | undefined {
  if (!(err instanceof Error)) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string') return undefined;
  // SQLSTATE class 08 (connection exception), 57P01-03 (shut down, crashed, starting), 53300 (too many connections).
  const serverRefused = err instanceof postgres.PostgresError && (code.startsWith('08') || /^57P0[123]$/.test(code) || code === '53300');
  if (!serverRefused && !CONNECTION_ERRORS.has(code)) return undefined;
  // A connection lost mid-call may have committed; one never made cannot have.
  const unknown = code === 'CONNECTION_CLOSED' || code === 'ECONNRESET' || code === 'EPIPE' || code === '57P01' || code === '57P02';
  return { error: new StoreUnavailableError(`the database ${shownUrl} cannot be reached (${code})`, unknown), code };
}
