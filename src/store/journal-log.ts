/**
 * Where the request journal is kept: per merchant, newest first, bounded. The in-process log
 * below serves the memory store, and the file store in front of its files (file-logs.ts); a
 * shared store keeps the same entries in a table.
 */
import { ByteTally, journalEntryBytes } from './storage-quota.js';
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
  readonly status: number | 'dropped';
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
}

export type NewJournalEntry = Omit<JournalEntry, 'id'>;

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

/** One merchant's entries, and the id of the last one it kept. */
class Ring {
  private readonly items: (JournalEntry | undefined)[] = new Array(JOURNAL_CAP);
  /** The stored bytes of each entry (storage-quota.ts), beside it. */
  private readonly sizes: number[] = [];
  private next = 0;
  size = 0;
  lastId = 0;

  /** Keeps `entry` of `bytes`; answers the bytes of the oldest entry it pushed out (0: none). */
  push(entry: JournalEntry, bytes: number): number {
    if (entry.id > this.lastId) this.lastId = entry.id;
    const evicted = this.size < JOURNAL_CAP ? 0 : (this.sizes[this.next] ?? 0);
    this.sizes[this.next] = bytes;
    this.items[this.next] = entry;
    this.next = (this.next + 1) % JOURNAL_CAP;
    if (this.size < JOURNAL_CAP) this.size++;
    return evicted;
  }

  *newestFirst(): Generator<JournalEntry> {
    for (let i = 1; i <= this.size; i++) yield this.items[(this.next - i + JOURNAL_CAP) % JOURNAL_CAP]!;
  }

  *oldestFirst(): Generator<JournalEntry> {
    for (let i = this.size; i >= 1; i--) yield this.items[(this.next - i + JOURNAL_CAP) % JOURNAL_CAP]!;
  }
}

/** The journal of one process: a ring of entries per merchant. */
export class MemoryJournalLog implements JournalLog {
  private readonly byMerchant = new Map<string, Ring>();
  /** Entries held, all merchants together. */
  size = 0;
  /** Their stored bytes, per merchant (storage quota). */
  readonly bytes = new ByteTally();

  async append(payeeId: string, entry: NewJournalEntry): Promise<void> {
    this.keep(payeeId, entry);
  }

  /** Keeps `entry` under the merchant's next id and answers it as kept. */
  keep(payeeId: string, entry: NewJournalEntry): JournalEntry {
    const ring = this.ring(payeeId);
    const kept: JournalEntry = { id: ring.lastId + 1, ...entry };
    this.push(payeeId, ring, kept);
    return kept;
  }

  /** Keeps an entry read back from a file, under the id it had. */
  restore(payeeId: string, entry: JournalEntry): void {
    this.push(payeeId, this.ring(payeeId), entry);
  }

  private ring(payeeId: string): Ring {
    let ring = this.byMerchant.get(payeeId);
    if (!ring) this.byMerchant.set(payeeId, (ring = new Ring()));
    return ring;
  }

  private push(payeeId: string, ring: Ring, entry: JournalEntry): void {
    if (ring.size < JOURNAL_CAP) this.size++;
    const bytes = journalEntryBytes(entry);
    this.bytes.add(payeeId, bytes - ring.push(entry, bytes));
  }

  /** Every entry with its merchant, oldest first per merchant: restoring them in this order rebuilds the journal. */
  *entries(): Generator<readonly [string, JournalEntry]> {
    for (const [payeeId, ring] of this.byMerchant) for (const e of ring.oldestFirst()) yield [payeeId, e];
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
