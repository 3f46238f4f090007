/**
 * Where the go-live readiness report's evidence is kept (SPEC 16: "what the report needs is kept
 * beyond the journal's bound"): per merchant, oldest first, the slim record of each request the
 * checks can use (domain/readiness.ts decides which, and what is kept of it), bounded apart from
 * the journal, and not erased by clearing the journal's view (only by a reset).
 *
 * A polling loop does not push older evidence out: entries may carry a repeat key (the same
 * status read, answered the same), and of the entries with one key within a run (entries between
 * two without a key), only the first and the last are kept. The in-process log below serves the
 * memory store, and the file store in front of its files (file-parts.ts); the shared store keeps
 * the same entries in a table (postgres-readiness.ts).
 */
import type { SeenRequest } from '../domain/readiness.js';
import { ByteTally, evidenceBytes } from './storage-quota.js';
import type { StorageRoom, TrimmablePart } from './storage-room.js';

/**
 * Entries kept per merchant; the oldest go first. Measured: an entry is ~400 bytes of JSON (a
 * create 409, a status read 388; ~500 as a line of the file's log) and ~420 bytes of heap (over
 * 100,000 entries): under 1 MB a merchant at the cap, on disk and in memory.
 */
export const READINESS_CAP = 2_000;

export interface ReadinessLog {
  /** Keeps what a request showed; `repeat` is its repeat key, or null. */
  add(payeeId: string, seen: SeenRequest, repeat: string | null): Promise<void>;
  /** The merchant's evidence, oldest first, at most READINESS_CAP. */
  list(payeeId: string): Promise<readonly SeenRequest[]>;
  /** Erases the merchant's evidence (a reset). */
  clear(payeeId: string): Promise<void>;
}

/**
 * The repeats of the current run: for each key, its last entry and whether that one is already
 * a repeat (then the next repeat replaces it). Bounded: a run of more keys than the cap starts over.
 */
export class RepeatRuns {
  private readonly last = new Map<string, { readonly id: number; readonly repeated: boolean }>();

  /** Notes entry `id` with key `repeat`; answers the id of the entry it replaces, or null. */
  next(id: number, repeat: string | null): number | null {
    if (repeat === null) {
      this.last.clear();
      return null;
    }
    const last = this.last.get(repeat);
    if (!last && this.last.size >= READINESS_CAP) this.last.clear();
    this.last.set(repeat, { id, repeated: last !== undefined });
    return last?.repeated ? last.id : null;
  }
}

/** What the entries `rows` (oldest first) keep, as the in-process log keeps them: repeats collapsed, then the newest READINESS_CAP. */
export function collapseRepeats<T extends { readonly repeat: string | null }>(rows: readonly T[]): T[] {
  const runs = new RepeatRuns();
  const kept = new Map<number, T>();
  rows.forEach((row, i) => {
    const replaced = runs.next(i, row.repeat);
    if (replaced !== null) kept.delete(replaced);
    kept.set(i, row);
  });
  return [...kept.values()].slice(-READINESS_CAP);
}

/** One merchant's evidence by id, oldest first (a Map keeps insertion order), and its runs. */
class MerchantEvidence {
  readonly kept = new Map<number, SeenRequest>();
  /** The stored bytes of each kept entry (storage-quota.ts), beside it. */
  private readonly sizes = new Map<number, number>();
  readonly runs = new RepeatRuns();

  constructor(
    private readonly payeeId: string,
    private readonly bytes: ByteTally,
  ) {}

  put(id: number, seen: SeenRequest, replaced: number | null): void {
    if (replaced !== null) this.remove(replaced);
    const size = evidenceBytes(seen);
    this.bytes.add(this.payeeId, size - (this.sizes.get(id) ?? 0));
    this.kept.set(id, seen);
    this.sizes.set(id, size);
    if (this.kept.size > READINESS_CAP) this.remove(this.kept.keys().next().value!);
  }

  /** Drops the oldest entry; answers its bytes. */
  dropOldest(): number {
    const oldest = this.kept.keys().next();
    if (oldest.done) return 0;
    const size = this.sizes.get(oldest.value) ?? 0;
    this.remove(oldest.value);
    return size;
  }

  private remove(id: number): void {
    const size = this.sizes.get(id);
    if (size === undefined) return;
    this.kept.delete(id);
    this.sizes.delete(id);
    this.bytes.add(this.payeeId, -size);
  }
}

/** A kept entry with its merchant and id, as a file holds it. */
export interface EvidenceRow {
  readonly payeeId: string;
  readonly id: number;
  readonly v: SeenRequest;
}

/** The evidence of one process. */
export class MemoryReadinessLog implements ReadinessLog, TrimmablePart {
  private readonly byMerchant = new Map<string, MerchantEvidence>();
  /** The stored bytes of the evidence kept, per merchant (storage quota). */
  readonly bytes = new ByteTally();
  private sequence = 0;
  private room: StorageRoom | undefined;

  keepWithin(room: StorageRoom): void {
    this.room = room;
  }

  /** The merchant's oldest entries go until `bytes` went (storage-room.ts). */
  trimOldest(payeeId: string, bytes: number): number {
    const merchant = this.byMerchant.get(payeeId);
    let freed = 0;
    while (merchant && merchant.kept.size > 0 && freed < bytes) freed += merchant.dropOldest();
    return freed;
  }

  async add(payeeId: string, seen: SeenRequest, repeat: string | null): Promise<void> {
    this.keep(payeeId, seen, repeat);
  }

  /** Keeps `seen` under the next id; answers that id and the id of the entry it replaced, if any. */
  keep(payeeId: string, seen: SeenRequest, repeat: string | null): { readonly id: number; readonly replaced: number | null } {
    const merchant = this.merchant(payeeId);
    const id = ++this.sequence;
    const replaced = merchant.runs.next(id, repeat);
    merchant.put(id, seen, replaced);
    this.room?.kept(payeeId);
    return { id, replaced };
  }

  /** Keeps an entry read back from a file, under the id it had. */
  restore(row: EvidenceRow): void {
    this.merchant(row.payeeId).put(row.id, row.v, null);
    if (row.id > this.sequence) this.sequence = row.id;
    this.room?.kept(row.payeeId);
  }

  /** Every entry, oldest first per merchant: restoring them in this order rebuilds the log. */
  *rows(): Generator<EvidenceRow> {
    for (const [payeeId, merchant] of this.byMerchant) for (const [id, v] of merchant.kept) yield { payeeId, id, v };
  }

  async list(payeeId: string): Promise<readonly SeenRequest[]> {
    return [...(this.byMerchant.get(payeeId)?.kept.values() ?? [])];
  }

  async clear(payeeId: string): Promise<void> {
    this.byMerchant.delete(payeeId);
    this.bytes.clear(payeeId);
  }

  private merchant(payeeId: string): MerchantEvidence {
    let merchant = this.byMerchant.get(payeeId);
    if (!merchant) this.byMerchant.set(payeeId, (merchant = new MerchantEvidence(payeeId, this.bytes)));
    return merchant;
  }
}
