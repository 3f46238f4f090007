// SPEC 16: the report's evidence is kept beyond the journal's bound; a polling run keeps only its first and last read.
import type { SeenRequest } from '../domain/readiness.js';
import { ByteTally, evidenceBytes } from './storage-quota.js';
import type { StorageRoom, TrimmablePart } from './storage-room.js';
import type { LogLines, LogRecord } from './file-records.js';

/** Measured ~400 bytes an entry on disk and in memory: under 1 MB a merchant at the cap. */
export const READINESS_CAP = 2_000;

export interface ReadinessLog {
  add(payeeId: string, seen: SeenRequest, repeat: string | null): Promise<void>;
  list(payeeId: string): Promise<readonly SeenRequest[]>;
  clear(payeeId: string): Promise<void>;
}

/** Bounded: a run of more keys than the cap starts over. */
class RepeatRuns {
  private readonly last = new Map<string, { readonly id: number; readonly repeated: boolean }>();

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

/** As the in-process log keeps them, so every store keeps the same evidence. */
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

/** A Map keeps insertion order, so the oldest go first. */
class MerchantEvidence {
  readonly kept = new Map<number, SeenRequest>();
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

interface EvidenceRow {
  readonly payeeId: string;
  readonly id: number;
  readonly v: SeenRequest;
}

export class MemoryReadinessLog implements ReadinessLog, TrimmablePart {
  private readonly byMerchant = new Map<string, MerchantEvidence>();
  readonly bytes = new ByteTally();
  private sequence = 0;
  private room: StorageRoom | undefined;

  constructor(private readonly log?: LogLines) {}

  keepWithin(room: StorageRoom): void {
    this.room = room;
  }

  trimOldest(payeeId: string, bytes: number): number {
    const merchant = this.byMerchant.get(payeeId);
    let freed = 0;
    while (merchant && merchant.kept.size > 0 && freed < bytes) freed += merchant.dropOldest();
    return freed;
  }

  /** A polling loop's replacing reads are not written: the next snapshot holds the newest. */
  async add(payeeId: string, seen: SeenRequest, repeat: string | null): Promise<void> {
    const merchant = this.merchant(payeeId);
    const id = ++this.sequence;
    const replaced = merchant.runs.next(id, repeat);
    merchant.put(id, seen, replaced);
    this.room?.kept(payeeId);
    if (replaced === null) this.log?.record({ t: 'seen', payeeId, id, v: seen });
  }

  restore(row: EvidenceRow): void {
    this.merchant(row.payeeId).put(row.id, row.v, null);
    if (row.id > this.sequence) this.sequence = row.id;
    this.room?.kept(row.payeeId);
  }

  /** Oldest first: restoring them in this order rebuilds the log. */
  *records(): Generator<LogRecord> {
    for (const [payeeId, merchant] of this.byMerchant) for (const [id, v] of merchant.kept) yield { t: 'seen', payeeId, id, v };
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
