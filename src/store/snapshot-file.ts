/**
 * The lowdb adapter of the snapshot file: lowdb's JSON file, never held whole in memory.
 *
 * Writing: lowdb's DataFile stringifies the whole snapshot in one call (~380 ms of blocked event
 * loop at 100,000 payments). This adapter writes the same JSON value in batches, so requests are
 * served between them, and lays out each array member of the top-level object one element per
 * line (JSON.stringify never writes a raw newline, so a line is one element). The snapshot is a
 * consistent view without any lock: records are immutable (a change stores a new object) and
 * the store hands over an array of them taken at one instant. Like lowdb's writer, it writes
 * `.<name>.tmp` beside the file and renames it over the file, after flushing it to disk.
 *
 * Reading: JSON.parse of the whole text holds the text (~57 MB at 100,000 payments) besides the
 * records until a full GC, and V8 sizes the heap on top of it. In the layout above, the reader
 * parses the elements of each array in batches of lines and the rest of the object on its own,
 * so no text much larger than a batch exists. Any other text (lowdb's one-line file, a
 * hand-edited one, damage) is parsed whole, as lowdb does. Either way the answer is exactly
 * JSON.parse of the text, or its SyntaxError, told with the file name.
 *
 * Checksum (when `checksumKey` is given): the object's first member is `"<key>":"<crc32>"`, the
 * CRC-32 (8 hex digits) of every byte after that member's comma. The writer leaves room for it
 * and fills it in before the flush; the reader computes it over the bytes as they stream by and
 * says whether it matched (the member itself is taken out of the value). A file without the
 * member (lowdb's, an earlier version's) reads as before, told apart as `absent`.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import type { FileHandle } from 'node:fs/promises';
import { open, rename } from 'node:fs/promises';
import path from 'node:path';
import type { Adapter } from 'lowdb';

/** Items serialised per write: ~1-2 ms of work for payment records. */
const BATCH = 250;
/** Characters of element lines parsed per JSON.parse call when reading: ~100 payment records. */
const PIECE = 64 * 1024;
const READ_BUFFER = 1 << 20;

/** What the checksum of a snapshot file said: no checksum in it, it matched, or it did not. */
export type SnapshotChecksum = 'absent' | 'verified' | { readonly stored: string; readonly computed: string; readonly bytes: number };

export class SnapshotFile<T extends object> implements Adapter<T> {
  private readonly tempFile: string;

  constructor(
    private readonly file: string,
    private readonly options: { readonly checksumKey?: string } = {},
  ) {
    this.tempFile = path.join(path.dirname(file), `.${path.basename(file)}.tmp`);
  }

  async read(): Promise<T | null> {
    return (await this.readChecked())?.value ?? null;
  }

