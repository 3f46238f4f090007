/**
 * The durable store: a lowdb JSON snapshot plus an append-only write-ahead log.
 *
 * Group commit: the payment changes of one event-loop turn are appended to the log together,
 * with one synchronous write at the end of the turn (setImmediate), and nobody is answered
 * before it: the writers wait for their own change, and every other answer of that turn waits
 * for the write (`pendingWrites`), since it may have read one of those changes in memory. If
 * the write fails, the changes of the batch are undone in memory and every one of those
 * answers fails, so no answer ever reports a change the log does not hold. Merchant changes,
 * resets and prunes (rare) are written at once, with whatever is pending, before memory changes.
 *
 * The log is folded into the lowdb snapshot in the background once it holds as many records
 * as the snapshot (so the amortised cost per write stays flat), and at shutdown; a background
 * fold that fails waits 30 s before the next, doubling to 10 min. A process killed at any moment
 * restarts with every acknowledged change.
 *
 * Files: `<dataFile>` (the lowdb snapshot, replaced atomically) and `<dataFile>.wal.<n>`
 * segments. The snapshot names the first segment it does not include, so a crash between
 * writing the snapshot and deleting old segments leaves segments that are simply skipped.
 * A failed append is cut back to the last whole line; a torn last line (a crash mid-write,
 * never acknowledged) is skipped on replay, and any other damage stops start-up loudly.
 */
