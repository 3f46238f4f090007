/**
 * The lowdb adapter of the snapshot file: lowdb's JSON file, written without blocking.
 *
 * lowdb's DataFile stringifies the whole snapshot in one call: ~60 ms of blocked event loop at
 * 10,000 payments, ~380 ms at 100,000, during which no request is answered. This adapter writes
 * the same JSON text, but top-level arrays (the payments) in batches, each its own write, so
 * requests are served between batches. The snapshot is a consistent view without any lock:
 * records are immutable (a change stores a new object) and the store hands over an array of
 * them taken at one instant. Like lowdb's writer, it writes `.<name>.tmp` beside the file and
 * renames it over the file, and it also flushes it to disk before the rename.
 *
 * It reads the file in pieces too: lowdb's JSON.parse of the whole text holds the text (~57 MB
 * at 100,000 payments) besides the records, and that garbage stays in the process until a full
 * GC, which may come only after the next run of creates has grown the heap on top of it. The
 * reader streams the file through a 1 MiB buffer and parses each member of the top-level object
 * on its own, a long array in batches of ~64 KiB of elements, so no text larger than a batch
 * exists at any moment; it answers exactly what JSON.parse of the whole text answers, and on
 * anything unexpected (not one JSON object, a damaged file) it does JSON.parse of the whole text,
 * which then answers or throws as lowdb's reader did.
 */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { open, rename } from 'node:fs/promises';
import path from 'node:path';
import type { Adapter } from 'lowdb';

/** Items serialised per write: ~1-2 ms of work for payment records. */
const BATCH = 250;

export class SnapshotFile<T extends object> implements Adapter<T> {
  private readonly tempFile: string;

  constructor(private readonly file: string) {
    this.tempFile = path.join(path.dirname(file), `.${path.basename(file)}.tmp`);
  }

