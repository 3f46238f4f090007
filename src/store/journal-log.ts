/**
 * Where the request journal is kept: per merchant, newest first, bounded. The in-process log
 * below serves the memory store, and the file store in front of its files (file-parts.ts); a
 * shared store keeps the same entries in a table.
 */
import { answerTextBytes, ByteTally, journalEntryBytes } from './storage-quota.js';
import type { StorageRoom, TrimmablePart } from './storage-room.js';
export interface JournalEntry {
  /**
   * The merchant's own count: 1, 2, 3... in the order its entries were kept, never shared with
   * another merchant (whose traffic would show as gaps); it starts again at 1 once the merchant's
   * journal is erased (DELETE /sandbox/v1/requests, a reset).
   */
  readonly id: number;
  readonly at: number;
  readonly method: string;
  readonly path: string;
  /** The call used /v1/... without /openapi, which only one sample of the interface shows. */
  readonly alias: boolean;
  readonly status: number | 'dropped' | 'held';
  readonly code: number | null;
  readonly requestBody: string | null;
  readonly responseBody: string | null;
  readonly latencyMs: number;
  readonly fault: string | null;
  readonly warnings: readonly string[];
  /** The request's Request-Id (absent on entries kept before it existed). */
  readonly requestId?: string;
  /** The Idempotency-Key the request carried, if any (the readiness report follows retries by it). */
  readonly idempotencyKey?: string;
  /**
   * Names the answer text the store keeps once for every entry that answered it: a status read's `<payment id>@<version>`.
   * One name, one text: the in-process stores keep an entry whose text differs from the one kept under its name as
   * an entry of its own; PostgreSQL, whose versions are final, shows the first text kept.
   */
  readonly answerRef?: string;
}

export type NewJournalEntry = Omit<JournalEntry, 'id'>;

/** An entry as a file or a table holds it: one that refers to its answer text kept with an earlier entry is without it. */
export type StoredJournalEntry = Omit<JournalEntry, 'responseBody'> & { readonly responseBody?: string | null };

export interface JournalFilter {
  readonly method?: string;
  readonly path?: string;
  readonly status?: number;
  readonly limit: number;
}

/** Entries kept per merchant; the oldest go first. */
export const JOURNAL_CAP = 500;

export interface JournalLog {
  append(payeeId: string, entry: NewJournalEntry): Promise<void>;
  /** Newest first, at most `filter.limit`. */
  list(payeeId: string, filter: JournalFilter): Promise<JournalEntry[]>;
  /** Erases the merchant's entries; answers how many went. */
  clear(payeeId: string): Promise<number>;
}

/** True when `e` passes the filter's method, path (a part of it) and status. */
export function journalEntryMatches(e: JournalEntry, filter: JournalFilter): boolean {
  return (
    (filter.method === undefined || e.method === filter.method) &&
    (filter.path === undefined || e.path.includes(filter.path)) &&
    (filter.status === undefined || e.status === filter.status)
  );
}

/** An answer text kept once per merchant, and how many of its entries refer to it. */
interface KeptAnswer {
  readonly text: string;
  refs: number;
  /** Whether an entry carrying it went to the file; false again when that line was lost (unwritten). */
  carried: boolean;
}

/** One merchant's entries, the answer texts they refer to, and the id of the last one it kept. */
class Ring {
  private readonly items: (JournalEntry | undefined)[] = new Array(JOURNAL_CAP);
  /** The stored bytes of each entry (storage-quota.ts), beside it. */
  private readonly sizes: number[] = [];
  readonly answers = new Map<string, KeptAnswer>();
  private next = 0;
  size = 0;
  lastId = 0;

  /** Keeps `entry` of `bytes`; answers the bytes that went: the oldest entry it pushed out, and a text only that one referred to. */
  push(entry: JournalEntry, bytes: number): number {
    if (entry.id > this.lastId) this.lastId = entry.id;
    let freed = 0;
    if (this.size === JOURNAL_CAP) {
      freed = this.sizes[this.next] ?? 0;
      const ref = this.items[this.next]?.answerRef;
      if (ref !== undefined) freed += this.release(ref);
    }
    this.sizes[this.next] = bytes;
    this.items[this.next] = entry;
    this.next = (this.next + 1) % JOURNAL_CAP;
    if (this.size < JOURNAL_CAP) this.size++;
    return freed;
  }

  /** Drops the oldest entry; answers its bytes, and its text's when only it referred to it. */
  dropOldest(): number {
    if (this.size === 0) return 0;
    const at = (this.next - this.size + JOURNAL_CAP) % JOURNAL_CAP;
    let freed = this.sizes[at] ?? 0;
    const ref = this.items[at]?.answerRef;
    if (ref !== undefined) freed += this.release(ref);
    this.items[at] = undefined;
    this.size--;
    return freed;
  }

  /** One entry fewer refers to `ref`; answers the bytes of its text when none does any more (the text goes). */
  private release(ref: string): number {
    const kept = this.answers.get(ref);
    if (!kept || --kept.refs > 0) return 0;
    this.answers.delete(ref);
    return answerTextBytes(kept.text);
  }

  *newestFirst(): Generator<JournalEntry> {
    for (let i = 1; i <= this.size; i++) yield this.items[(this.next - i + JOURNAL_CAP) % JOURNAL_CAP]!;
  }

  *oldestFirst(): Generator<JournalEntry> {
    for (let i = this.size; i >= 1; i--) yield this.items[(this.next - i + JOURNAL_CAP) % JOURNAL_CAP]!;
  }
}

/** An entry as it is kept, and whether its stored form carries its answer text (false: it refers to one kept already). */
export interface KeptEntry {
  readonly entry: JournalEntry;
  readonly carriesAnswer: boolean;
}