import { closeSync, existsSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { Low } from 'lowdb';
import type { Merchant } from '../domain/merchant.js';
import type { Payment } from '../domain/payment.js';
import { MemoryStore } from './memory-store.js';
import { SnapshotFile } from './snapshot-file.js';

export const SNAPSHOT_FORMAT = 'payreq-sandbox/1';

export interface Snapshot {
  format: string;
  /** The first log segment the snapshot does not include. */
  walSegment: number;
  merchants: Merchant[];
  payments: Payment[];
}

type LogRecord =
  | { readonly t: 'merchant'; readonly v: Merchant }
  | { readonly t: 'payment'; readonly v: Payment }
  | { readonly t: 'reset'; readonly payeeId: string }
  | { readonly t: 'prune'; readonly payeeId: string; readonly createdBefore: number };

export interface FileStoreOptions {
  readonly dataFile: string;
  /** Fold the log into the snapshot once it holds this many records, or as many as the snapshot, whichever is more. */
  readonly compactAfter?: number;
  /** Milliseconds, for the wait after a failed fold; tests move it by hand. */
  readonly clock?: () => number;
}

/** After a failed background fold, the first wait before the next; it doubles up to the most. */
export const FOLD_RETRY_FIRST_MS = 30_000;
export const FOLD_RETRY_MOST_MS = 10 * 60_000;

export class FileStore extends MemoryStore {
  override readonly kind = 'file' as const;
  private readonly db: Low<Snapshot>;
  private segment = 0;
  private fd: number | null = null;
  /** Bytes in the current segment: where a failed append is cut back to. */
  private segmentBytes = 0;
  private logRecords = 0;
  private compacting: Promise<void> | null = null;
  /** No background fold before `at` (clock ms): a fold that fails is not retried on every write. */
  private foldRetry = { at: -Infinity, waitMs: 0 };
  private closed = false;
  /** Payment changes of this turn: in memory already, written together at its end. */
  private batch: Batch | null = null;

  constructor(private readonly options: FileStoreOptions) {
    super();
    this.db = new Low<Snapshot>(new SnapshotFile<Snapshot>(options.dataFile), emptySnapshot());
  }

  get dataFile(): string {
    return this.options.dataFile;
  }

  /** Bytes and records appended to the log since start; tests read it to show a write's cost is flat. */
  readonly counters = { bytesAppended: 0, recordsAppended: 0, writes: 0, compactions: 0 };

  override async open(): Promise<void> {
    const file = this.options.dataFile;
    mkdirSync(path.dirname(file), { recursive: true });
    // Through the adapter, not Low: Low takes a file holding null (or false, 0, "") for no file.
    const stored: unknown = await this.db.adapter.read();
    if (stored === null && existsSync(file)) throw damagedSnapshot(file, 'it holds null, not a store snapshot');
    const snapshot = (stored ?? emptySnapshot()) as Snapshot;
    if (isObject(snapshot) && !Array.isArray(snapshot) && snapshot.format !== SNAPSHOT_FORMAT) {
      throw new Error(`${file} is not a payreq-sandbox store (format ${String(snapshot.format)}): point --data at a payreq-sandbox store, or move ${file} away to start with an empty one`);
    }
    const problem = snapshotProblem(snapshot);
    if (problem) throw damagedSnapshot(file, problem);
    for (const m of snapshot.merchants) this.applyMerchant(m);
    for (const p of snapshot.payments) this.applyPayment(this.withSharedPayee(p));
    const segments = this.segments().filter((n) => n >= snapshot.walSegment);
    for (const n of segments) this.logRecords += this.replay(this.segmentFile(n));
    // Always start a fresh segment: the last one may end in a torn line.
    this.segment = Math.max(snapshot.walSegment, ...segments.map((n) => n + 1));
    this.fd = openSync(this.segmentFile(this.segment), 'a');
    // Snapshots hold plain arrays; drop them so memory holds each record once.
    this.db.data = emptySnapshot();
  }

  override async ready(): Promise<void> {
    if (this.closed || this.fd === null) throw new Error(`the file store ${this.options.dataFile} is closed`);
  }

  override async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.compacting?.catch(() => undefined);
      this.flushBatch();
      await this.compact();
    } finally {
      // Whatever the snapshot did, every acknowledged change is already in the log.
      if (this.fd !== null) closeSync(this.fd);
      this.fd = null;
    }
  }

  override async saveMerchant(merchant: Merchant): Promise<void> {
    this.appendNow({ t: 'merchant', v: merchant });
    this.applyMerchant(merchant);
  }

  override pendingWrites(): Promise<void> | undefined {
    return this.batch?.written;
  }

  protected override persistPayment(payment: Payment, previous: Payment | undefined): Promise<void> {
    if (this.fd === null) throw new Error('the file store is not open');
    let batch = this.batch;
    if (!batch) {
      batch = this.batch = newBatch();
      setImmediate(() => {
        if (this.batch === batch) this.flushBatchOrLog();
      });
    }
    batch.text += `${JSON.stringify({ t: 'payment', v: payment } satisfies LogRecord)}\n`;
    batch.records++;
    batch.undo.push(() => this.unapplyPayment(payment, previous));
    return batch.written;
  }

  protected override persistReset(payeeId: string): void {
    this.appendNow({ t: 'reset', payeeId });
  }

  protected override persistPrune(payeeId: string, createdBefore: number): void {
    this.appendNow({ t: 'prune', payeeId, createdBefore });
  }

  /** Folds the log into a new lowdb snapshot and deletes the folded segments. */
  async compact(): Promise<void> {
    if (this.compacting) return this.compacting;
    this.compacting = this.compactNow().finally(() => {
      this.compacting = null;
    });
    return this.compacting;
  }

  private async compactNow(): Promise<void> {
    if (this.fd === null) return;
    // The snapshot is taken from memory: what memory holds must be in the log first.
    this.flushBatch();
    // Rotate first: changes made while the snapshot is written go to the new segment.
    const next = this.segment + 1;
    const nextFd = openSync(this.segmentFile(next), 'a');
    closeSync(this.fd);
    this.fd = nextFd;
    this.segment = next;
    this.segmentBytes = 0;
    this.logRecords = 0;
    this.db.data = { format: SNAPSHOT_FORMAT, walSegment: next, merchants: [...this.merchants.values()], payments: [...this.payments.values()] };
    try {
      await this.db.write();
    } finally {
      this.db.data = emptySnapshot();
    }
    for (const n of this.segments()) if (n < next) unlinkSync(this.segmentFile(n));
    this.counters.compactions++;
    this.foldRetry = { at: -Infinity, waitMs: 0 };
  }

  /** Starts a background fold, unless one failed too recently. */
  private foldInBackground(): void {
    if (this.compacting || this.now() < this.foldRetry.at) return;
    this.compact().catch((err: unknown) => {
      const waitMs = Math.min(Math.max(FOLD_RETRY_FIRST_MS, this.foldRetry.waitMs * 2), FOLD_RETRY_MOST_MS);
      this.foldRetry = { at: this.now() + waitMs, waitMs };
      console.error(`store compaction failed (the log keeps every change; next try in ${waitMs / 1000} s):`, errorText(err));
    });
  }

  private now(): number {
    return this.options.clock ? this.options.clock() : performance.now();
  }

  /** The end of a turn: writes its batch; a failure is already answered to every waiting request. */
  private flushBatchOrLog(): void {
    try {
      this.flushBatch();
    } catch (err) {
      console.error('store write failed; the changes of this turn were undone and refused:', errorText(err));
    }
  }

  /** Writes the pending batch; on failure undoes its changes in memory, rejects its waiters and throws. */
  private flushBatch(): void {
    const batch = this.batch;
    if (!batch) return;
    this.batch = null;
    try {
      this.write(batch.text, batch.records);
    } catch (err) {
      for (let i = batch.undo.length - 1; i >= 0; i--) batch.undo[i]!();
      batch.reject(err);
      throw err;
    }
    batch.resolve();
  }

  /** Writes `record` now, with the pending batch before it, so the log keeps the order memory saw. */
  private appendNow(record: LogRecord): void {
    if (this.fd === null) throw new Error('the file store is not open');
    this.flushBatch();
    this.write(`${JSON.stringify(record)}\n`, 1);
  }

  private write(text: string, records: number): void {
    if (this.fd === null) throw new Error('the file store is not open');
    const bytes = Buffer.from(text, 'utf8');
    let written = 0;
    try {
      while (written < bytes.length) written += writeSync(this.fd, bytes, written);
    } catch (err) {
      // Never leave half a line behind (a failed write may still have written some bytes):
      // the next record would be glued to it and lost on replay.
      this.cutBack();
      throw err;
    }
    this.segmentBytes += bytes.length;
    this.counters.bytesAppended += bytes.length;
    this.counters.recordsAppended += records;
    this.counters.writes++;
    this.logRecords += records;
    const threshold = Math.max(this.options.compactAfter ?? 10_000, this.payments.size);
    if (this.logRecords >= threshold && !this.compacting && this.now() >= this.foldRetry.at) setImmediate(() => this.foldInBackground());
  }

  /** After a failed append: truncate the segment to its last whole line, or start a fresh one. */
  private cutBack(): void {
    try {
      ftruncateSync(this.fd!, this.segmentBytes);
    } catch {
      closeSync(this.fd!);
      this.segment++;
      this.fd = openSync(this.segmentFile(this.segment), 'a');
      this.segmentBytes = 0;
    }
  }

  private replay(file: string): number {
    const lines = readFileSync(file, 'utf8').split('\n');
    const last = lines.findLastIndex((line) => line !== '');
    let count = 0;
    for (const [index, line] of lines.entries()) {
      if (!line) continue;
      let record: LogRecord;
      try {
        record = JSON.parse(line) as LogRecord;
      } catch {
        // A torn last line is a write cut short by a crash, never acknowledged; anywhere else it is damage.
        if (index === last) continue;
        throw this.damagedLog(file, index + 1, 'is not a whole log record');
      }
      // A line that parses is whole, last or not: a wrong shape is damage, never a torn write.
      const problem = logRecordProblem(record);
      if (problem) throw this.damagedLog(file, index + 1, problem);
      if (record.t === 'merchant') this.applyMerchant(record.v);
      else if (record.t === 'payment') this.applyPayment(this.withSharedPayee(record.v));
      else if (record.t === 'reset') this.applyReset(record.payeeId);
      else this.applyPrune(record.payeeId, record.createdBefore);
      count++;
    }
    return count;
  }

  private damagedLog(file: string, line: number, problem: string): Error {
    return new Error(
      `${file} line ${line} ${problem}: the store is damaged; restore ${file} from a copy, or move it away to start without the changes it holds (moving ${this.options.dataFile} and all its .wal.* files away starts an empty store)`,
    );
  }

  /**
   * A payment just parsed from the snapshot or the log, its payeeId made the merchant's own
   * string: JSON.parse gives every record its own copy (~32 bytes each, 3.2 MB at 100,000). The
   * record is not shared with anything yet, so it is changed in place; the value is the same.
   */
  private withSharedPayee(p: Payment): Payment {
    const merchant = this.merchants.get(p.payeeId);
    if (merchant) (p as { payeeId: string }).payeeId = merchant.payeeId;
    return p;
  }

  private segmentFile(n: number): string {
    return `${this.options.dataFile}.wal.${n}`;
  }

  private segments(): number[] {
    const dir = path.dirname(this.options.dataFile);
    const prefix = `${path.basename(this.options.dataFile)}.wal.`;
    return readdirSync(dir)
      .filter((f) => f.startsWith(prefix) && /^\d+$/.test(f.slice(prefix.length)))
      .map((f) => Number(f.slice(prefix.length)))
      .sort((a, b) => a - b);
  }
}

