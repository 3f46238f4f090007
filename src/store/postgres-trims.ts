/** The bounded tables' trims, run by a timer, never on a request's statement (SPEC 20); reads apply the caps, so a trim bounds tables, not what is seen. */
import type postgres from 'postgres';
import { errorFields, type Logger } from '../logger.js';
import type { Run, Sql } from './postgres-connection.js';
import { StoreUnavailableError } from './unavailable.js';

/** How often due trims run, and how many at most per run. */
const TRIM_RUN_EVERY_MS = 1_000;
export const TRIMS_PER_RUN = 16;
/** A merchant's part (journal, evidence, deliveries, idempotency keys) is trimmed after this many rows of this instance. */
export const TRIM_EVERY = 50;
/** Trims run at once, each on its own connection. */
const TRIMS_AT_ONCE = 4;

/** Deletes what a part's cap leaves out of one merchant's rows. */
type Trim = (sql: postgres.Sql, payeeId: string) => Promise<unknown>;

/** Deletes the merchant's rows of `table` older than its newest `cap` by `order`: a part's trim by count. */
export function keepNewest(sql: Sql, table: string, order: string, payeeId: string, cap: number) {
  return sql`
    DELETE FROM ${sql(table)} WHERE payee_id = ${payeeId} AND ${sql(order)} < (
      SELECT ${sql(order)} FROM ${sql(table)} WHERE payee_id = ${payeeId} ORDER BY ${sql(order)} DESC OFFSET ${cap - 1} LIMIT 1)`;
}

/** One part's counter: `note` after rows (of `bytes`) were added; `due` when the merchant's trim should run at the next run whatever the count (rows were erased). */
export interface TrimCounter {
  note(payeeId: string, added?: number, bytes?: number): void;
  due(payeeId: string): void;
}

export class PostgresTrims {
  /** Due trims, each part's merchant once (insertion order: the oldest first). */
  private readonly due = new Map<string, { readonly trim: Trim; readonly payeeId: string }>();
  private readonly timer: NodeJS.Timeout;
  private running: Promise<void> | null = null;
  private parts = 0;
  private kicked = false;
  private stopped = false;

  constructor(
    private readonly run: Run,
    private readonly logger: Logger,
  ) {
    this.timer = setInterval(() => void this.runDue(TRIMS_PER_RUN), TRIM_RUN_EVERY_MS);
    this.timer.unref();
  }

  /** A part's trim is due for a merchant after `every` rows this instance added (an answer may count for several), or at once after `everyBytes` bytes. */
  counter(trim: Trim, every = TRIM_EVERY, everyBytes = Number.POSITIVE_INFINITY): TrimCounter {
    const part = this.parts++;
    const added = new Map<string, { rows: number; bytes: number }>();
    const due = (payeeId: string) => {
      added.delete(payeeId);
      this.due.set(`${part}\0${payeeId}`, { trim, payeeId });
    };
    return {
      note: (payeeId, rows = 1, bytes = 0) => {
        const n = added.get(payeeId) ?? { rows: 0, bytes: 0 };
        n.rows += rows;
        n.bytes += bytes;
        if (n.bytes >= everyBytes) {
          due(payeeId);
          this.soon();
        } else if (n.rows >= every) due(payeeId);
        else added.set(payeeId, n);
      },
      due,
    };
  }

  /** A trim fell due by bytes: runs follow each other at once, not a second apart, until none is due. */
  private soon(): void {
    if (this.kicked || this.stopped) return;
    this.kicked = true;
    setImmediate(() => {
      void this.runDue(TRIMS_PER_RUN).then(() => {
        this.kicked = false;
        if (this.due.size > 0) this.soon();
      });
    });
  }

  /** Runs every due trim now, and what falls due meanwhile: tests look after it. */
  async runAll(): Promise<void> {
    while (this.due.size > 0 || this.running) await this.runDue(Number.MAX_SAFE_INTEGER);
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  /** Up to `most` due trims, one at a time; one run at once. A failed trim is dropped: the next rows make it due again. */
  private runDue(most: number): Promise<void> {
    if (this.running) return this.running;
    if (this.due.size === 0) return Promise.resolve();
    this.running = (async () => {
      let done = 0;
      // A few at once, each on a connection of its own: trims by bytes must keep up with writes.
      const next = async (): Promise<void> => {
        for (const [key, { trim, payeeId }] of this.due) {
          if (done++ >= most) return;
          this.due.delete(key);
          await this.run((sql) => trim(sql, payeeId)).catch((err: unknown) => {
            // The store says once when its database goes away; any other failure is a fault worth seeing.
            if (!(err instanceof StoreUnavailableError)) this.logger.warn({ payee_id: payeeId, ...errorFields(err) }, 'store trim failed (the next rows added make it due again)');
          });
        }
      };
      await Promise.all(Array.from({ length: TRIMS_AT_ONCE }, next));
    })().finally(() => (this.running = null));
    return this.running;
  }
}
