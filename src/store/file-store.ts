/**
 * The durable store of one process, the plain way (SPEC 23): the memory store, with every change
 * first appended to the log (file-log.ts), then made in memory, so nothing is ever pending; a
 * write that fails throws StoreUnavailableError (503) before memory changes. Once the log is long,
 * and at a stop, the state is written as the snapshot; a start reads snapshot then log (file-start.ts).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { errorFields, loggerOr, type Logger } from '../logger.js';
import { DataDirProbe, diskProblem } from './data-dir-probe.js';
import { AppendLog, DEFAULT_SNAPSHOT_AFTER_BYTES, replaceFile, type FsyncPolicy } from './file-log.js';
import { FileDeliveryLog, FileIdempotencyKeys, FileJournalLog, FileReadinessLog } from './file-parts.js';
import { FORMAT, line, type LogRecord } from './file-records.js';
import { readStore } from './file-start.js';
import { MemoryStore } from './memory-store.js';
import type { StorageLimits } from './storage-quota.js';

export interface FileStoreOptions {
  readonly dataFile: string;
  readonly snapshotAfterBytes?: number;
  readonly fsync?: FsyncPolicy;
  /** Milliseconds, pacing the health probe; tests move it by hand. */
  readonly clock?: () => number;
  /** Where cut lines, failed writes and repairs are said; loggerOr's default when not given. */
  readonly logger?: Logger;
  /** Start on damaged files: drop the lines that cannot be read (said, and each damaged file copied to `<file>.damaged-<time>`). */
  readonly repair?: boolean;
  /** The storage limits whose allowance the journal, evidence and deliveries keep within (none: their count caps alone). */
  readonly limits?: StorageLimits;
}

export class FileStore extends MemoryStore {
  override readonly kind = 'file' as const;
  override readonly journal = new FileJournalLog(this);
  override readonly deliveries = new FileDeliveryLog(this);
  override readonly idempotency = new FileIdempotencyKeys(this);
  override readonly readiness = new FileReadinessLog(this);
  /** The snapshot being written, if one is (tests and close wait for it). */
  snapshotting: Promise<void> | null = null;
  private readonly log: AppendLog;
  readonly probe: DataDirProbe;
  private readonly logger: Logger;
  private readonly snapshotAfter: number;
  /** The snapshot's generation: 1 for the first a data location gets, one more each time. */
  generation = 0;
  /** While the files are read at start, replayed changes (a reset's journal clear) write nothing. */
  private replaying = false;
  /** After a snapshot failed: none before the log holds this many bytes. */
  private nextSnapshotAt: number;
  private closed = false;
  /** This turn's records (record), each with what to do if its line is lost. */
  private later: [string, (() => void) | undefined][] = [];

  constructor(private readonly options: FileStoreOptions) {
    super(options.limits);
    // Its parts are its own (file-parts.ts), made after the memory store's: the storage rule is kept over them.
    this.room = this.roomFor(options.limits);
    this.logger = loggerOr(options.logger);
    this.log = new AppendLog(`${options.dataFile}.log`, options.fsync ?? 'second', this.logger);
    this.probe = new DataDirProbe(options.dataFile, options.clock ?? (() => performance.now()));
    this.nextSnapshotAt = this.snapshotAfter = options.snapshotAfterBytes ?? DEFAULT_SNAPSHOT_AFTER_BYTES;
  }

  override async open(): Promise<void> {
    const { dataFile } = this.options;
    mkdirSync(path.dirname(dataFile), { recursive: true });
    // A start that throws leaves the store unusable: replaying stays on, nothing is written.
    this.replaying = true;
    const started = readStore(dataFile, this.log.file, this.options.repair === true, this.logger, (r) => this.apply(r));
    this.replaying = false;
    this.generation = started.generation;
    if (started.logBytes !== null) return this.log.open(started.logBytes);
    // It holds all the old log held, so it names the log's end: a start before the log restarted applies none of it again.
    this.log.bytes = started.logLength;
    await this.writeSnapshot();
  }

  /** Ready while the data directory takes a probe file and the last append landed (the newer evidence decides). */
  override async ready(): Promise<void> {
    if (this.closed || !this.log.isOpen) throw new Error(`the file store ${this.options.dataFile} is closed`);
    const probe = await this.probe.check();
    if (probe.problem !== undefined) throw new Error(probe.problem);
    const failed = this.log.failure;
    if (failed && failed.at >= probe.started) throw new Error(`the last write of a change failed: ${diskProblem(failed.err, this.options.dataFile)}`);
  }