interface Batch {
  text: string;
  records: number;
  readonly undo: (() => void)[];
  readonly written: Promise<void>;
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
}

function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const written = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Nobody may be waiting (a change whose caller gave up); a failure is logged where it happens.
  written.catch(() => undefined);
  return { text: '', records: 0, undo: [], written, resolve, reject };
}

function damagedSnapshot(file: string, problem: string): Error {
  return new Error(`${file} is damaged: ${problem}. Restore ${file} from a copy, or move it and its .wal.* files away to start with an empty store`);
}

/** What makes a parsed snapshot unusable, or undefined: checked before anything is applied. */
function snapshotProblem(s: unknown): string | undefined {
  if (!isObject(s) || Array.isArray(s)) return `it holds ${kindOf(s)}, not a store snapshot`;
  if (!Number.isSafeInteger(s.walSegment) || (s.walSegment as number) < 0) return `walSegment is ${kindOf(s.walSegment)}, not a segment number`;
  for (const [key, problemOf] of [['merchants', merchantProblem], ['payments', paymentProblem]] as const) {
    const list = s[key];
    if (!Array.isArray(list)) return `${key} is not a list`;
    for (const [i, item] of list.entries()) {
      const problem = problemOf(item);
      if (problem) return `${key}[${i}] ${problem}`;
    }
  }
  return undefined;
}

