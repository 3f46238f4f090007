/**
 * The durable store, assembled from three parts:
 * - the in-memory index (memory-index.ts), with the journal and the deliveries (file-logs.ts),
 *   which answers every read;
 * - the write-ahead log (log-writer.ts), where every change is written before anyone is told
 *   of it: the payment changes of one turn together (group commit), with the webhook
 *   deliveries they cause in the same write;
 * - the lowdb snapshot (snapshot-file.ts), into which the log is folded in the background once
 *   it holds as many records as the snapshot (so the amortised cost per write stays flat), and
 *   at shutdown; a background fold that fails waits 30 s before the next, doubling to 10 min.
 *
 * Every change below is: log first, then memory (or, for a payment change of the turn, memory
 * at once and undone if the turn's write fails). A process killed at any moment restarts with
 * every acknowledged change. Start-up reads the snapshot, then the log segments after it, each
 * checked (store-files.ts): damage refuses the start, unless `repair` drops it and says so.
 *
 * Files: `<dataFile>` (the snapshot, replaced atomically), `<dataFile>.wal.<n>` segments and
 * `<dataFile>.wal-end` (how many bytes of each segment were written). The snapshot names the
 * first segment it does not include, so a crash between writing the snapshot and deleting old
 * segments leaves segments that are simply skipped. Each log line and the snapshot carry a
 * CRC-32 (store-records.ts, snapshot-file.ts); files of earlier versions, without, still load.
 * The idempotency keys and the readiness evidence are parts in files of their own, written and
 * checked the same way (part-file.ts): `<dataFile>.idempotency` and `<dataFile>.readiness`.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { Low } from 'lowdb';
import { errorFields, loggerOr } from '../logger.js';
import type { Logger } from '../logger.js';
import { afterReset } from '../domain/merchant.js';
import type { Merchant } from '../domain/merchant.js';
import type { Payment } from '../domain/payment.js';
import { MemoryDeliveryLog } from './delivery-log.js';
import type { Delivery } from './delivery-log.js';
import { FileDeliveryLog, FileIdempotencyKeys, FileJournalLog, FileReadinessLog } from './file-logs.js';
import { MemoryJournalLog } from './journal-log.js';
import { DataDirProbe, diskProblem } from './data-dir-probe.js';
import { LogWriter } from './log-writer.js';
import type { LogCounters } from './log-writer.js';
import { MemoryIndex, MerchantQueues } from './memory-index.js';
import type { StorePart } from './part-file.js';
import { MemoryRateWindows } from './rate-windows.js';
import { SnapshotFile } from './snapshot-file.js';
import type { InsertResult, KeyedPayment, MerchantChange, MerchantErasure, PaymentPage, PaymentQuery, Store } from './store.js';
import { clearMerchantParts, countMerchantParts } from './store.js';
import { storageRefusal, textBytes } from './storage-quota.js';
import { StorageRoom } from './storage-room.js';
import type { StorageLimits, StorageUsage } from './storage-quota.js';
import { CHECKSUM_KEY, Damage, emptySnapshot, readSnapshot, replaySegment, segmentsToReplay } from './store-files.js';
import { encodeRecord, keysHashed, SNAPSHOT_FORMAT } from './store-records.js';
import type { LogRecord, Snapshot } from './store-records.js';

export { SNAPSHOT_FORMAT };
export type { Snapshot };

export interface FileStoreOptions {
  readonly dataFile: string;
  /** Fold the log into the snapshot once it holds this many records, or as many as the snapshot, whichever is more. */
  readonly compactAfter?: number;
  /** Milliseconds, for the wait after a failed fold; tests move it by hand. */
  readonly clock?: () => number;
  /** Where failed writes and folds, torn records skipped and repairs are said; loggerOr's default when not given. */
  readonly logger?: Logger;
  /**
   * Start on damaged files: drop what cannot be read (reported through the logger and in `repaired`),
   * keep a copy of each damaged file (`<file>.damaged-<time>`), and fold the rest into a new snapshot.
   */
  readonly repair?: boolean;
  /** The storage limits whose allowance the journal, evidence and deliveries keep within (none: their count caps alone). */
  readonly limits?: StorageLimits;
}

/** After a failed background fold, the first wait before the next; it doubles up to the most. */
export const FOLD_RETRY_FIRST_MS = 30_000;
export const FOLD_RETRY_MOST_MS = 10 * 60_000;

