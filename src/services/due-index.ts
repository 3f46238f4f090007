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

interface Entry {
  readonly at: number;
  readonly id: string;
}

/** A binary min-heap on `at`. */
class DueHeap {
  private readonly items: Entry[] = [];

  get size(): number {
    return this.items.length;
  }

  push(entry: Entry): void {
    const items = this.items;
    let i = items.push(entry) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (items[parent]!.at <= entry.at) break;
      items[i] = items[parent]!;
      i = parent;
    }
    items[i] = entry;
  }

  /** Removes and answers the earliest entry when it is due by `now`. */
  popDue(now: number): Entry | undefined {
    const items = this.items;
    const top = items[0];
    if (top === undefined || top.at > now) return undefined;
    const last = items.pop()!;
    if (items.length > 0) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= items.length) break;
        const right = left + 1;
        const child = right < items.length && items[right]!.at < items[left]!.at ? right : left;
        if (items[child]!.at >= last.at) break;
        items[i] = items[child]!;
        i = child;
      }
      items[i] = last;
    }
    return top;
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
      if (at !== null) heap.push({ at, id: p.id });
    }
    this.heaps.set(payeeId, { heap, builtAt: this.realNow() });
  }

  /** Records when a stored payment next falls due (nothing when it never will by itself). */
  note(payment: Payment, autoSettle: boolean): void {
    const state = this.heaps.get(payment.payeeId);
    if (!state) return; // built from the store on first use
    const at = nextDueAt(payment, autoSettle);
    if (at !== null) state.heap.push({ at, id: payment.id });
  }

  /** Removes and answers the ids of payments noted as due by `now` (sandbox time), each once. */
  takeDue(payeeId: string, now: number): string[] {
    const heap = this.heaps.get(payeeId)?.heap;
    const ids = new Set<string>();
    if (!heap) return [];
    for (let entry = heap.popDue(now); entry; entry = heap.popDue(now)) ids.add(entry.id);
    return [...ids];
  }

  forget(payeeId: string): void {
    this.heaps.delete(payeeId);
  }
}