/** What makes a parsed log line unusable, said of the line ("is ..."), or undefined. */
function logRecordProblem(r: unknown): string | undefined {
  if (!isObject(r) || Array.isArray(r)) return `is ${kindOf(r)}, not a log record`;
  switch (r.t) {
    case 'merchant':
    case 'payment': {
      const problem = (r.t === 'merchant' ? merchantProblem : paymentProblem)(r.v);
      return problem && `is a ${r.t} record whose v ${problem}`;
    }
    case 'reset':
      return typeof r.payeeId === 'string' ? undefined : 'is a reset record without its payeeId';
    case 'prune':
      return typeof r.payeeId === 'string' && typeof r.createdBefore === 'number' ? undefined : 'is a prune record without its payeeId or createdBefore';
    default:
      return `has type t=${JSON.stringify(r.t) ?? 'missing'}, none of merchant, payment, reset, prune`;
  }
}

function merchantProblem(m: unknown): string | undefined {
  if (!isObject(m)) return `is ${kindOf(m)}, not a merchant`;
  if (typeof m.payeeId !== 'string') return 'is a merchant without its payeeId';
  if (!Array.isArray(m.apiKeys) || !m.apiKeys.every((k) => typeof k === 'string')) return `is merchant ${m.payeeId} without its apiKeys`;
  return undefined;
}

/** The fields the store indexes a payment by: without them it cannot be held at all. */
const PAYMENT_KEYS = ['id', 'payeeId', 'token', 'code', 'merchantRefNo', 'status'] as const;

function paymentProblem(p: unknown): string | undefined {
  if (!isObject(p)) return `is ${kindOf(p)}, not a payment`;
  const missing = PAYMENT_KEYS.find((key) => typeof p[key] !== 'string');
  return missing && `is a payment without its ${missing}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'missing';
  return Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value).slice(0, 40)}`;
}

function emptySnapshot(): Snapshot {
  return { format: SNAPSHOT_FORMAT, walSegment: 0, merchants: [], payments: [] };
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