export class FileStore implements Store {
  readonly kind = 'file' as const;
  /** A read may show a change of this turn that a failed write undoes, leaving its version number to another change. */
  readonly versionsFinal = false;
  readonly rateWindows = new MemoryRateWindows();
  readonly journal: FileJournalLog;
  readonly deliveries: FileDeliveryLog;
  readonly idempotency: FileIdempotencyKeys;
  readonly readiness: FileReadinessLog;
  /** What a start with `repair` dropped, one line each. */
  repaired: readonly string[] = [];
  private readonly index = new MemoryIndex();
  /** The storage rule kept across payments and parts (storage-room.ts). */
  private readonly room: StorageRoom;
  private readonly queues = new MerchantQueues();
  private readonly log: LogWriter;
  private readonly probe: DataDirProbe;
  private readonly snapshot: Low<Snapshot>;
  /** Records the snapshot holds: the log is folded once it holds as many. */
  private snapshotRecords = 0;
  private compacting: Promise<void> | null = null;
  /** No background fold before `at` (clock ms): a fold that fails is not retried on every write. */
  private foldRetry = { at: -Infinity, waitMs: 0 };
  private closed = false;
  /** Merchants read at start with plain API keys (an earlier version): the files are rewritten without them. */
  private plainKeys = 0;
  private readonly logger: Logger;

  constructor(private readonly options: FileStoreOptions) {
    this.logger = loggerOr(options.logger);
    this.log = new LogWriter(options.dataFile, () => this.foldIfDue(), this.logger);
    this.probe = new DataDirProbe(options.dataFile, () => this.now());
    this.journal = new FileJournalLog(new MemoryJournalLog(), this.log);
    this.deliveries = new FileDeliveryLog(new MemoryDeliveryLog(), this.log);
    this.idempotency = new FileIdempotencyKeys(options.dataFile, this.logger);
    this.readiness = new FileReadinessLog(options.dataFile, this.logger);
    this.snapshot = new Low<Snapshot>(new SnapshotFile<Snapshot>(options.dataFile, { checksumKey: CHECKSUM_KEY }), emptySnapshot());
    const parts = [this.journal.memory, this.readiness.memory, this.deliveries.memory];
    this.room = new StorageRoom(this.index.paymentBytes, [...parts.map((p) => p.bytes), this.idempotency.memory.bytes], parts, options.limits);
  }

  get dataFile(): string {
    return this.options.dataFile;
  }

  /** Bytes and records appended to the log since start, and folds made. */
  get counters(): LogCounters {
    return this.log.counters;
  }

  async open(): Promise<void> {
    const file = this.options.dataFile;
    mkdirSync(path.dirname(file), { recursive: true });
    const damage = new Damage(file, this.options.repair === true, this.logger);
    const { snapshot, ...found } = await readSnapshot(file, damage);
    this.restore(snapshot);
    const segments = segmentsToReplay(this.log.segments(), snapshot.walSegment, found, this.log, damage);
    let replayed = 0;
    const lengths = new Map<number, number>();
    for (const { n, written } of segments) {
      const read = replaySegment(this.log.segmentFile(n), { bytes: written, marker: this.log.endFile }, damage, (record) => this.apply(record));
      replayed += read.records;
      lengths.set(n, read.bytes);
    }
    // Always a fresh segment: the last one may end in a torn line.
    this.log.open(Math.max(snapshot.walSegment, ...segments.map(({ n }) => n + 1)), lengths);
    this.log.records = replayed;
    for (const part of this.parts()) {
      // Each part checks its own files (a dropped snapshot of one says nothing of the others); the report is one.
      const found = new Damage(part.file, damage.repair, this.logger);
      await part.open(found);
      damage.dropped.push(...found.dropped);
      for (const f of found.files) damage.files.add(f);
    }
    if (damage.dropped.length > 0) await this.finishRepair(damage);
    else if (this.plainKeys > 0) await this.foldAwayPlainKeys();
  }

  /** A fold writes the snapshot from memory, where keys are hashed, and deletes the segments that held them in plain text. */
  private async foldAwayPlainKeys(): Promise<void> {
    await this.compact();
    this.logger.warn(
      { file: this.options.dataFile, merchants: this.plainKeys },
      'store hashed the plain-text API keys of an earlier version: it now keeps only their SHA-256 (snapshot rewritten, old log segments deleted)',
    );
    this.plainKeys = 0;
  }