/** The journal of one process: a ring of entries per merchant. */
export class MemoryJournalLog implements JournalLog, TrimmablePart {
  private readonly byMerchant = new Map<string, Ring>();
  /** Entries held, all merchants together. */
  size = 0;
  /** Their stored bytes, per merchant (storage quota), answer texts included once. */
  readonly bytes = new ByteTally();
  private room: StorageRoom | undefined;

  keepWithin(room: StorageRoom): void {
    this.room = room;
  }

  /** The merchant's oldest entries go until `bytes` went, all but its newest (storage-room.ts): a merchant always sees its last request. */
  trimOldest(payeeId: string, bytes: number): number {
    const ring = this.byMerchant.get(payeeId);
    let freed = 0;
    while (ring && ring.size > 1 && freed < bytes) {
      freed += ring.dropOldest();
      this.size--;
    }
    this.bytes.add(payeeId, -freed);
    return freed;
  }

  async append(payeeId: string, entry: NewJournalEntry): Promise<void> {
    this.keep(payeeId, entry);
  }

  /** Keeps `entry` under the merchant's next id and answers it as kept. */
  keep(payeeId: string, entry: NewJournalEntry): KeptEntry {
    const ring = this.ring(payeeId);
    return this.push(payeeId, ring, ring.lastId + 1, entry);
  }

  /** Keeps an entry read back from a file, under the id it had; one without its answer text gets the one kept for its answerRef. */
  restore(payeeId: string, entry: StoredJournalEntry): void {
    this.push(payeeId, this.ring(payeeId), entry.id, entry);
  }

  private ring(payeeId: string): Ring {
    let ring = this.byMerchant.get(payeeId);
    if (!ring) this.byMerchant.set(payeeId, (ring = new Ring()));
    return ring;
  }

  private push(payeeId: string, ring: Ring, id: number, e: NewJournalEntry | StoredJournalEntry): KeptEntry {
    if (ring.size < JOURNAL_CAP) this.size++;
    const answer = refer(ring.answers, e.answerRef, e.responseBody);
    // The kept string itself, not an equal copy: memory holds the text once.
    const entry: JournalEntry = answer ? { id, ...e, responseBody: answer.text } : ownAnswer(id, e);
    const first = answer?.refs === 1;
    const bytes = journalEntryBytes(entry);
    this.bytes.add(payeeId, bytes + (first ? answerTextBytes(answer.text) : 0) - ring.push(entry, bytes));
    const carries = answer === undefined || !answer.carried;
    if (answer) answer.carried = true;
    this.room?.kept(payeeId);
    return { entry, carriesAnswer: carries };
  }

  /** The line that carried `ref`'s text `text` was lost (a failed write): the next entry that refers to it carries it. */
  unwritten(payeeId: string, ref: string, text: string): void {
    const kept = this.byMerchant.get(payeeId)?.answers.get(ref);
    if (kept?.text === text) kept.carried = false;
  }

  /** Every entry with its merchant, oldest first per merchant: restoring them in this order rebuilds the journal. An answer text goes with the first entry that refers to it. */
  *entries(): Generator<readonly [string, StoredJournalEntry]> {
    for (const [payeeId, ring] of this.byMerchant) {
      const written = new Set<string>();
      for (const e of ring.oldestFirst()) {
        const ref = e.answerRef;
        if (ref !== undefined && written.has(ref)) yield [payeeId, withoutAnswer(e)];
        else {
          if (ref !== undefined) written.add(ref);
          yield [payeeId, e];
        }
      }
    }
  }

  async list(payeeId: string, filter: JournalFilter): Promise<JournalEntry[]> {
    const out: JournalEntry[] = [];
    const ring = this.byMerchant.get(payeeId);
    if (!ring) return out;
    for (const e of ring.newestFirst()) {
      if (!journalEntryMatches(e, filter)) continue;
      out.push(e);
      if (out.length >= filter.limit) break;
    }
    return out;
  }

  async clear(payeeId: string): Promise<number> {
    const size = this.byMerchant.get(payeeId)?.size ?? 0;
    this.byMerchant.delete(payeeId);
    this.bytes.clear(payeeId);
    this.size -= size;
    return size;
  }
}

/**
 * The text kept for `ref`, now referred to once more (kept as `body` when none was: refs 1); undefined
 * when the entry keeps its own answer: no ref, no answer, or another text kept under that name (a
 * ref may name two answers: a text that differs from the one kept is kept with its entry).
 * A body undefined is an entry read back without its text: it refers to the one kept.
 */
function refer(answers: Map<string, KeptAnswer>, ref: string | undefined, body: string | null | undefined): KeptAnswer | undefined {
  if (ref === undefined || body === null) return undefined;
  const kept = answers.get(ref);
  if (kept) {
    if (body !== undefined && body !== kept.text) return undefined;
    kept.refs++;
    return kept;
  }
  if (body === undefined) return undefined;
  const fresh = { text: body, refs: 1, carried: false };
  answers.set(ref, fresh);
  return fresh;
}

/** An entry that keeps its own answer (none when its text was lost: a line a repair dropped). */
function ownAnswer(id: number, e: NewJournalEntry | StoredJournalEntry): JournalEntry {
  if (e.answerRef === undefined) return { id, ...e, responseBody: e.responseBody ?? null };
  const { answerRef: _ref, ...own } = e;
  return { id, ...own, responseBody: own.responseBody ?? null };
}

/** The stored form of an entry whose answer text is kept with an earlier one. */
export function withoutAnswer(e: JournalEntry): StoredJournalEntry {
  const { responseBody: _body, ...rest } = e;
  return rest;
}
