/**
 * Reading the file store's files at start: the snapshot, then the log segments after it, each
 * checked (checksums, shapes, no segment missing). Damage refuses the start with the file, the
 * place and what to do; with `repair`, what cannot be read is dropped and reported instead.
 *
 * The log's end marker (`<dataFile>.wal-end`, see log-writer.ts) holds how many bytes of each
 * segment were written and acknowledged: a segment shorter than that was cut after it was
 * written (a file cut short, copied in part), between two records or not; one it names that is
 * gone is missing. A torn last record beyond those bytes is what a crash leaves of a write it
 * cut short, never acknowledged: it is skipped, and said. A marker gone, emptied or damaged is
 * damage too (without it a cut goes unnoticed), except where none is expected: a fresh store (no
 * snapshot, no byte in any segment), or one of an earlier version (no checksum anywhere, no
 * marker: there a cut shows only where it tears a record, and a torn last record is skipped).
 */
import { closeSync, existsSync, openSync, readFileSync, readSync } from 'node:fs';
import type { Logger } from '../logger.js';
import { SnapshotFile } from './snapshot-file.js';
import type { SnapshotChecksum } from './snapshot-file.js';
import { decodeLine, decodeLogEnd, hasChecksum, SNAPSHOT_FORMAT, SNAPSHOT_LISTS, snapshotProblem } from './store-records.js';
import type { LogRecord, Snapshot } from './store-records.js';

/** The members a snapshot of an earlier version (without a checksum) has. */
const EARLIER_MEMBERS = new Set(['format', 'walSegment', 'merchants', 'payments']);

export const CHECKSUM_KEY = 'checksum';

/** What a start found damaged: refused, or with `repair` dropped and told. */
export class Damage {
  /** What was dropped, one line each (repair only). */
  readonly dropped: string[] = [];
  /** Files holding what was dropped: kept aside before the repaired store replaces them. */
  readonly files = new Set<string>();
  /** The whole snapshot was dropped (repair): the log is read from its first segment, whatever its number. */
  snapshotDropped = false;

  constructor(
    private readonly dataFile: string,
    readonly repair: boolean,
    /** Where a torn last record skipped is said. */
    readonly logger: Logger,
  ) {}

  /** A torn last record, beyond what was acknowledged: skipped, and said (it is not damage). */
  skippedTorn(file: string, line: number, start: number, end: number): void {
    this.logger.warn({ file, line, from_byte: start, to_byte: end }, 'store skipped a torn last record: a write cut short by a crash and never acknowledged');
  }

  /**
   * Refuses the start, or with repair notes `what` as dropped. `place` is "<file> <where>".
   * `copy`: keep a copy of the file as it was (not of a file the start rewrites in place before the copy is made).
   */
  found(file: string, place: string, problem: string, lost: string, copy = true): void {
    if (!this.repair) throw new Error(`${place} ${problem}. ${this.remedy(file)}`);
    this.dropped.push(`${place} ${problem}: ${lost}`);
    if (copy && existsSync(file)) this.files.add(file);
  }

  private remedy(file: string): string {
    return (
      `The store is damaged: restore ${file} from a copy, or start with --repair to go on without what cannot be read ` +
      `(it reports what it drops and keeps a copy of each damaged file); moving ${this.dataFile} and every file beside it whose name starts with it (${STORE_FILE_SUFFIXES}) away starts an empty store`
    );
  }
}

/** What the start found of a snapshot: whether there is one, and whether it carries a checksum (this version's, which writes the end marker too). */
export interface SnapshotFound {
  readonly present: boolean;
  readonly checksummed: boolean;
}