  /** The value and what its checksum said; null when there is no file. */
  async readChecked(): Promise<{ value: T; checksum: SnapshotChecksum } | null> {
    let fd: number;
    try {
      fd = openSync(this.file, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    const check = new ChecksumReader(this.options.checksumKey);
    let read: { value: unknown } | undefined;
    try {
      read = readByLines(lines(fd, check));
    } finally {
      closeSync(fd);
    }
    // Read by lines to its end, the bytes went through the checksum on the way; otherwise read whole.
    if (!read) read = { value: this.parseWhole(check) };
    return { value: check.strip(read.value) as T, checksum: check.result() };
  }

  /** JSON.parse of the whole file; its error names the file and what to do. */
  private parseWhole(check: ChecksumReader): unknown {
    const bytes = readFileSync(this.file);
    check.restart();
    check.feed(bytes);
    try {
      return JSON.parse(bytes.toString('utf-8'));
    } catch (err) {
      if (!(err instanceof SyntaxError)) throw err;
      throw new SyntaxError(
        `${this.file} is not valid JSON (${err.message}): the store snapshot is damaged; restore ${this.file} from a copy, or move it and every file beside it whose name starts with it (.wal.*, .wal-end, .idempotency*, .readiness*) away to start with an empty store`,
        { cause: err },
      );
    }
  }

  /** Writes JSON text whose JSON.parse equals JSON.parse(JSON.stringify(data)), in batches (with the checksum member first, if asked). */
  async write(data: T): Promise<void> {
    const handle = await open(this.tempFile, 'w');
    try {
      const key = this.options.checksumKey;
      const head = key === undefined ? '' : `{${JSON.stringify(key)}:"`;
      let crc = 0;
      if (key !== undefined) await writeAll(handle, Buffer.from(`${head}00000000",`));
      const put = async (text: string) => {
        const bytes = Buffer.from(text, 'utf8');
        if (key !== undefined) crc = crc32(bytes, crc);
        await writeAll(handle, bytes);
      };
      let out = key === undefined ? '{' : '';
      let first = true;
      for (const [name, value] of Object.entries(data)) {
        if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
        out += `${first ? '' : ','}${JSON.stringify(name)}:`;
        first = false;
        if (!Array.isArray(value)) {
          out += JSON.stringify(value);
          continue;
        }
        out += '[\n';
        for (let start = 0; start < value.length; start += BATCH) {
          const end = Math.min(start + BATCH, value.length);
          for (let i = start; i < end; i++) out += `${JSON.stringify(value[i]) ?? 'null'}${i < value.length - 1 ? ',' : ''}\n`;
          await put(out);
          out = '';
        }
        out += ']';
      }
      if (first && key !== undefined) throw new Error('a snapshot with a checksum needs at least one member');
      await put(`${out}}`);
      if (key !== undefined) await handle.write(Buffer.from(hex8(crc)), 0, 8, Buffer.byteLength(head));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(this.tempFile, this.file);
  }
}

function hex8(crc: number): string {
  return (crc >>> 0).toString(16).padStart(8, '0');
}

/**
 * The CRC-32 of a file's bytes after its checksum member, fed chunk by chunk as they are read.
 * The member is recognised only as the writer writes it, at the very start of the file.
 */
class ChecksumReader {
  private readonly head: Buffer | null;
  private seen = 0;
  private start = Buffer.alloc(0);
  private stored: string | null = null;
  private crc = 0;

  constructor(private readonly key: string | undefined) {
    this.head = key === undefined ? null : Buffer.from(`{${JSON.stringify(key)}:"`);
  }

  /** The next bytes of the file, in order from its start. */
  feed(chunk: Buffer): void {
    if (!this.head) return;
    const prefix = this.head.length + 10;
    let rest = chunk;
    if (this.seen < prefix) {
      const take = Math.min(prefix - this.seen, chunk.length);
      this.start = Buffer.concat([this.start, chunk.subarray(0, take)]);
      rest = chunk.subarray(take);
      if (this.start.length === prefix) this.stored = this.parseHead();
    }
    this.seen += chunk.length;
    if (this.stored !== null && rest.length > 0) this.crc = crc32(rest, this.crc);
  }

  restart(): void {
    this.seen = 0;
    this.start = Buffer.alloc(0);
    this.stored = null;
    this.crc = 0;
  }

  result(): SnapshotChecksum {
    if (this.stored === null) return 'absent';
    const computed = hex8(this.crc);
    return computed === this.stored ? 'verified' : { stored: this.stored, computed, bytes: this.seen - this.head!.length - 10 };
  }

  /** The value without its checksum member, when the file had one. */
  strip(value: unknown): unknown {
    if (this.stored !== null && this.key !== undefined && typeof value === 'object' && value !== null) delete (value as Record<string, unknown>)[this.key];
    return value;
  }

  private parseHead(): string | null {
    const head = this.head!;
    if (!this.start.subarray(0, head.length).equals(head)) return null;
    const digits = this.start.toString('latin1', head.length, head.length + 8);
    const close = this.start.toString('latin1', head.length + 8);
    return /^[0-9a-f]{8}$/.test(digits) && close === '",' ? digits : null;
  }
}

async function writeAll(handle: FileHandle, bytes: Buffer): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += (await handle.write(bytes, written)).bytesWritten;
}

/** The lines of the file, without their "\n"; a line is decoded whole, so no character is split. Every byte read goes to `check`. */
function* lines(fd: number, check: ChecksumReader): Generator<string> {
  let buf = Buffer.allocUnsafe(READ_BUFFER);
  let len = 0;
  for (;;) {
    if (len === buf.length) buf = Buffer.concat([buf, Buffer.allocUnsafe(buf.length)]);
    const got = readSync(fd, buf, len, buf.length - len, null);
    if (got === 0) break;
    check.feed(buf.subarray(len, len + got));
    len += got;
    const filled = buf.subarray(0, len);
    let start = 0;
    for (let nl = filled.indexOf(0x0a); nl !== -1; nl = filled.indexOf(0x0a, start)) {
      yield buf.toString('utf8', start, nl);
      start = nl + 1;
    }
    buf.copy(buf, 0, start, len);
    len -= start;
  }
  yield buf.toString('utf8', 0, len);
}

/**
 * JSON.parse of the text made of `lines`, joined by "\n", reading each array that a line opens
 * (a line ending in "[") in batches; undefined when the text is not in the layout the writer
 * uses, or a piece does not parse: the caller then parses the whole text.
 *
 * Each array's text is replaced by a placeholder string in the rest of the object. Batches end
 * only after a line ending in ",", and each must parse as a non-empty array on its own, so
 * cutting there is exact: a cut inside an element leaves a string or bracket of it open.
 */
export function readByLines(source: Iterable<string>): { value: unknown } | undefined {
  const nonce = randomBytes(9).toString('base64url');
  const placeholder = (n: number) => `\u0000array-${nonce}-${n}`;
  let rest = '';
  const arrays: unknown[][] = [];
  let array = null as unknown[] | null; // set by outside() too
  let batch = '';
  const parseBatch = (text: string): boolean => {
    let elements: unknown;
    try {
      elements = JSON.parse(`[${text}]`);
    } catch {
      return false;
    }
    if (!Array.isArray(elements) || elements.length === 0) return false;
    for (const e of elements) array!.push(e);
    return true;
  };
  /** Text outside the arrays goes to `rest`; one that ends in "[" opens an array (a placeholder in `rest`). */
  const outside = (text: string): void => {
    if (!text.trimEnd().endsWith('[')) {
      rest += `${text}\n`;
      return;
    }
    rest += `${text.slice(0, text.lastIndexOf('['))}${JSON.stringify(placeholder(arrays.length))}`;
    arrays.push((array = []));
  };

  for (const line of source) {
    if (array === null) {
      outside(line);
      continue;
    }
    const end = line.trimStart();
    if (end.startsWith(']')) {
      // The last batch: no comma after its last element; none at all when the array is empty.
      if (batch.trim() !== '' ? !parseBatch(batch) : array.length > 0) return undefined;
      batch = '';
      array = null;
      outside(end.slice(1));
      continue;
    }
    batch += `${line}\n`;
    const trimmed = line.trimEnd();
    if (batch.length >= PIECE && trimmed.endsWith(',')) {
      if (!parseBatch(batch.slice(0, batch.lastIndexOf(',')))) return undefined;
      batch = '';
    }
  }
  if (array !== null) return undefined;

  let value: unknown;
  try {
    value = JSON.parse(rest);
  } catch {
    return undefined;
  }
  if (arrays.length === 0) return { value };
  // Every placeholder must be a member of the top-level object, once.
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  let found = 0;
  for (const key of Object.keys(value)) {
    const member = (value as Record<string, unknown>)[key];
    if (typeof member !== 'string' || !member.startsWith(`\u0000array-${nonce}-`)) continue;
    const n = Number(member.slice(`\u0000array-${nonce}-`.length));
    // defineProperty: a key "__proto__" stays an own member, as JSON.parse makes it.
    Object.defineProperty(value, key, { value: arrays[n], writable: true, enumerable: true, configurable: true });
    found++;
  }
  return found === arrays.length ? { value } : undefined;
}
