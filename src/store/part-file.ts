/**
 * A part of the file store kept in files of its own beside the main ones: `<dataFile>.<name>`
 * (its snapshot) and `<dataFile>.<name>.wal.<n>` with `<dataFile>.<name>.wal-end` (its log),
 * written and checked as the main ones are: the same log writer (group commit, end marker), the
 * same snapshot file (CRC-32, replaced atomically), one CRC-32-checked JSON record a line, damage
 * refused at start unless `repair` drops it. The log is folded into the snapshot in the
 * background once it holds as many records as the snapshot (at least `foldAfter`), so the files
 * stay about the size of what the part holds, which is bounded.
 *
 * A part's records never depend on the order of the main log's: it is read back on its own.
 */
import { readFileSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { errorFields } from '../logger.js';
import type { Logger } from '../logger.js';
import { LogWriter } from './log-writer.js';
import { SnapshotFile } from './snapshot-file.js';
import { CHECKSUM_KEY, Damage, damagedSnapshot, replayLines, segmentsToReplay } from './store-files.js';
import { hasChecksum, hex, kindOf } from './store-records.js';

export const PART_FORMAT = 'payreq-sandbox-part/1';

/** What a part keeps, and how it checks, applies and lists it. */
export interface PartContent<R extends { readonly t: string }, Row> {
  /** Names the part's files: `<dataFile>.<name>`. */
  readonly name: string;
  /** What makes a parsed record unusable, said of the line ("is ..."), or undefined. */
  recordProblem(record: Record<string, unknown>): string | undefined;
  /** What makes a row of the snapshot unusable ("is ..."), or undefined. */
  rowProblem(row: unknown): string | undefined;
  /** Replays one record of the log. */
  apply(record: R): void;
  /** Restores one row of the snapshot. */
  restore(row: Row): void;
  /** Everything the part holds now, oldest first: the next snapshot. */
  rows(): Row[];
}

interface PartSnapshot<Row> {
  format: string;
  /** The first log segment the snapshot does not include. */
  walSegment: number;
  rows: Row[];
}

const PREFIX = '{"c":"';
const PREFIX_LENGTH = PREFIX.length + 10;
/** After a failed background fold, none before this wait (the log keeps everything meanwhile). */
const FOLD_RETRY_MS = 30_000;

/** A part as the store opens, folds and closes it. */
export interface StorePart {
  readonly file: string;
  open(damage: Damage): Promise<void>;
  compact(): Promise<void>;
  close(): Promise<void>;
}

export class PartFile<R extends { readonly t: string }, Row> implements StorePart {
  readonly file: string;
  readonly log: LogWriter;
  private readonly snapshot: SnapshotFile<PartSnapshot<Row>>;
  private snapshotRows = 0;
  private compacting: Promise<void> | null = null;
  private foldRetryAt = -Infinity;

  constructor(
    dataFile: string,
    private readonly content: PartContent<R, Row>,
    private readonly logger: Logger,
    private readonly foldAfter = 1_000,
  ) {
    this.file = `${dataFile}.${content.name}`;
    this.log = new LogWriter(this.file, () => this.foldIfDue(), logger);
    this.snapshot = new SnapshotFile<PartSnapshot<Row>>(this.file, { checksumKey: CHECKSUM_KEY });
  }

  /** The line of `record`, with its checksum and its "\n". */
  line(record: R): string {
    const rest = JSON.stringify(record).slice(1);
    return `${PREFIX}${hex(crc32(rest))}",${rest}\n`;
  }

  /** Reads the snapshot and the log after it into the content; damage refuses the start, or with repair is dropped into `damage`. */
  async open(damage: Damage): Promise<void> {
    const { walSegment, present } = await this.readSnapshot(damage);
    // A part's snapshot always carries a checksum (one without is damage, found above).
    const segments = segmentsToReplay(this.log.segments(), walSegment, { present, checksummed: present }, this.log, damage);
    const lengths = new Map<number, number>();
    let replayed = 0;
    for (const { n, written } of segments) {
      const read = this.replaySegment(this.log.segmentFile(n), written, damage);
      replayed += read.records;
      lengths.set(n, read.bytes);
    }
    // Always a fresh segment: the last one may end in a torn line.
    this.log.open(Math.max(walSegment, ...segments.map(({ n }) => n + 1)), lengths);
    this.log.records = replayed;
  }

  /** Folds the log into a new snapshot and deletes the folded segments. */
  compact(): Promise<void> {
    if (this.compacting) return this.compacting;
    this.compacting = this.compactNow().finally(() => {
      this.compacting = null;
    });
    return this.compacting;
  }

  /** Resolves once no fold is under way (tests read the files then). */
  async idle(): Promise<void> {
    while (this.compacting) await this.compacting.catch(() => undefined);
  }

  /** Writes what is pending and folds; the part is closed afterwards, whatever the fold did. */
  async close(): Promise<void> {
    try {
      await this.compacting?.catch(() => undefined);
      if (this.log.isOpen) this.log.flush();
      await this.compact();
    } finally {
      this.log.close();
    }
  }

  private async compactNow(): Promise<void> {
    if (!this.log.isOpen) return;
    // Rotated first: what is pending is written, and records made while the snapshot is written go to the new segment.
    const next = this.log.rotate();
    const rows = this.content.rows();
    await this.snapshot.write({ format: PART_FORMAT, walSegment: next, rows });
    this.snapshotRows = rows.length;
    this.log.deleteBefore(next);
  }

  private foldIfDue(): void {
    if (this.compacting || this.log.records < Math.max(this.foldAfter, this.snapshotRows) || performance.now() < this.foldRetryAt) return;
    setImmediate(() => {
      if (this.compacting || !this.log.isOpen) return;
      this.compact().catch((err: unknown) => {
        this.foldRetryAt = performance.now() + FOLD_RETRY_MS;
        this.logger.error({ file: this.file, ...errorFields(err), retry_in_s: FOLD_RETRY_MS / 1000 }, 'store compaction failed (the log keeps every change)');
      });
    });
  }

  private async readSnapshot(damage: Damage): Promise<{ walSegment: number; present: boolean }> {
    let read: Awaited<ReturnType<SnapshotFile<PartSnapshot<Row>>['readChecked']>>;
    try {
      read = await this.snapshot.readChecked();
    } catch (err) {
      if (!(err instanceof SyntaxError) || !damage.repair) throw err;
      return this.dropSnapshot(damage, 'is not valid JSON');
    }
    if (read === null) return { walSegment: 0, present: false };
    const s = read.value as unknown as Record<string, unknown>;
    const wrong =
      s === null || typeof s !== 'object' || Array.isArray(s) ? `it holds ${kindOf(s)}, not a snapshot of a store part`
      : s.format !== PART_FORMAT ? `its format is ${JSON.stringify(s.format)}, not ${PART_FORMAT}`
      : !Number.isSafeInteger(s.walSegment) || (s.walSegment as number) < 0 ? `walSegment is ${kindOf(s.walSegment)}, not a segment number`
      : !Array.isArray(s.rows) ? 'rows is not a list'
      : undefined;
    if (wrong) {
      if (!damage.repair) throw damagedSnapshot(this.file, wrong);
      return this.dropSnapshot(damage, `is damaged: ${wrong}`);
    }
    if (read.checksum === 'absent') damage.found(this.file, this.file, 'has no checksum', 'loaded as it is; check what it serves');
    else if (read.checksum !== 'verified') {
      const { stored, computed } = read.checksum;
      damage.found(this.file, this.file, `fails its checksum (stored ${stored}, computed ${computed}): it was changed after it was written`, 'loaded as it is; check what it serves');
    }
    const rows = s.rows as unknown[];
    rows.forEach((row, i) => {
      const problem = this.content.rowProblem(row);
      if (problem) damage.found(this.file, `${this.file} rows[${i}]`, problem, 'dropped');
      else this.content.restore(row as Row);
    });
    this.snapshotRows = rows.length;
    return { walSegment: s.walSegment as number, present: true };
  }

  private dropSnapshot(damage: Damage, problem: string): { walSegment: number; present: boolean } {
    damage.found(this.file, this.file, problem, 'everything folded into it is gone; the start goes on from its log segments alone');
    damage.snapshotDropped = true;
    return { walSegment: 0, present: false };
  }

  /** Applies the records of one segment; answers how many, and the segment's bytes. */
  private replaySegment(file: string, written: number, damage: Damage): { records: number; bytes: number } {
    return replayLines<R>(file, readFileSync(file), { bytes: written, marker: this.log.endFile }, damage, (text) => {
      const decoded = this.decode(text);
      return typeof decoded !== 'string' ? { record: decoded } : { problem: decoded, torn: decoded === TORN, lost: 'dropped' };
    }, (record) => this.content.apply(record));
  }

  /** The record of one line, or what is wrong with it. */
  private decode(text: string): R | string {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return TORN;
    }
    if (!hasChecksum(text)) return 'has no checksum';
    const stored = text.slice(PREFIX.length, PREFIX.length + 8);
    const computed = hex(crc32(text.slice(PREFIX_LENGTH)));
    if (stored !== computed) return `fails its checksum (stored ${stored}, computed ${computed}): it was changed after it was written`;
    const { c: _checksum, ...record } = parsed as Record<string, unknown>;
    return this.content.recordProblem(record) ?? (record as unknown as R);
  }
}

const TORN = 'is not a whole log record';