  async read(): Promise<T | null> {
    let fd: number;
    try {
      fd = openSync(this.file, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    let parsed: { value: unknown } | undefined;
    try {
      parsed = readInPieces(fd);
    } finally {
      closeSync(fd);
    }
    // Not a JSON object as expected, or damaged: the whole text, parsed (or refused) as before.
    return (parsed ? parsed.value : JSON.parse(readFileSync(this.file, 'utf-8'))) as T;
  }

  /** Writes exactly JSON.stringify(data), in batches. */
  async write(data: T): Promise<void> {
    const handle = await open(this.tempFile, 'w');
    try {
      let out = '{';
      let first = true;
      for (const [key, value] of Object.entries(data)) {
        if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
        out += `${first ? '' : ','}${JSON.stringify(key)}:`;
        first = false;
        if (!Array.isArray(value) || value.length <= BATCH) {
          out += JSON.stringify(value);
          continue;
        }
        out += '[';
        for (let start = 0; start < value.length; start += BATCH) {
          const end = Math.min(start + BATCH, value.length);
          for (let i = start; i < end; i++) out += `${i > 0 ? ',' : ''}${JSON.stringify(value[i]) ?? 'null'}`;
          await writeAll(handle, out);
          out = '';
        }
        out += ']';
      }
      await writeAll(handle, `${out}}`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(this.tempFile, this.file);
  }
}

async function writeAll(handle: FileHandle, text: string): Promise<void> {
  const bytes = Buffer.from(text, 'utf8');
  let written = 0;
  while (written < bytes.length) written += (await handle.write(bytes, written)).bytesWritten;
}

const READ_BUFFER = 1 << 20;
/** Bytes of array elements parsed per JSON.parse call: ~100 payment records. */
const PIECE = 64 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

const enum At {
  ObjectStart,
  Key,
  Colon,
  Value,
  /** Inside a value that is not an array, up to the `,` or `}` after it. */
  InValue,
  /** Inside an array value, between `[` and its `]`. */
  InArray,
  AfterArray,
  End,
}

/**
 * Reads the open file `fd` holding one JSON object and answers `{ value }` with exactly what
 * JSON.parse of its whole text answers, or undefined when the text is not a JSON object that
 * parses: then the caller parses the whole text (which throws, or answers the same value).
 *
 * The text is cut only at the `:` and `,` of the top-level object and at `,` between elements
 * of its array members, and every piece is parsed by JSON.parse, so the pieces are valid JSON
 * exactly when the whole text is; what lies between the pieces (spaces, the separators) is
 * checked here. Cuts are found two ways:
 * - scanning: every byte outside strings is looked at (a string is skipped with indexOf to its
 *   closing quote), so the depth is known, and the first `,` at element depth after PIECE bytes
 *   is a cut;
 * - guessing, which skips the scan: the elements of a long array are mostly objects written by
 *   JSON.stringify with the same first key, so `},{"<that key>":` PIECE bytes further on is
 *   almost always between two elements. The guess is taken only if the batch up to it parses
 *   as a non-empty array: a `,` inside an element (in a string, or deeper) leaves a string or a
 *   bracket of that element open, which JSON.parse refuses. A refused guess is undone and that
 *   batch is scanned.
 */
function readInPieces(fd: number): { value: unknown } | undefined {
  let buf = Buffer.allocUnsafe(READ_BUFFER);
  let len = 0;
  let eof = false;
  /** The start of the text that is not parsed yet (a key, a value, a batch of elements): kept in buf. */
  let keep = 0;
  /** Bytes that must be in buf before going on (besides buf[i]). */
  let need = 0;
  const result: Record<string, unknown> = {};
  let at = At.ObjectStart;
  let firstKey = true;
  let key = '';
  let depth = 0;
  let array: unknown[] = [];
  let cut = false;
  /** The batch start (keep) whose cut was already guessed, or -1. */
  let guessed = -1;
  /** What a cut between two elements looks like, once known; null: do not guess. */
  let needle: Buffer | null | undefined;
  let inString = false;
  /** Where to look for the closing quote of the string being skipped. */
  let stringFrom = 0;

  let i = 0;
  for (;;) {
    if ((i >= len || len < need) && !eof) {
      // Keep buf[keep, len), read more after it.
      if (keep > 0) {
        buf.copy(buf, 0, keep, len);
        len -= keep;
        i -= keep;
        need -= keep;
        stringFrom -= keep;
        if (guessed >= 0) guessed -= keep;
        keep = 0;
      }
      if (len === buf.length) {
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, len);
        buf = bigger;
      }
      const n = readSync(fd, buf, len, buf.length - len, null);
      if (n === 0) eof = true;
      len += n;
      continue;
    }
    if (i >= len) break;
    if (inString) {
      const q = buf.indexOf(QUOTE, stringFrom);
      if (q === -1 || q >= len) {
        stringFrom = len;
        i = len;
        continue;
      }
      stringFrom = q + 1;
      // An odd run of backslashes before it escapes the quote.
      let b = q - 1;
      while (buf[b] === BACKSLASH) b--;
      if ((q - 1 - b) % 2 === 1) continue;
      inString = false;
      i = q + 1;
      if (at === At.Key) {
        const name = parseText(buf, keep, i);
        if (!name || typeof name.value !== 'string') return undefined;
        key = name.value;
        at = At.Colon;
        keep = i;
      }
      continue;
    }
    const c = buf[i]!;
    switch (at) {
      case At.ObjectStart:
        if (c === OPEN_BRACE) at = At.Key;
        else if (!isSpace(c)) return undefined;
        i++;
        keep = i;
        continue;
      case At.Key:
        if (c === QUOTE) {
          keep = i;
          inString = true;
          stringFrom = i + 1;
          i++;
          continue;
        }
        if (c === CLOSE_BRACE && firstKey) at = At.End;
        else if (!isSpace(c)) return undefined;
        i++;
        keep = i;
        continue;
      case At.Colon:
        if (c === COLON) at = At.Value;
        else if (!isSpace(c)) return undefined;
        i++;
        keep = i;
        continue;
      case At.Value:
        if (isSpace(c)) {
          i++;
          keep = i;
          continue;
        }
        keep = i;
        depth = 0;
        if (c === OPEN_BRACKET) {
          at = At.InArray;
          array = [];
          cut = false;
          guessed = -1;
          needle = undefined;
          i++;
        } else at = At.InValue;
        continue;
      case At.InValue:
        if (c === QUOTE) {
          inString = true;
          stringFrom = i + 1;
        } else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
        else if (c === CLOSE_BRACKET) {
          if (depth === 0) return undefined;
          depth--;
        } else if ((c === COMMA || c === CLOSE_BRACE) && depth === 0) {
          const value = parseText(buf, keep, i);
          if (!value) return undefined;
          set(result, key, value.value);
          firstKey = false;
          at = c === COMMA ? At.Key : At.End;
          i++;
          keep = i;
          continue;
        } else if (c === CLOSE_BRACE) depth--;
        i++;
        continue;
      case At.InArray: {
        if (depth === 0 && i === keep + 1 && guessed !== keep && needle !== null) {
          // At the start of a batch: guess where it ends.
          if (needle === undefined) {
            if (len < keep + 256 && !eof) {
              need = keep + 256;
              continue;
            }
            needle = firstKeyCut(buf, keep + 1, len);
            if (needle === null) continue;
          }
          if (len < keep + 2 * PIECE + needle.length && !eof) {
            need = keep + 2 * PIECE + needle.length;
            continue;
          }
          need = 0;
          guessed = keep;
          const q = buf.indexOf(needle, keep + PIECE);
          if (q !== -1 && q + needle.length <= len && q + 1 - keep <= 2 * PIECE) {
            if (batch(buf, keep, q + 1, false, cut, array)) {
              cut = true;
              keep = q + 1;
              i = keep + 1;
              continue;
            }
            buf[q + 1] = COMMA;
          }
        }
        // Scan to the next cut, to the end of the array, or to the end of what is read.
        let d = depth;
        for (; i < len; i++) {
          const b = buf[i]!;
          if (b === QUOTE) {
            const q = buf.indexOf(QUOTE, i + 1);
            if (q === -1 || q >= len) {
              inString = true;
              stringFrom = i + 1;
              i++;
              break;
            }
            let e = q - 1;
            while (buf[e] === BACKSLASH) e--;
            if ((q - 1 - e) % 2 === 1) {
              // Escaped: the string goes on; let the string code find its end.
              inString = true;
              stringFrom = q + 1;
              i = q + 1;
              break;
            }
            i = q;
          } else if (b === OPEN_BRACE || b === OPEN_BRACKET) d++;
          else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
            if (d > 0) {
              d--;
              continue;
            }
            if (b === CLOSE_BRACE || !batch(buf, keep, i, true, cut, array)) return undefined;
            set(result, key, array);
            array = [];
            firstKey = false;
            at = At.AfterArray;
            i++;
            keep = i;
            break;
          } else if (b === COMMA && d === 0 && i - keep >= PIECE) {
            if (!batch(buf, keep, i, false, cut, array)) return undefined;
            cut = true;
            // The `,` starts the next batch (it becomes its `[`).
            keep = i;
            i++;
            break;
          }
        }
        depth = d;
        continue;
      }
      case At.AfterArray:
        if (c === COMMA) at = At.Key;
        else if (c === CLOSE_BRACE) at = At.End;
        else if (!isSpace(c)) return undefined;
        i++;
        keep = i;
        continue;
      case At.End:
        if (!isSpace(c)) return undefined;
        i++;
        keep = i;
        continue;
    }
  }
  return at === At.End && !inString ? { value: result } : undefined;
}

/** Sets a member as JSON.parse does: `__proto__` too is an own property. */
function set(target: Record<string, unknown>, name: string, value: unknown): void {
  if (name === '__proto__') Object.defineProperty(target, name, { value, writable: true, enumerable: true, configurable: true });
  else target[name] = value;
}

function parseText(buf: Buffer, from: number, to: number): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(buf.toString('utf8', from, to)) };
  } catch {
    return undefined;
  }
}