  /** A merchant as read from the files, its keys hashed if an earlier version wrote them plain. */
  private loaded(m: Merchant): Merchant {
    const hashed = keysHashed(m);
    if (!hashed) return m;
    this.plainKeys++;
    return hashed;
  }

  /** The parts in files of their own (part-file.ts). */
  private parts(): readonly StorePart[] {
    return [this.idempotency.part, this.readiness.part];
  }

  /**
   * Ready while the data directory takes a probe file (data-dir-probe.ts, at most once a second)
   * and the last append of each log (the main one and the parts') landed. The newer evidence
   * decides: an append that failed after the last probe makes the store not ready until that
   * log's next append or the next probe succeeds (both write to the same directory and disk).
   */
  async ready(): Promise<void> {
    if (this.closed || !this.log.isOpen) throw new Error(`the file store ${this.options.dataFile} is closed`);
    const probe = await this.probe.check();
    if (!probe.ok) throw new Error(probe.problem);
    for (const log of [this.log, this.idempotency.part.log, this.readiness.part.log]) {
      const failed = log.failure;
      if (failed && failed.at >= probe.started) throw new Error(`the last write of a change failed: ${diskProblem(failed, this.options.dataFile)}`);
    }
  }

  /** Probes of the data directory made for ready() (tests count them). */
  get probes(): number {
    return this.probe.runs;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const parts = Promise.allSettled(this.parts().map((part) => part.close()));
    try {
      await this.compacting?.catch(() => undefined);
      this.log.flush();
      await this.compact();
    } finally {
      // Whatever the snapshot did, every acknowledged change is already in the log.
      this.log.close();
      const failed = (await parts).find((r) => r.status === 'rejected');
      if (failed) this.logger.warn(errorFields(failed.reason), 'store close: a part was not folded (its log keeps every change)');
    }
  }

  async saveMerchant(merchant: Merchant): Promise<void> {
    this.log.now(encodeRecord({ t: 'merchant', v: merchant }));
    this.index.applyMerchant(merchant);
  }

  updateMerchant<T>(payeeId: string, change: MerchantChange<T>): Promise<{ readonly result: T } | undefined> {
    return this.queues.run(payeeId, () => this.index.merchant(payeeId), change, (m) => this.saveMerchant(m));
  }

  async insertPayment(payment: Payment, outbox: readonly Delivery[] = [], limits?: StorageLimits): Promise<InsertResult> {
    const conflict = this.index.insertConflict(payment);
    if (conflict) return conflict;
    const line = encodeRecord({ t: 'payment', v: payment });
    const bytes = paymentBytesOf(line);
    const refused = limits && storageRefusal(this.usage(payment.payeeId), bytes, limits);
    if (refused) return refused;
    await this.writePayment(payment, undefined, outbox, line);
    this.room.kept(payment.payeeId);
    return 'inserted';
  }

  async updatePayment(payment: Payment, expectedVersion: number, outbox: readonly Delivery[] = []): Promise<boolean> {
    const current = this.index.replaceable(payment, expectedVersion);
    if (!current) return false;
    await this.writePayment(payment, current, outbox);
    return true;
  }

  /**
   * Group commit: the change is in memory at once (a second create in the same turn sees its
   * merchant_ref_no), and in the log, with its deliveries, at the end of the turn.
   */
  private async writePayment(payment: Payment, previous: Payment | undefined, outbox: readonly Delivery[], line = encodeRecord({ t: 'payment', v: payment })): Promise<void> {
    const bytes = paymentBytesOf(line);
    let lines = line;
    for (const d of outbox) lines += encodeRecord({ t: 'delivery', v: d });
    // The deliveries go to memory once the change is written: a change undone by a failed write sends nothing.
    const written = this.log.change(lines, 1 + outbox.length, () => this.index.unapplyPayment(payment, previous), () => this.deliveries.memory.add(outbox), payment.id);
    this.index.applyPayment(payment, bytes);
    await written;
  }

  async storageUsage(payeeId: string): Promise<StorageUsage> {
    return this.usage(payeeId);
  }

  private usage(payeeId: string) {
    return this.room.usage(payeeId);
  }

