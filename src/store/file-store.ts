/**
 * The durable store: a lowdb JSON snapshot plus an append-only write-ahead log.
 *
 * Every change is appended to the log with one synchronous write before memory changes and
 * before the request is answered, so its cost does not depend on how much is stored, and a
 * process killed at any moment restarts with every acknowledged change. The log is folded
 * into the lowdb snapshot in the background once it holds as many records as the snapshot
 * (so the amortised cost per write stays flat), and at shutdown.
 *
 * Files: `<dataFile>` (the lowdb snapshot, replaced atomically) and `<dataFile>.wal.<n>`
 * segments. The snapshot names the first segment it does not include, so a crash between
 * writing the snapshot and deleting old segments leaves segments that are simply skipped.
 * A failed append is cut back to the last whole line; a torn last line (a crash mid-write,
 * never acknowledged) is skipped on replay, and any other damage stops start-up loudly.
 */
import { closeSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
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
}

export class FileStore extends MemoryStore {
  override readonly kind = 'file' as const;
  private readonly db: Low<Snapshot>;
  private segment = 0;
  private fd: number | null = null;
  /** Bytes in the current segment: where a failed append is cut back to. */
  private segmentBytes = 0;
  private logRecords = 0;
  private compacting: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly options: FileStoreOptions) {
    super();
    this.db = new Low<Snapshot>(new SnapshotFile<Snapshot>(options.dataFile), emptySnapshot());
  }

  get dataFile(): string {
    return this.options.dataFile;
  }

  /** Bytes and records appended to the log since start; tests read it to show a write's cost is flat. */
  readonly counters = { bytesAppended: 0, recordsAppended: 0, compactions: 0 };

  override async open(): Promise<void> {
    mkdirSync(path.dirname(this.options.dataFile), { recursive: true });
    await this.db.read();
    const snapshot = this.db.data;
    if (snapshot.format !== SNAPSHOT_FORMAT) {
      throw new Error(`${this.options.dataFile} is not a payreq-sandbox store (format ${String(snapshot.format)})`);
    }
    for (const m of snapshot.merchants) this.applyMerchant(m);
    for (const p of snapshot.payments) this.applyPayment(p);
    const segments = this.segments().filter((n) => n >= snapshot.walSegment);
    for (const n of segments) this.logRecords += this.replay(this.segmentFile(n));
    // Always start a fresh segment: the last one may end in a torn line.
    this.segment = Math.max(snapshot.walSegment, ...segments.map((n) => n + 1));
    this.fd = openSync(this.segmentFile(this.segment), 'a');
    // Snapshots hold plain arrays; drop them so memory holds each record once.
    this.db.data = emptySnapshot();
  }

  override async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.compacting?.catch(() => undefined);
      await this.compact();
    } finally {
      // Whatever the snapshot did, every acknowledged change is already in the log.
      if (this.fd !== null) closeSync(this.fd);
      this.fd = null;
    }
  }

  override async saveMerchant(merchant: Merchant): Promise<void> {
    this.append({ t: 'merchant', v: merchant });
    this.applyMerchant(merchant);
  }

  protected override persistPayment(payment: Payment): void {
    this.append({ t: 'payment', v: payment });
  }

  protected override persistReset(payeeId: string): void {
    this.append({ t: 'reset', payeeId });
  }

  protected override persistPrune(payeeId: string, createdBefore: number): void {
    this.append({ t: 'prune', payeeId, createdBefore });
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
  }

  private append(record: LogRecord): void {
    if (this.fd === null) throw new Error('the file store is not open');
    const line = `${JSON.stringify(record)}\n`;
    const bytes = Buffer.from(line, 'utf8');
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
    this.counters.recordsAppended++;
    this.logRecords++;
    const threshold = Math.max(this.options.compactAfter ?? 10_000, this.payments.size);
    if (this.logRecords >= threshold && !this.compacting) {
      setImmediate(() => void this.compact().catch((err: unknown) => console.error('store compaction failed:', errorText(err))));
    }
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
        throw new Error(`${file} line ${index + 1} is not a whole log record: the store is damaged; restore it from a copy or move the file away to start empty`);
      }
      if (record.t === 'merchant') this.applyMerchant(record.v);
      else if (record.t === 'payment') this.applyPayment(record.v);
      else if (record.t === 'reset') this.applyReset(record.payeeId);
      else this.applyPrune(record.payeeId, record.createdBefore);
      count++;
    }
    return count;
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

function emptySnapshot(): Snapshot {
  return { format: SNAPSHOT_FORMAT, walSegment: 0, merchants: [], payments: [] };
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
