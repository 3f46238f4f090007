// SPEC 23: each change is appended to the log before memory changes, so nothing is pending and a failed write changes nothing.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { errorFields, loggerOr, type Logger } from '../logger.js';
import { DataDirProbe, diskProblem } from './data-dir-probe.js';
import { AppendLog, DEFAULT_SNAPSHOT_AFTER_BYTES, replaceFile, type FsyncPolicy } from './file-log.js';
import { FORMAT, line, type LogLines, type LogRecord } from './file-records.js';
import { readStore } from './file-start.js';
import { MemoryStore } from './memory-store.js';
import type { StorageLimits } from './storage-quota.js';

export interface FileStoreOptions {
  readonly dataFile: string;
  readonly snapshotAfterBytes?: number;
  readonly fsync?: FsyncPolicy;
  /** Paces the health probe; tests move it by hand. */
  readonly clock?: () => number;
  readonly logger?: Logger;
  /** Start on damaged files, dropping the lines that cannot be read (each damaged file is copied first). */
  readonly repair?: boolean;
  /** Without limits, the journal, evidence and deliveries keep only their count caps. */
  readonly limits?: StorageLimits;
}

export class FileStore extends MemoryStore implements LogLines {
  override readonly kind = 'file' as const;
  /** Close waits for it, so a stop never cuts a snapshot short. */
  private snapshotRun: Promise<void> | null = null;
  private readonly log: AppendLog;
  private readonly probe: DataDirProbe;
  private readonly logger: Logger;
  private readonly snapshotAfter: number;
  /** The log names it, so a start never applies a log to the wrong snapshot. */
  private snapshotGeneration = 0;
  /** After a failed snapshot, the next waits until the log grew as much again. */
  private nextSnapshotAt: number;
  private closed = false;
  /** This turn's records with what to undo if their line is lost: written together at the turn's end. */
  private later: [string, (() => void) | undefined][] = [];

  constructor(private readonly options: FileStoreOptions) {
    super(options.limits);
    this.logger = loggerOr(options.logger);
    this.log = new AppendLog(`${options.dataFile}.log`, options.fsync ?? 'second', this.logger);
    this.probe = new DataDirProbe(options.dataFile, options.clock ?? (() => performance.now()));
    this.nextSnapshotAt = this.snapshotAfter = options.snapshotAfterBytes ?? DEFAULT_SNAPSHOT_AFTER_BYTES;
    this.slot.log = this;
  }

  get snapshotting(): Promise<void> | null {
    return this.snapshotRun;
  }

  override async open(): Promise<void> {
    const { dataFile } = this.options;
    mkdirSync(path.dirname(dataFile), { recursive: true });
    // Replayed before the log opens, so a replayed change cannot be written again, and a start that throws leaves the store refusing writes.
    const started = readStore(dataFile, this.log.file, this.options.repair === true, this.logger, (r) => this.apply(r));
    this.snapshotGeneration = started.generation;
    if (started.logBytes !== null) return this.log.open(started.logBytes);
    // The new snapshot holds the whole old log: a start before the log restarts must skip all of it.
    this.log.bytes = started.logLength;
    await this.writeSnapshot();
  }

  /** The newer of the probe and the last append decides, so a disk that recovered reads as ready. */
  override async ready(): Promise<void> {
    if (this.closed || !this.log.isOpen) throw new Error(`the file store ${this.options.dataFile} is closed`);
    const probe = await this.probe.check();
    if (probe.problem !== undefined) throw new Error(probe.problem);
    const failed = this.log.failure;
    if (failed && failed.at >= probe.started) throw new Error(`the last write of a change failed: ${diskProblem(failed.err, this.options.dataFile)}`);
  }

  /** The snapshot gives the next start a short log; if it fails, the log still holds every change. */
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

  write(...records: LogRecord[]): void {
    const change = records.map((r) => line(r)).join('');
    try {
      this.append(change);
    } catch (err) {
      if (this.later.length === 0) throw err;
      // Too full for both: the records are given up so the change someone waits for may still land.
      this.giveUpLater();
      this.append(change);
    }
  }

  /** What already happened is never waited for: written at the turn's end (`now`: before the answer is sent). */
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

  private giveUpLater(): void {
    for (const [, lost] of this.later.splice(0)) lost?.();
  }

  /** On failure the records stay queued, so the caller decides whether to give them up. */
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

  /** Written over later turns so requests are served meanwhile. */
  writeSnapshot(): Promise<void> {
    this.snapshotRun ??= this.snapshot().finally(() => (this.snapshotRun = null));
    return this.snapshotRun;
  }

  private async snapshot(): Promise<void> {
    // Taken in a turn of its own: a change made over several awaits (a reset) is whole in memory by then.
    await nextTurn();
    // The snapshot holds the turn's records, so the log must too before its byte is named.
    this.writeLater();
    const generation = this.snapshotGeneration + 1;
    // A start before the log restarted skips the lines the snapshot already holds.
    const logFrom = this.log.bytes;
    try {
      await replaceFile(this.options.dataFile, snapshotLines(generation, logFrom, held(this)), this.options.fsync !== 'off');
      await this.log.restart(line({ t: 'log', format: FORMAT, generation }), logFrom);
    } catch (err) {
      this.nextSnapshotAt = this.log.bytes + this.snapshotAfter;
      this.logger.error({ file: this.options.dataFile, ...errorFields(err) }, 'store snapshot failed (the log keeps every change)');
      throw err;
    }
    // Only now: a log that failed to restart still follows the previous snapshot.
    this.snapshotGeneration = generation;
    this.nextSnapshotAt = this.snapshotAfter;
  }

  private apply(r: LogRecord): void {
    switch (r.t) {
      case 'merchant': return this.applyMerchant(r.v);
      case 'payment': return this.applyPayment(this.withSharedPayee(r.v));
      // A reset clears the parts as the live store does; journal-clear is the journal's own clear.
      case 'reset': return void (this.applyReset(r.payeeId), this.clearParts(r.payeeId));
      case 'prune': return void this.applyPrune(r.payeeId, r.createdBefore);
      case 'merchant-delete': return void (this.applyMerchantDelete(r.payeeId), this.clearParts(r.payeeId));
      case 'journal': return this.journal.restore(r.payeeId, r.v);
      case 'delivery': return this.deliveries.put(r.v);
      case 'key': return this.idempotency.restore(r.payeeId, r.v);
      case 'seen': return this.readiness.restore(r.payeeId, r.id, r.v);
      case 'journal-clear': return void this.journal.erase(r.payeeId);
    }
  }
}

/** Taken at once (a change replaces the objects it changes), oldest first per merchant: replayed in this order, they rebuild the state. */
function held(store: FileStore): LogRecord[] {
  const merchants = store.allMerchants().map((v): LogRecord => ({ t: 'merchant', v }));
  const payments = store.allPayments().map((v): LogRecord => ({ t: 'payment', v }));
  return [...merchants, ...payments, ...store.journal.records(), ...store.deliveries.records(), ...store.idempotency.records(), ...store.readiness.records()];
}

/** Chunks of about 1 MB, each in its own turn: never one string of the whole state. */
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
