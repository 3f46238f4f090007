// A full pass over 100,000 live payments blocks the event loop ~85 ms; entries are hints, stale ones dropped when they come up.
import type { Payment } from '../domain/payment.js';
import { nextDueAt } from '../domain/transitions.js';

/** Two parallel arrays instead of an object per entry: ~16 bytes an entry instead of ~64. */
class DueHeap {
  private ats = new Float64Array(16);
  private ids: (string | undefined)[] = [];
  private count = 0;

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

/** Noted as if auto-settling: only the caller knows the merchant's setting. */
export class DueIndex {
  private readonly heaps = new Map<string, DueHeap>();

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

  note(payment: Payment): void {
    const heap = this.heaps.get(payment.payeeId);
    if (!heap) return;
    const at = nextDueAt(payment, true);
    if (at !== null) heap.push(at, payment.id);
  }

  drop(payeeId: string): void {
    this.heaps.delete(payeeId);
  }

  /** Each id once, though a payment may have been noted several times. */
  takeDue(payeeId: string, now: number): string[] {
    const heap = this.heaps.get(payeeId);
    const ids = new Set<string>();
    if (!heap) return [];
    for (let id = heap.popDue(now); id !== undefined; id = heap.popDue(now)) ids.add(id);
    return [...ids];
  }
}