/** The snapshot (an empty one when there is none), checked; with repair, its unreadable parts dropped. */
export async function readSnapshot(dataFile: string, damage: Damage): Promise<{ snapshot: Snapshot } & SnapshotFound> {
  let read: { value: unknown; checksum: SnapshotChecksum } | null;
  try {
    // Through the adapter, not Low: Low takes a file holding null (or false, 0, "") for no file.
    read = await new SnapshotFile<object>(dataFile, { checksumKey: CHECKSUM_KEY }).readChecked();
  } catch (err) {
    if (!(err instanceof SyntaxError) || !damage.repair) throw err;
    return dropSnapshot(dataFile, damage, `is not valid JSON (${err.cause instanceof Error ? err.cause.message : err.message})`);
  }
  if (read === null) return { snapshot: emptySnapshot(), present: false, checksummed: false };
  const s = read.value as Snapshot;
  if (s !== null && typeof s === 'object' && !Array.isArray(s) && s.format !== SNAPSHOT_FORMAT) {
    throw new Error(`${dataFile} is not a payreq-sandbox store (format ${String(s.format)}): point --data at a payreq-sandbox store, or move ${dataFile} away to start with an empty one`);
  }
  const problem = snapshotProblem(s);
  if (problem) {
    if (!damage.repair) throw damagedSnapshot(dataFile, problem);
    return dropSnapshot(dataFile, damage, `is damaged: ${problem}`);
  }
  const checksum = read.checksum;
  if (checksum === 'absent') {
    const unknown = Object.keys(s).find((key) => !EARLIER_MEMBERS.has(key));
    if (unknown !== undefined) checkFails(dataFile, damage, `has no checksum, but a member ${JSON.stringify(unknown)} that snapshots without one never have: its checksum member was changed`);
  } else if (checksum !== 'verified') {
    checkFails(dataFile, damage, `fails its checksum (stored ${checksum.stored}, computed ${checksum.computed} over its ${checksum.bytes} bytes after it): it was changed after it was written`);
  }
  for (const [key, problemOf] of SNAPSHOT_LISTS) {
    const list = s[key] as unknown[] | undefined;
    if (!list) continue;
    const kept = list.filter((item, i) => {
      const wrong = problemOf(item);
      if (!wrong) return true;
      if (!damage.repair) throw damagedSnapshot(dataFile, `${key}[${i}] ${wrong}`);
      damage.found(dataFile, `${dataFile} ${key}[${i}]`, wrong, 'dropped');
      return false;
    });
    (s as unknown as Record<string, unknown[]>)[key] = kept;
  }
  return { snapshot: s, present: true, checksummed: checksum !== 'absent' };
}

function dropSnapshot(dataFile: string, damage: Damage, problem: string): { snapshot: Snapshot } & SnapshotFound {
  damage.found(dataFile, dataFile, problem, 'everything folded into it is gone; the start goes on from the log segments alone');
  damage.snapshotDropped = true;
  return { snapshot: emptySnapshot(), present: false, checksummed: false };
}

function checkFails(dataFile: string, damage: Damage, problem: string): void {
  damage.found(dataFile, dataFile, problem, 'loaded as it is (which value was changed cannot be told); check what it serves');
}

/** The files of a store beside its data file: moving all of them away is what starts an empty store. */
const STORE_FILE_SUFFIXES = '.wal.*, .wal-end, .idempotency*, .readiness*';

export function damagedSnapshot(file: string, problem: string): Error {
  return new Error(`${file} is damaged: ${problem}. Restore ${file} from a copy, or move it and every file beside it whose name starts with it (${STORE_FILE_SUFFIXES}) away to start with an empty store, or start with --repair to go on without what cannot be read`);
}

export function emptySnapshot(): Snapshot {
  return { format: SNAPSHOT_FORMAT, walSegment: 0, merchants: [], payments: [] };
}

interface LogFiles {
  readonly dataFile: string;
  readonly endFile: string;
  segmentFile(n: number): string;
}

/**
 * Checks that the segments from `first` on are all there, in a row, and every one the end
 * marker names; answers the ones to replay with how many bytes of each were written. No
 * snapshot and a log that starts after segment 0 means the snapshot that held the rest is gone.
 */
export function segmentsToReplay(segments: readonly number[], first: number, snapshot: SnapshotFound, files: LogFiles, damage: Damage): { n: number; written: number }[] {
  const snapshotPresent = snapshot.present;
  const after = segments.filter((n) => n >= first);
  const { dataFile } = files;
  const missing = new Set<number>();
  if (after.length > 0 && !snapshotPresent && !damage.snapshotDropped && after[0]! > 0) {
    damage.found(dataFile, dataFile, `is missing, but its log starts at ${files.segmentFile(after[0]!)}`, `everything folded before segment ${after[0]} is gone; the start goes on from the log alone`);
  } else if (after.length > 0 && after[0]! > first && !damage.snapshotDropped) {
    missing.add(first);
    damage.found(files.segmentFile(first), files.segmentFile(first), `is missing: ${dataFile} says the log goes on from it`, 'the changes it held are gone');
  }
  for (let i = 1; i < after.length; i++) {
    for (let gap = after[i - 1]! + 1; gap < after[i]!; gap++) {
      missing.add(gap);
      damage.found(files.segmentFile(gap), files.segmentFile(gap), `is missing between ${files.segmentFile(after[i - 1]!)} and ${files.segmentFile(after[i]!)}`, 'the changes it held are gone');
    }
  }
  // Nothing of the store is left but the marker (its files were moved away): a fresh start.
  if (!snapshotPresent && segments.length === 0) return [];
  // This version wrote the store (a checksum in its snapshot or its log): it wrote a marker too.
  const markerExpected = () => snapshot.checksummed || after.some((n) => startsChecked(files.segmentFile(n)));
  const written = writtenLengths(files, damage, markerExpected);
  for (const n of written.keys()) {
    const file = files.segmentFile(n);
    if (n >= first && !missing.has(n) && !existsSync(file)) {
      damage.found(file, file, `is missing: ${written.get(n)} bytes were written to it (${files.endFile})`, 'the changes it held are gone');
    }
  }
  return after.map((n) => ({ n, written: written.get(n) ?? 0 }));
}