/**
 * Parses buf[from..to] as one batch of elements, buf[from] being the `[` of the array or the
 * `,` of the cut before, buf[to] the `]` of the array (last) or the `,` of this cut (they are
 * overwritten with `[` and `]`), and appends them to `into`. A batch after a cut, or before
 * one, holds at least one element, or `[1,]` would pass as `[1]`.
 */
function batch(buf: Buffer, from: number, to: number, last: boolean, afterCut: boolean, into: unknown[]): boolean {
  buf[from] = OPEN_BRACKET;
  buf[to] = CLOSE_BRACKET;
  let items: unknown[];
  try {
    items = JSON.parse(buf.toString('utf8', from, to + 1)) as unknown[];
  } catch {
    return false;
  }
  if (items.length === 0 && (afterCut || !last)) return false;
  for (const item of items) into.push(item);
  return true;
}

/** `},{"<key>":` when the array at buf[from..] starts with an object whose first key is plain, else null. */
function firstKeyCut(buf: Buffer, from: number, len: number): Buffer | null {
  let j = from;
  while (j < len && isSpace(buf[j]!)) j++;
  if (buf[j] !== OPEN_BRACE || buf[j + 1] !== QUOTE) return null;
  const q = buf.indexOf(QUOTE, j + 2);
  if (q === -1 || q >= len || q - j > 64 || buf[q + 1] !== COLON) return null;
  const name = buf.subarray(j + 1, q + 2);
  if (name.includes(BACKSLASH)) return null;
  return Buffer.concat([Buffer.from('},{'), name]);
}
