/**
 * The file store's two files: the log `<dataFile>.log`, appended to synchronously, one change a
 * line, before anyone is told of the change; and the snapshot `<dataFile>`, replaced whole and
 * atomically (a temporary file, fsync, rename). Both are JSON lines (file-records.ts).
 *
 * An append that fails (a full disk) is cut back to the last whole line, so the next one is
 * never glued to half a line, and throws StoreUnavailableError: the caller changes nothing.
 *
 * SANDBOX_FSYNC: `always` flushes the log to the disk before the answer; `second` (default) at
 * most a second after a write, as Redis's `appendfsync everysec`; `off` leaves it to the OS.
 * A write that returned is in the OS either way, so a killed process loses nothing.
 */
import { closeSync, fsyncSync, ftruncateSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { diskProblem } from './data-dir-probe.js';
import { StoreUnavailableError } from './unavailable.js';

export type FsyncPolicy = 'always' | 'second' | 'off';

/** SANDBOX_SNAPSHOT_MB when unset: a snapshot once the log holds 64 MiB. */
export const DEFAULT_SNAPSHOT_AFTER_BYTES = 64 * 1024 * 1024;

/** SANDBOX_FSYNC, checked: a word the store does not know refuses the start. */
export function fsyncPolicy(value: string | undefined): FsyncPolicy {
  if (value === undefined || value === '') return 'second';
  if (value === 'always' || value === 'second' || value === 'off') return value;
  throw new Error(`SANDBOX_FSYNC must be always, second or off (got ${JSON.stringify(value)}): always flushes every change to the disk before the answer, second (the default) at most a second later, off leaves it to the OS.`);
}

export class AppendLog {
  /** Bytes in the log: where a failed append is cut back to. */
  bytes = 0;
  /** Why the last append failed, until one lands again (for /healthz); `at` on performance.now(). */
  failure: { readonly err: unknown; readonly at: number } | undefined;
  private fd: number | null = null;
  private flushTimer: NodeJS.Timeout | null = null;

  constructor(
    readonly file: string,
    private readonly fsync: FsyncPolicy,
  ) {}

  get isOpen(): boolean {
    return this.fd !== null;
  }

  /** Appends from `bytes` on (what the start read and kept). */
  open(bytes: number): void {
    this.fd = openSync(this.file, 'a');
    // Anything after the last whole line (a write a crash cut short) goes.
    ftruncateSync(this.fd, bytes);
    this.bytes = bytes;
  }

  /** Writes `text` (whole lines) or throws StoreUnavailableError having written nothing. */
  append(text: string): void {
    const fd = this.fd;
    if (fd === null) throw new StoreUnavailableError(`the file store ${this.file} is closed`, false);
    const buffer = Buffer.from(text);
    try {
      writeAll(fd, buffer);
      if (this.fsync === 'always') fsyncSync(fd);
    } catch (err) {
      this.failure = { err, at: performance.now() };
      try {
        ftruncateSync(fd, this.bytes);
      } catch {
        // The start drops a cut last line anyway (and cuts it off before appending again).
      }
      const code = (err as { code?: unknown } | null)?.code;
      const forClient = `The sandbox could not write its data file (${typeof code === 'string' ? code : 'a write error'}): nothing was changed. Free disk space or check the data directory, then retry.`;
      throw new StoreUnavailableError(diskProblem(err, this.file), false, forClient);
    }
    this.bytes += buffer.length;
    this.failure = undefined;
    if (this.fsync === 'second' && !this.flushTimer) this.flushTimer = setTimeout(() => this.flush(), 1_000).unref();
  }

  /** Flushes what was written to the disk (policy `second`, and at close). */
  flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    if (this.fd !== null && this.fsync !== 'off') fsyncSync(this.fd);
  }

  close(): void {
    if (this.fd === null) return;
    try {
      this.flush();
    } finally {
      closeSync(this.fd);
      this.fd = null;
    }
  }

  /** Starts the log afresh with `header` (after a snapshot), atomically: the old log stays whole until the rename. */
  restart(header: string): void {
    replaceFile(this.file, [header], this.fsync !== 'off');
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    this.open(Buffer.byteLength(header));
  }
}

/**
 * Writes `file` whole from `chunks` through `.<name>.tmp` beside it, renamed over it once whole
 * (and, with `sync`, flushed to the disk first): a crash leaves the old file or the new one, never a part.
 */
export function replaceFile(file: string, chunks: Iterable<string>, sync: boolean): void {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.tmp`);
  const fd = openSync(temp, 'w');
  try {
    for (const chunk of chunks) writeAll(fd, Buffer.from(chunk));
    if (sync) fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    unlinkSync(temp);
    throw err;
  }
  closeSync(fd);
  renameSync(temp, file);
  if (!sync) return;
  // The rename itself reaches the disk with the directory.
  const dir = openSync(path.dirname(file), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

/** A write may land in part (a disk filling up): the rest is written until done or refused. */
function writeAll(fd: number, buffer: Buffer): void {
  for (let done = 0; done < buffer.length; ) done += writeSync(fd, buffer, done, buffer.length - done);
}
