// SPEC 16: the report's evidence is kept beyond the journal's bound; a polling run keeps only its first and last read.
import type { SeenRequest } from '../domain/readiness.js';
import { MerchantLists } from './merchant-lists.js';
import { evidenceBytes } from './storage-quota.js';
import type { LogRecord, LogSlot } from './file-records.js';

/** Measured ~400 bytes an entry on disk and in memory: under 1 MB a merchant at the cap. */
export const READINESS_CAP = 2_000;

export interface ReadinessLog {
  add(payeeId: string, seen: SeenRequest, repeat: string | null): Promise<void>;
  list(payeeId: string): Promise<readonly SeenRequest[]>;
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

export class MemoryReadinessLog implements ReadinessLog {
  private readonly runs = new Map<string, RepeatRuns>();
  readonly kept = new MerchantLists<number, SeenRequest>({ cap: READINESS_CAP, bytesOf: evidenceBytes, keyed: true });
  private sequence = 0;

  constructor(private readonly slot: LogSlot) {}

  /** A polling loop's replacing reads are not written: the next snapshot holds the newest. */
  async add(payeeId: string, seen: SeenRequest, repeat: string | null): Promise<void> {
    let runs = this.runs.get(payeeId);
    if (!runs) this.runs.set(payeeId, (runs = new RepeatRuns()));
    const id = ++this.sequence;
    const replaced = runs.next(id, repeat);
    if (replaced !== null) this.kept.remove(payeeId, replaced);
    this.kept.put(payeeId, id, seen);
    if (replaced === null) this.slot.log?.record({ t: 'seen', payeeId, id, v: seen });
  }

  restore(payeeId: string, id: number, seen: SeenRequest): void {
    this.kept.put(payeeId, id, seen);
    if (id > this.sequence) this.sequence = id;
  }

  /** Oldest first: restoring them in this order rebuilds the log. */
  *records(): Generator<LogRecord> {
    for (const payeeId of this.kept.merchants()) for (const [id, v] of this.kept.oldestFirst(payeeId)) yield { t: 'seen', payeeId, id, v };
  }

  async list(payeeId: string): Promise<readonly SeenRequest[]> {
    return [...this.kept.oldestFirst(payeeId)].map(([, v]) => v);
  }

  erase(payeeId: string): void {
    this.runs.delete(payeeId);
    this.kept.clear(payeeId);
  }
}
