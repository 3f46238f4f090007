/**
 * When each live payment of a merchant next falls due, so the scheduler (every second) and
 * the list route touch only the payments due now instead of every live payment: with 100,000
 * live payments a full pass costs ~85 ms of blocked event loop.
 *
 * Entries are hints: the payment service notes every payment it stores, and a hint that a later
 * change made stale is dropped when it comes up. A full pass over the store's live payments
 * rebuilds a merchant's index on first use and then every few minutes, so a change the service
 * did not see (another instance on a shared store) is still found.
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

/** Real time between full passes that rebuild a merchant's index. */
export const DUE_INDEX_REBUILD_MS = 5 * 60_000;

export class DueIndex {
  private readonly heaps = new Map<string, { heap: DueHeap; builtAt: number }>();

  constructor(private readonly realNow: () => number = Date.now) {}

  /** True when the merchant's index must be (re)built from a full pass first. */
  needsRebuild(payeeId: string): boolean {
    const state = this.heaps.get(payeeId);
    return state === undefined || this.realNow() - state.builtAt >= DUE_INDEX_REBUILD_MS;
  }

  rebuild(payeeId: string, live: readonly Payment[], autoSettle: boolean): void {
    const heap = new DueHeap();
    for (const p of live) {
      const at = nextDueAt(p, autoSettle);
      if (at !== null) heap.push(at, p.id);
    }
    this.heaps.set(payeeId, { heap, builtAt: this.realNow() });
  }

  /** Records when a stored payment next falls due (nothing when it never will by itself). */
  note(payment: Payment, autoSettle: boolean): void {
    const state = this.heaps.get(payment.payeeId);
    if (!state) return; // built from the store on first use
    const at = nextDueAt(payment, autoSettle);
    if (at !== null) state.heap.push(at, payment.id);
  }

  /** Removes and answers the ids of payments noted as due by `now` (sandbox time), each once. */
  takeDue(payeeId: string, now: number): string[] {
    const heap = this.heaps.get(payeeId)?.heap;
    const ids = new Set<string>();
    if (!heap) return [];
    for (let id = heap.popDue(now); id !== undefined; id = heap.popDue(now)) ids.add(id);
    return [...ids];
  }
}