  async resetMerchant(payeeId: string): Promise<number> {
    this.log.now(encodeRecord({ t: 'reset', payeeId }));
    const erased = this.index.applyReset(payeeId);
    // Each part writes its own clear record (the journal and deliveries into the main log).
    await clearMerchantParts(this, payeeId);
    await this.updateMerchant(payeeId, (m) => [afterReset(m), null] as const);
    return erased;
  }

  async prunePayments(payeeId: string, createdBefore: number): Promise<number> {
    this.log.now(encodeRecord({ t: 'prune', payeeId, createdBefore }));
    return this.index.applyPrune(payeeId, createdBefore);
  }

  /**
   * What a reset erases (its records), then one `merchant-delete` record, which alone erases
   * the merchant, its keys and all it holds when replayed: a restart does not bring it back.
   */
  async deleteMerchant(payeeId: string): Promise<MerchantErasure | undefined> {
    if (!(await this.index.merchant(payeeId))) return undefined;
    const counted = await countMerchantParts(this, payeeId);
    const reset = await this.resetMerchant(payeeId);
    const late = await this.queues.exclusive(payeeId, async () => {
      this.log.now(encodeRecord({ t: 'merchant-delete', payeeId }));
      const erased = this.forgetMerchant(payeeId);
      // The parts have logs of their own: cleared again, for what requests in flight kept since the reset.
      await this.idempotency.clear(payeeId);
      await this.readiness.clear(payeeId);
      return erased;
    });
    return { payments: reset + late, ...counted };
  }

  /** The merchant out of memory, with anything a request in flight added since its reset. */
  private forgetMerchant(payeeId: string): number {
    const erased = this.index.applyMerchantDelete(payeeId);
    void this.journal.memory.clear(payeeId);
    void this.deliveries.memory.clear(payeeId);
    return erased;
  }

  pendingWrites(): Promise<void> | undefined {
    return this.log.pending();
  }

  pendingWriteOf(paymentId: string): Promise<void> | undefined {
    return this.log.pendingOf(paymentId);
  }

  /** Folds the log into a new snapshot and deletes the folded segments. */
  async compact(): Promise<void> {
    if (this.compacting) return this.compacting;
    this.compacting = this.compactNow().finally(() => {
      this.compacting = null;
    });
    return this.compacting;
  }

  private async compactNow(): Promise<void> {
    if (!this.log.isOpen) return;
    // Rotate first (writing what is pending: the snapshot is taken from memory, which must be in
    // the log first); changes made while the snapshot is written go to the new segment.
    const next = this.log.rotate();
    const data: Snapshot = {
      format: SNAPSHOT_FORMAT,
      walSegment: next,
      merchants: this.index.allMerchants(),
      payments: this.index.allPayments(),
      journal: Array.from(this.journal.memory.entries(), ([payeeId, entry]) => ({ payeeId, entry })),
      deliveries: [...this.deliveries.memory.all()],
    };
    this.snapshot.data = data;
    try {
      await this.snapshot.write();
    } finally {
      // Snapshots hold plain arrays; drop them so memory holds each record once.
      this.snapshot.data = emptySnapshot();
    }
    this.snapshotRecords = recordsIn(data);
    this.log.deleteBefore(next);
    this.counters.compactions++;
    this.foldRetry = { at: -Infinity, waitMs: 0 };
  }

  /** After a write: a fold in the background once the log holds as many records as the snapshot. */
  private foldIfDue(): void {
    const threshold = Math.max(this.options.compactAfter ?? 10_000, this.snapshotRecords);
    if (this.log.records >= threshold && !this.compacting && this.now() >= this.foldRetry.at) setImmediate(() => this.foldInBackground());
  }

  /** Starts a background fold, unless one failed too recently. */
  private foldInBackground(): void {
    if (this.compacting || this.now() < this.foldRetry.at) return;
    this.compact().catch((err: unknown) => {
      const waitMs = Math.min(Math.max(FOLD_RETRY_FIRST_MS, this.foldRetry.waitMs * 2), FOLD_RETRY_MOST_MS);
      this.foldRetry = { at: this.now() + waitMs, waitMs };
      this.logger.error({ file: this.options.dataFile, ...errorFields(err), retry_in_s: waitMs / 1000 }, 'store compaction failed (the log keeps every change)');
    });
  }

  private now(): number {
    return this.options.clock ? this.options.clock() : performance.now();
  }

