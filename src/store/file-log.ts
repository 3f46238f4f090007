// Appended synchronously before the answer: a write that returned is in the OS, so kill -9 loses nothing (fsync is for power loss).
import { closeSync, fsyncSync, ftruncateSync, openSync, readSync, renameSync, writeSync } from 'node:fs';
import { rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { errorFields, type Logger } from '../logger.js';
import { diskProblem } from './data-dir-probe.js';
import { StoreUnavailableError } from './unavailable.js';

export type FsyncPolicy = 'always' | 'second' | 'off';

/** SANDBOX_SNAPSHOT_MB when unset. */
export const DEFAULT_SNAPSHOT_AFTER_BYTES = 64 * 1024 * 1024;

/** A word the store does not know refuses the start rather than silently weakening durability. */
export function fsyncPolicy(value: string | undefined): FsyncPolicy {
  if (value === undefined || value === '') return 'second';
  if (value === 'always' || value === 'second' || value === 'off') return value;
  throw new Error(`SANDBOX_FSYNC must be always, second or off (got ${JSON.stringify(value)}): always flushes every change to the disk before the answer, second (the default) at most a second later, off leaves it to the OS.`);
}

export class AppendLog {
  /** A failed append is cut back to here, so the next line is never glued to half a line. */
  bytes = 0;
  /** Kept for /healthz until an append lands again (an fsync failure: until an fsync succeeds). */
  failure: { readonly err: unknown; readonly at: number; readonly fsync?: true } | undefined;
  private fd: number | null = null;
  private flushTimer: NodeJS.Timeout | null = null;

  constructor(
    readonly file: string,
    private readonly fsync: FsyncPolicy,
    private readonly logger: Logger,
  ) {}

  get isOpen(): boolean {
    return this.fd !== null;
  }

  /** Cuts what follows the last whole line the start kept: a write a crash cut short. */
  open(bytes: number): void {
    // Readable too: a restart copies what was appended while its snapshot was written.
    this.fd = openSync(this.file, 'a+');
    ftruncateSync(this.fd, bytes);
    this.bytes = bytes;
  }

  /** Whole lines or nothing: the caller changes memory only after this returns. */
  append(text: string): void {
    if (this.fd === null) throw new StoreUnavailableError(`the file store ${this.file} is closed`, false);
    const buffer = Buffer.from(text);
    try {
      writeAll(this.fd, buffer);
      if (this.fsync === 'always') fsyncSync(this.fd);
    } catch (err) {
      this.failure = { err, at: performance.now() };
      try {
        ftruncateSync(this.fd, this.bytes);
      } catch {
        // The start drops a cut last line anyway.
      }
      const code = (err as { code?: unknown } | null)?.code;
      const forClient = `The sandbox could not write its data file (${typeof code === 'string' ? code : 'a write error'}): nothing was changed. Free disk space or check the data directory, then retry.`;
      throw new StoreUnavailableError(diskProblem(err, this.file), false, forClient);
    }
    this.bytes += buffer.length;
    if (!this.failure?.fsync) this.failure = undefined;
    if (this.fsync === 'second' && !this.flushTimer) this.flushTimer = setTimeout(() => this.flush(), 1_000).unref();
  }

  flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    if (this.fd !== null && this.fsync !== 'off') this.synced(() => fsyncSync(this.fd!));
  }

  /** Never thrown: it runs in a timer or after a rename that already took effect. */
  private synced(fsync: () => void): void {
    try {
      fsync();
      if (this.failure?.fsync) {
        this.failure = undefined;
        this.logger.info({ file: this.file }, 'store fsync works again');
      }
    } catch (err) {
      if (!this.failure?.fsync) this.logger.error({ file: this.file, ...errorFields(err) }, 'store fsync failed: changes since the last flush may not survive a power loss');
      this.failure = { err, at: performance.now(), fsync: true };
    }
  }

  close(): void {
    if (this.fd === null) return;
    this.flush();
    closeSync(this.fd);
    this.fd = null;
  }

  /** The old log stays whole until the rename, so a crash meanwhile loses nothing. */
  async restart(header: string, from: number): Promise<void> {
    const copied = this.bytes;
    const temp = await writeTemp(this.file, [Buffer.concat([Buffer.from(header), this.read(from, copied)])], this.fsync !== 'off');
    // What was appended meanwhile goes in the turn of the rename: nothing can be appended in between.
    const fd = openSync(temp, 'a+');
    try {
      writeAll(fd, this.read(copied, this.bytes));
      if (this.fsync === 'always') fsyncSync(fd);
      renameSync(temp, this.file);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
    if (this.fd !== null) closeSync(this.fd);
    this.fd = fd;
    this.bytes = Buffer.byteLength(header) + this.bytes - from;
    // The new log is in use from now on, whatever its directory's fsync says.
    if (this.fsync !== 'off') this.synced(() => syncDirOf(this.file));
  }

  private read(from: number, to: number): Buffer {
    const bytes = Buffer.alloc(to - from);
    if (bytes.length > 0) readSync(this.fd!, bytes, 0, bytes.length, from);
    return bytes;
  }
}

/** A crash leaves the old file or the new one, never half of one. */
export async function replaceFile(file: string, chunks: Iterable<string | Buffer>, sync: boolean): Promise<void> {
  await rename(await writeTemp(file, chunks, sync), file);
  if (sync) syncDirOf(file);
}

/** Each chunk in its own event-loop turn, so requests are served meanwhile. */
async function writeTemp(file: string, chunks: Iterable<string | Buffer>, sync: boolean): Promise<string> {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.tmp`);
  try {
    await writeFile(temp, chunks, { flush: sync });
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
  return temp;
}

/** A rename reaches the disk with its directory's entry: fsynced too. */
function syncDirOf(file: string): void {
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