  /** A stop writes a snapshot (a short log for the next start); if that fails (said), the log still holds every change. */
  override async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.snapshotting?.catch(() => undefined);
    if (this.log.isOpen) await this.writeSnapshot().catch(() => undefined);
    // Records that came while the snapshot was written follow it in the log.
    this.writeLater();
    this.log.close();
    await super.close();
  }

  override write(...records: LogRecord[]): void {
    if (this.replaying) return;
    const change = records.map((r) => line(r)).join('');
    try {
      this.append(change);
    } catch (err) {
      if (this.later.length === 0) throw err;
      // A disk too full for the turn's records and the change: the records are given up (as at the turn's end), the change goes alone.
      this.giveUpLater();
      this.append(change);
    }
  }

  /** What already happened (an entry, evidence, an attempt; `now`, a key's answer): written at the turn's end, never waited for; a lost line calls `lost`. */
  record(r: LogRecord, { now = false, lost }: { now?: boolean; lost?: () => void } = {}): void {
    if (!this.log.isOpen) return;
    if (this.later.length === 0 && !now) setImmediate(() => this.writeLater());
    this.later.push([line(r), lost]);
    if (now) this.writeLater();
  }

  private writeLater(): void {
    if (this.later.length === 0) return;
    try {
      this.append('');
    } catch {
      this.giveUpLater();
    }
  }

  /** The turn's records whose write failed: each one's loss is told to its part (the write said it). */
  private giveUpLater(): void {
    for (const [, lost] of this.later.splice(0)) lost?.();
  }

  /** The turn's records, then `text`: a failure throws, and the records stay queued. */
  private append(text: string): void {
    const failing = this.log.failure !== undefined;
    try {
      this.log.append(this.later.map(([record]) => record).join('') + text);
    } catch (err) {
      // Said once when writes start failing and once when they land again, not per request.
      if (!failing) this.logger.error({ file: this.log.file, ...errorFields(err) }, 'store write failed: changes are refused (503) until the data directory takes writes again');
      throw err;
    }
    this.later = [];
    if (failing && !this.log.failure) this.logger.info({ file: this.log.file }, 'store writes land again');
    if (this.log.bytes >= this.nextSnapshotAt && !this.snapshotting) this.writeSnapshot().catch(() => undefined);
  }

  /** The state as the next generation's snapshot, written over later turns, then the log starts afresh with what was appended meanwhile. */
  writeSnapshot(): Promise<void> {
    this.snapshotting ??= this.snapshot().finally(() => (this.snapshotting = null));
    return this.snapshotting;
  }

  private async snapshot(): Promise<void> {
    // Taken in a turn of its own: a change made over several awaits (a reset) is whole in memory by then.
    await nextTurn();
    // The turn's records go first: the snapshot holds them, so the log must too before its byte is named.
    this.writeLater();
    const generation = this.generation + 1;
    // Named in the snapshot: a start before the log restarted skips the lines the snapshot holds (file-start.ts).
    const logFrom = this.log.bytes;
    try {
      await replaceFile(this.options.dataFile, snapshotLines(generation, logFrom, records(held(this))), this.options.fsync !== 'off');
      await this.log.restart(line({ t: 'log', format: FORMAT, generation }), logFrom);
    } catch (err) {
      // The log keeps every change; the next try waits until it has grown as much again.
      this.nextSnapshotAt = this.log.bytes + this.snapshotAfter;
      this.logger.error({ file: this.options.dataFile, ...errorFields(err) }, 'store snapshot failed (the log keeps every change)');
      throw err;
    }
    // Only now: a log that failed to restart still follows the snapshot before, and the next one names its byte.
    this.generation = generation;
    this.nextSnapshotAt = this.snapshotAfter;
  }

  private apply(r: LogRecord): void {
    const parts = [this.journal, this.deliveries, this.idempotency, this.readiness];
    switch (r.t) {
      case 'merchant': return this.applyMerchant(r.v);
      case 'payment': return this.applyPayment(this.withSharedPayee(r.v));
      // A reset clears the merchant's parts too: the journal alone is also cleared by its own record.
      case 'reset': return void (this.applyReset(r.payeeId), parts.forEach((part) => void part.clear(r.payeeId)));
      case 'prune': return void this.applyPrune(r.payeeId, r.createdBefore);
      case 'merchant-delete': return void (this.applyMerchantDelete(r.payeeId), parts.forEach((part) => void part.clear(r.payeeId)));
      case 'journal': return this.journal.restore(r.payeeId, r.v);
      case 'delivery': return this.deliveries.put(r.v);
      case 'key': return this.idempotency.restore(r.payeeId, r.v);
      case 'seen': return this.readiness.restore(r);
      case 'journal-clear': return void this.journal.clear(r.payeeId);
    }
  }
}

/** Everything held, taken at once as arrays of references: a change replaces the objects it changes, never edits them. */
function held(store: FileStore) {
  return [store.allMerchants(), store.allPayments(), [...store.journal.entries()], [...store.deliveries.all()], [...store.idempotency.answered()], [...store.readiness.rows()]] as const;
}

/** The records that rebuild `held`, oldest first per merchant. */
function* records([merchants, payments, journal, deliveries, keys, seen]: ReturnType<typeof held>): Generator<LogRecord> {
  for (const v of merchants) yield { t: 'merchant', v };
  for (const v of payments) yield { t: 'payment', v };
  for (const [payeeId, v] of journal) yield { t: 'journal', payeeId, v };
  for (const v of deliveries) yield { t: 'delivery', v };
  for (const [payeeId, v] of keys) yield { t: 'key', payeeId, v };
  for (const { payeeId, id, v } of seen) yield { t: 'seen', payeeId, id, v };
}

/** The snapshot in chunks of about 1 MB, each made in its own turn: never one string of the whole state. */
function* snapshotLines(generation: number, logFrom: number, records: Iterable<LogRecord>): Generator<string> {
  let chunk = line({ t: 'snapshot', format: FORMAT, generation, logFrom });
  let count = 0;
  for (const r of records) {
    chunk += line(r);
    count++;
    if (chunk.length > 1_000_000) {
      yield chunk;
      chunk = '';
    }
  }
  yield `${chunk}${line({ t: 'end', records: count })}`;
}
