/**
 * When each live payment of a merchant next falls due, so the scheduler (every second) and
 * the list route touch only the payments due now instead of every live payment: with 100,000
 * live payments a full pass costs ~85 ms of blocked event loop.
 *
 * Entries are hints: the in-process store notes every payment it holds, and a hint that a later
 * change made stale is dropped when it comes up. A merchant's index is built from its live
 * payments on first use (and again after a reset); the store sees every change, so no later
 * pass is needed. A shared store answers the same question with a query instead.
 */
import type { Payment } from '../domain/payment.js';
import { nextDueAt } from '../domain/transitions.js';

/**
 * A binary min-heap of (when, payment id), kept as two parallel arrays: times in a Float64Array
 * and ids in a plain array, instead of one {at, id} object per entry (with its boxed number):
 * ~16 bytes an entry instead of ~64, for up to one entry per live payment.
 */
class DueHeap {
  private ats = new Float64Array(16);
  private ids: (string | undefined)[] = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  push(at: number, id: string): void {
    if (this.count === this.ats.length) this.resize(this.ats.length * 2);
    const ats = this.ats;
    const ids = this.ids;
    let i = this.count++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (ats[parent]! <= at) break;
      ats[i] = ats[parent]!;
      ids[i] = ids[parent];
      i = parent;
    }
    ats[i] = at;
    ids[i] = id;
  }

  /** Removes and answers the id of the earliest entry when it is due by `now`. */
  popDue(now: number): string | undefined {
    if (this.count === 0 || this.ats[0]! > now) return undefined;
    const ats = this.ats;
    const ids = this.ids;
    const top = ids[0];
    const n = --this.count;
    const lastAt = ats[n]!;
    const lastId = ids[n];
    ids[n] = undefined;
    if (n > 0) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= n) break;
        const right = left + 1;
        const child = right < n && ats[right]! < ats[left]! ? right : left;
        if (ats[child]! >= lastAt) break;
        ats[i] = ats[child]!;
        ids[i] = ids[child];
        i = child;
      }
      ats[i] = lastAt;
      ids[i] = lastId;
    }
    // Give memory back once the heap has drained to a quarter of its room.
    if (this.ats.length > 64 && n < this.ats.length / 4) this.resize(this.ats.length / 2);
    return top;
  }

  private resize(capacity: number): void {
    const ats = new Float64Array(capacity);
    ats.set(this.ats.subarray(0, this.count));
    this.ats = ats;
    this.ids.length = this.count;
  }
}

/**
 * Times are those of `nextDueAt(p, true)`: with auto-settlement off, a paid payment comes up at
 * its cut-off anyway, and the caller, which knows the merchant's setting, finds nothing to do.
 */
export class DueIndex {
  private readonly heaps = new Map<string, DueHeap>();

  /** True when the merchant's index must be built from its live payments first. */
  needsRebuild(payeeId: string): boolean {
    return !this.heaps.has(payeeId);
  }

  rebuild(payeeId: string, live: readonly Payment[]): void {
    const heap = new DueHeap();
    for (const p of live) {
      const at = nextDueAt(p, true);
      if (at !== null) heap.push(at, p.id);
    }
    this.heaps.set(payeeId, heap);
  }

  /** Records when a stored payment next falls due (nothing when it never will by itself). */
  note(payment: Payment): void {
    const heap = this.heaps.get(payment.payeeId);
    if (!heap) return; // built from the store on first use
    const at = nextDueAt(payment, true);
    if (at !== null) heap.push(at, payment.id);
  }

  /** Drops the merchant's index (its payments were erased); the next use builds it again. */
  drop(payeeId: string): void {
    this.heaps.delete(payeeId);
  }

  /** Removes and answers the ids of payments noted as due by `now` (sandbox time), each once. */
  takeDue(payeeId: string, now: number): string[] {
    const heap = this.heaps.get(payeeId);
    const ids = new Set<string>();
    if (!heap) return [];
    for (let id = heap.popDue(now); id !== undefined; id = heap.popDue(now)) ids.add(id);
    return [...ids];
  }
}
