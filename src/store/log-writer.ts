/**
 * The file store's write-ahead log: where its changes hit the disk, one line a record, in
 * numbered segments `<dataFile>.wal.<n>`.
 *
 * Group commit: what is given to `change` or `ride` in one event-loop turn is appended together,
 * with one synchronous write at the end of the turn (setImmediate). A change comes with how to
 * undo it in memory: if the write fails, the changes of the batch are undone (newest first) and
 * every one of their waiters is refused, so no answer reports a change the log does not hold.
 * While a batch holds a change, `pending()` is its write, which any answer of the turn waits for
 * (it may have read that change in memory). Records that only ride along (the request journal,
 * webhook attempts) make nobody wait: nobody reports them as written. `now` writes at once, after
 * whatever is pending, so the log keeps the order memory saw.
 *
 * A failed append is cut back to the last whole line (or, if that fails too, the next write
 * goes to a fresh segment): the next record is never glued to half a line. The failure stays
 * in `failure` until an append lands again, for /healthz (a full disk, a read-only directory).
 *
 * After every write, before anyone is told of it, the end marker `<dataFile>.wal-end` is
 * overwritten in place with the length of each segment not yet folded (one more small write):
 * a start then finds a segment cut after it was written, even between two records.
 */
import { closeSync, constants, ftruncateSync, openSync, readdirSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { errorFields, loggerOr } from '../logger.js';
import type { Logger } from '../logger.js';
import { encodeLogEnd } from './store-records.js';

/** Why the last append failed (it did not land); cleared by the next append that lands. */
export interface AppendFailure {
  /** The errno code (ENOSPC, EROFS, EACCES...), or undefined for an error without one. */
  readonly code: string | undefined;
  readonly message: string;
  /** When: performance.now(), the clock every writer and the health probe share, to tell which came last. */
  readonly at: number;
}

/** Bytes and records appended since start; tests read them to show a write's cost is flat. */
export interface LogCounters {
  /** Of changes (payments, merchants, resets, prunes, deliveries with their change, resends). */
  bytesAppended: number;
  recordsAppended: number;
  /** Writes that carried a change. */
  writes: number;
  /** Of records riding along: journal entries and webhook attempts. */
  ridingBytes: number;
  ridingRecords: number;
  compactions: number;
}

interface Batch {
  text: string;
  changes: number;
  changeBytes: number;
  riders: number;
  readonly undo: (() => void)[];
  readonly landed: (() => void)[];
  /** What the batch's changes change, as their callers name it (a payment id): for `pendingOf`. */
  readonly keys: Set<string>;
  readonly written: Promise<void>;
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
}

export class LogWriter {
  readonly counters: LogCounters = { bytesAppended: 0, recordsAppended: 0, writes: 0, ridingBytes: 0, ridingRecords: 0, compactions: 0 };
  /** Records in the log since the last rotation: what the next fold takes into the snapshot. */
  records = 0;
  private segment = 0;
  private fd: number | null = null;
  private opened = false;
  /** The last append failed and its segment could not be cut back: the next write opens a fresh one. */
  private freshSegmentDue = false;
  private lastFailure: AppendFailure | undefined;
  /** Bytes in the current segment: where a failed append is cut back to. */
  private segmentBytes = 0;
  private batch: Batch | null = null;
  /** Bytes written to each segment not yet folded: what the end marker holds. */
  private readonly lengths = new Map<number, number>();
  private endFd: number | null = null;
  private endFailed = false;

  constructor(
    readonly dataFile: string,
    /** Told after every write that landed (the store decides there whether to fold). */
    private readonly afterWrite: () => void = () => undefined,
    private readonly logger: Logger = loggerOr(undefined),
  ) {}

  get isOpen(): boolean {
    return this.opened;
  }

  /** Why the last append failed, until one lands again. */
  get failure(): AppendFailure | undefined {
    return this.lastFailure;
  }

  segmentFile(n: number): string {
    return `${this.dataFile}.wal.${n}`;
  }

  get endFile(): string {
    return `${this.dataFile}.wal-end`;
  }

  /** The numbers of the segments on disk, lowest first. */
  segments(): number[] {
    const prefix = `${path.basename(this.dataFile)}.wal.`;
    return readdirSync(path.dirname(this.dataFile))
      .filter((f) => f.startsWith(prefix) && /^\d+$/.test(f.slice(prefix.length)))
      .map((f) => Number(f.slice(prefix.length)))
      .sort((a, b) => a - b);
  }

  /**
   * Starts writing to segment `n` (a fresh one: the last one read may end in a torn line);
   * `before` holds the lengths of the segments read at start, which the end marker keeps.
   */
  open(n: number, before: ReadonlyMap<number, number> = new Map()): void {
    this.fd = openSync(this.segmentFile(n), 'a');
    this.opened = true;
    this.freshSegmentDue = false;
    this.segment = n;
    this.segmentBytes = 0;
    for (const [segment, bytes] of before) this.lengths.set(segment, bytes);
    // Not truncated: a crash before the first write would leave an empty marker, which is damage.
    this.endFd ??= openSync(this.endFile, constants.O_RDWR | constants.O_CREAT);
    this.markEnd();
  }

  /**
   * Appends `lines` (`records` records) at the end of the turn; answers that write. `landed`
   * runs as soon as it lands, before anything else can happen (a fold then sees its effect).
   * `key` names what the change changes, for `pendingOf`.
   */
  change(lines: string, records: number, undo: () => void, landed?: () => void, key?: string): Promise<void> {
    const batch = this.current();
    batch.text += lines;
    batch.changes += records;
    batch.changeBytes += Buffer.byteLength(lines);
    batch.undo.push(undo);
    if (landed) batch.landed.push(landed);
    if (key !== undefined) batch.keys.add(key);
    return batch.written;
  }

  /** Appends a record nobody reports as written at the end of the turn; answers that write. */
  ride(line: string): Promise<void> {
    const batch = this.current();
    batch.text += line;
    batch.riders++;
    return batch.written;
  }

  /** Writes `line` now, with the pending batch before it; throws when it cannot. */
  now(line: string): void {
    this.flush();
    const bytes = this.write(line);
    this.count(bytes, bytes, 1, 0);
  }

  /** The write of the pending batch, while it holds a change. */
  pending(): Promise<void> | undefined {
    return this.batch && this.batch.changes > 0 ? this.batch.written : undefined;
  }

  /** The write of the pending batch, while it holds a change given `key`. */
  pendingOf(key: string): Promise<void> | undefined {
    return this.batch?.keys.has(key) ? this.batch.written : undefined;
  }

  /** Writes the pending batch; on failure undoes its changes in memory, refuses its waiters and throws. */
  flush(): void {
    const batch = this.batch;
    if (!batch) return;
    this.batch = null;
    let bytes: number;
    try {
      bytes = this.write(batch.text);
    } catch (err) {
      for (let i = batch.undo.length - 1; i >= 0; i--) batch.undo[i]!();
      batch.reject(err);
      throw err;
    }
    this.count(bytes, batch.changeBytes, batch.changes, batch.riders);
    for (const landed of batch.landed) landed();
    batch.resolve();
  }

  /** Goes on in the next segment; answers its number. Whatever is pending is written first. */
  rotate(): number {
    if (!this.opened) throw new Error(`the file store ${this.dataFile} is closed`);
    this.flush();
    const next = this.segment + 1;
    const nextFd = openSync(this.segmentFile(next), 'a');
    if (this.fd !== null) closeSync(this.fd);
    this.fd = nextFd;
    this.freshSegmentDue = false;
    this.segment = next;
    this.segmentBytes = 0;
    this.records = 0;
    this.markEnd();
    return next;
  }

  /** Deletes the segments before `n` (folded into a snapshot). */
  deleteBefore(n: number): void {
    for (const old of this.segments()) if (old < n) unlinkSync(this.segmentFile(old));
    for (const old of this.lengths.keys()) if (old < n) this.lengths.delete(old);
    this.markEnd();
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    if (this.endFd !== null) closeSync(this.endFd);
    this.fd = null;
    this.endFd = null;
    this.opened = false;
  }

  private current(): Batch {
    if (!this.opened) throw new Error(`the file store ${this.dataFile} is not open`);
    if (this.batch) return this.batch;
    const batch = (this.batch = newBatch());
    setImmediate(() => {
      if (this.batch !== batch) return;
      try {
        this.flush();
      } catch (err) {
        // Already answered to every waiter; said here once for the operator.
        this.logger.error({ file: this.dataFile, ...errorFields(err) }, 'store write failed: the changes of this turn were undone and refused');
      }
    });
    return batch;
  }

  /** Appends `text` whole or not at all; answers its bytes. */
  private write(text: string): number {
    if (!this.opened) throw new Error(`the file store ${this.dataFile} is not open`);
    const bytes = Buffer.from(text, 'utf8');
    let written = 0;
    try {
      if (this.freshSegmentDue) this.openFresh();
      while (written < bytes.length) written += writeSync(this.fd!, bytes, written);
    } catch (err) {
      this.lastFailure = { code: errnoOf(err), message: err instanceof Error ? err.message : String(err), at: performance.now() };
      this.cutBack();
      throw err;
    }
    this.lastFailure = undefined;
    this.segmentBytes += bytes.length;
    this.markEnd();
    return bytes.length;
  }

  /**
   * Overwrites the end marker with the segments' lengths. A marker that cannot be written is
   * left as it was (shorter lengths: nothing is taken for cut), and said once: the write it
   * follows stands.
   */
  private markEnd(): void {
    this.lengths.set(this.segment, this.segmentBytes);
    if (this.endFd === null) return;
    const line = Buffer.from(encodeLogEnd(this.lengths));
    try {
      writeSync(this.endFd, line, 0, line.length, 0);
      this.endFailed = false;
    } catch (err) {
      if (!this.endFailed) this.logger.error({ file: this.endFile, ...errorFields(err) }, "store end marker not written (a start checks the log's length against it)");
      this.endFailed = true;
    }
  }

  private count(bytes: number, changeBytes: number, changes: number, riders: number): void {
    const c = this.counters;
    c.bytesAppended += changeBytes;
    c.recordsAppended += changes;
    c.ridingBytes += bytes - changeBytes;
    c.ridingRecords += riders;
    if (changes > 0) c.writes++;
    this.records += changes + riders;
    this.afterWrite();
  }

  /**
   * After a failed append (which may have written part of its text): truncate the segment to
   * its last whole line; if that fails too (a device gone read-only), the next write goes to a
   * fresh segment, so no record is glued to the part written.
   */
  private cutBack(): void {
    try {
      ftruncateSync(this.fd!, this.segmentBytes);
    } catch {
      this.freshSegmentDue = true;
    }
  }

  /** Goes on in the next segment after one that could not be cut back; throws (changing nothing) when it cannot be opened. */
  private openFresh(): void {
    const nextFd = openSync(this.segmentFile(this.segment + 1), 'a');
    if (this.fd !== null) closeSync(this.fd);
    this.fd = nextFd;
    this.segment++;
    this.segmentBytes = 0;
    this.freshSegmentDue = false;
  }
}

function errnoOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const written = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Nobody may be waiting (a change whose caller gave up, a journal entry); a failure is logged where it happens.
  written.catch(() => undefined);
  return { text: '', changes: 0, changeBytes: 0, riders: 0, undo: [], landed: [], keys: new Set(), written, resolve, reject };
}