  /** Memory as the snapshot holds it. */
  private restore(s: Snapshot): void {
    for (const m of s.merchants) this.index.applyMerchant(this.loaded(m));
    for (const p of s.payments) this.index.applyPayment(this.index.withSharedPayee(p));
    for (const { payeeId, entry } of s.journal ?? []) this.journal.memory.restore(payeeId, entry);
    this.deliveries.memory.add(s.deliveries ?? []);
    this.snapshotRecords = recordsIn(s);
  }

  /** One record of the log, replayed into memory as it was applied when written. */
  private apply(record: LogRecord): void {
    switch (record.t) {
      case 'merchant': return this.index.applyMerchant(this.loaded(record.v));
      case 'payment': return this.index.applyPayment(this.index.withSharedPayee(record.v));
      case 'reset': return void this.index.applyReset(record.payeeId);
      case 'prune': return void this.index.applyPrune(record.payeeId, record.createdBefore);
      case 'journal': return this.journal.memory.restore(record.payeeId, record.v);
      case 'journal-clear': return void this.journal.memory.clear(record.payeeId);
      case 'delivery': return this.deliveries.memory.put(record.v);
      case 'deliveries-clear': return void this.deliveries.memory.clear(record.payeeId);
      case 'merchant-delete': return void this.forgetMerchant(record.payeeId);
    }
  }

  /** After a start with repair that dropped something: copies of the damaged files, the report, and a fold without the damage. */
  private async finishRepair(damage: Damage): Promise<void> {
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const copies = [...damage.files].map((file) => {
      copyFileSync(file, `${file}.damaged-${stamp}`);
      return `${file}.damaged-${stamp}`;
    });
    this.repaired = damage.dropped;
    this.logger.warn({ file: this.options.dataFile, dropped: damage.dropped, copies }, 'store started with --repair: it dropped what could not be read, kept copies of the damaged files, and folds what was read into a new snapshot');
    await Promise.all([this.compact(), ...this.parts().map((part) => part.compact())]);
  }

  // Reads: the index answers them all.
  merchantByKey(apiKey: string): Promise<Merchant | undefined> { return this.index.merchantByKey(apiKey); }
  keyedPayment(apiKey: string, paymentId: string): Promise<KeyedPayment | undefined> { return this.index.keyedPayment(apiKey, paymentId); }
  merchant(payeeId: string): Promise<Merchant | undefined> { return this.index.merchant(payeeId); }
  merchantIds(): Promise<readonly string[]> { return this.index.merchantIds(); }
  payment(payeeId: string, paymentId: string): Promise<Payment | undefined> { return this.index.payment(payeeId, paymentId); }
  paymentByRef(payeeId: string, ref: string): Promise<Payment | undefined> { return this.index.paymentByRef(payeeId, ref); }
  paymentByToken(token: string): Promise<Payment | undefined> { return this.index.paymentByToken(token); }
  listPayments(payeeId: string, query: PaymentQuery): Promise<PaymentPage> { return this.index.listPayments(payeeId, query); }
  countPayments(payeeId: string): Promise<number> { return this.index.countPayments(payeeId); }
  belowPaymentCap(payeeId: string, cap: number): Promise<boolean> { return this.index.belowPaymentCap(payeeId, cap); }
  livePayments(payeeId: string): Promise<readonly Payment[]> { return this.index.livePayments(payeeId); }
  dueIds(payeeId: string, now: number, autoSettle: boolean): Promise<readonly string[]> { return this.index.dueIds(payeeId, now, autoSettle); }
  countDue(payeeId: string, now: number, autoSettle: boolean): Promise<number> { return this.index.countDue(payeeId, now, autoSettle); }
  merchantsWithDueWork(realNow: number): Promise<readonly string[]> { return this.index.merchantsWithDueWork(realNow); }
}

function recordsIn(s: Snapshot): number {
  return s.merchants.length + s.payments.length + (s.journal?.length ?? 0) + (s.deliveries?.length ?? 0);
}

/** A payment's line is its document in a fixed frame: the document's bytes (storage-quota.ts) are the line's less the frame's, with no second JSON.stringify. */
const PAYMENT_FRAME_BYTES = encodeRecord({ t: 'payment', v: null as unknown as Payment }).length - 'null'.length;

function paymentBytesOf(line: string): number {
  return textBytes(line) - PAYMENT_FRAME_BYTES;
}