/**
 * The lengths the end marker holds. Without a usable one: none where no marker is expected (a
 * fresh store, an earlier version); else damage, since a log cut short could no longer be told.
 */
function writtenLengths(files: LogFiles, damage: Damage, expected: () => boolean): Map<number, number> {
  const read = readMarker(files.endFile);
  const lengths = typeof read !== 'string' ? read.problem : read === '' ? 'is empty' : decodeLogEnd(read);
  if (typeof lengths !== 'string') return lengths;
  if (!expected()) return new Map();
  damage.found(
    files.endFile,
    files.endFile,
    `${lengths}: it holds how many bytes of each log segment were written and acknowledged, and without it a log cut short (acknowledged changes lost) cannot be told from a whole one; --repair accepts the log as it is and writes a new marker`,
    'the log was read as it is: whatever a cut took from it before this start is not known',
    false,
  );
  return new Map();
}

function readMarker(file: string): string | { problem: string } {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    return { problem: (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'is missing' : `cannot be read (${(err as Error).message})` };
  }
}

/** Whether a segment's first line carries a checksum (written by this version, which keeps the end marker). */
function startsChecked(file: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return false;
  }
  try {
    const head = Buffer.alloc(16);
    return hasChecksum(head.toString('utf8', 0, readSync(fd, head, 0, 16, 0)));
  } finally {
    closeSync(fd);
  }
}

/** What one line of a log holds: a record, or what is wrong with it (torn: a write cut short, skipped when it is the file's last line). */
export type LineVerdict<R> = { readonly record: R } | { readonly problem: string; readonly torn: boolean; readonly lost: string };

/**
 * Applies the records of one segment of a log in order, each line judged by `read`; answers how
 * many, and the segment's bytes. A segment shorter than the `written` bytes the end marker holds
 * was cut after it was written. Serves the main log and the parts' logs (part-file.ts) alike.
 */
export function replayLines<R>(
  file: string,
  bytes: Buffer,
  written: { readonly bytes: number; readonly marker: string },
  damage: Damage,
  read: (text: string) => LineVerdict<R>,
  apply: (record: R) => void,
): { records: number; bytes: number } {
  let records = 0;
  let line = 0;
  for (let start = 0; start < bytes.length; ) {
    const newline = bytes.indexOf(0x0a, start);
    const end = newline === -1 ? bytes.length : newline;
    line++;
    const place = `${file} line ${line}`;
    const verdict = end > start ? read(bytes.toString('utf8', start, end)) : null;
    if (verdict && 'record' in verdict) {
      apply(verdict.record);
      records++;
    } else if (verdict && newline === -1 && verdict.torn) {
      // Beyond what was acknowledged (a cut short of that is found below).
      damage.skippedTorn(file, line, start, end);
    } else if (verdict) {
      damage.found(file, place, `${verdict.problem} (at byte ${start})`, verdict.lost);
    }
    start = end + 1;
  }
  if (bytes.length < written.bytes) {
    damage.found(file, file, `holds ${bytes.length} bytes, but ${written.bytes} were written to it and acknowledged (${written.marker}): it was cut after it was written`, `the records from byte ${bytes.length} on are gone`);
  }
  return { records, bytes: bytes.length };
}

/** The main log's segment: its records, with lines of an earlier version (no checksums) still read. */
export function replaySegment(file: string, written: { readonly bytes: number; readonly marker: string }, damage: Damage, apply: (record: LogRecord) => void): { records: number; bytes: number } {
  const bytes = readFileSync(file);
  // Lines of one segment are written by one process: with a checksum all, or (an earlier version) none.
  const checksummed = hasChecksum(bytes.toString('utf8', 0, 16)) || bytes.includes('\n{"c":"');
  return replayLines<LogRecord>(file, bytes, written, damage, (text) => {
    const decoded = decodeLine(text);
    if ('record' in decoded) {
      return checksummed && !decoded.checksum ? { problem: 'has no checksum, unlike the other lines of this file', torn: false, lost: 'dropped' } : { record: decoded.record };
    }
    return { problem: decoded.problem, torn: !decoded.whole, lost: decoded.what ? `dropped (it held ${decoded.what})` : 'dropped' };
  }, apply);
}
