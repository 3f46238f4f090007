/**
 * The storage rule (storage-quota.ts) kept by the in-process stores (memory, and file in front
 * of its files): one count across every tally of the store, and the trims by bytes. After a
 * record of a merchant is kept, its journal, evidence and deliveries keep their newest within its
 * allowance; and while the sandbox holds more than its budget, merchants over their fair share
 * give back the same way. The PostgreSQL store follows the same rule in its trims (postgres-trims.ts).
 */
import { allowance, ByteTally } from './storage-quota.js';
import type { StorageLimits, StorageUsage } from './storage-quota.js';

/** A part that can give bytes back, oldest records first: the journal, the evidence, the deliveries. */
export interface TrimmablePart {
  /** Drops the merchant's oldest records until at least `bytes` went or none is left; answers the bytes that went. */
  trimOldest(payeeId: string, bytes: number): number;
  /** Tells the part whom to tell after it keeps a record of a merchant. */
  keepWithin(room: StorageRoom): void;
}

/** How far past the budget the sandbox may go before merchants over their share are swept again (a share of the budget). */
const SWEEP_SLACK = 0.02;

export class StorageRoom {
  /** Every record of the store, per merchant: payments and parts together. */
  private readonly all = new ByteTally();
  /** The sandbox's total at the last sweep: the next waits until it grew by the slack. */
  private sweptAt = 0;
  private trimming = false;

  constructor(
    private readonly payments: ByteTally,
    private readonly parts: readonly ByteTally[],
    /** Trimmed in this order: the journal first, the deliveries last (they may still be sent). */
    private readonly trimmable: readonly TrimmablePart[],
    /** Without limits (a store made by a test or a tool), nothing is trimmed by bytes. */
    private readonly limits?: StorageLimits,
  ) {
    for (const tally of [payments, ...parts]) tally.countInto(this.all);
    for (const part of trimmable) part.keepWithin(this);
  }

  /** The merchant's usage (its payments and its parts apart), the sandbox's, and how many merchants hold any. */
  usage(payeeId: string): StorageUsage & { readonly paymentBytes: number; readonly partsBytes: number } {
    const paymentBytes = this.payments.of(payeeId);
    let partsBytes = 0;
    for (const part of this.parts) partsBytes += part.of(payeeId);
    return { paymentBytes, partsBytes, merchantBytes: paymentBytes + partsBytes, sandboxBytes: this.all.total, holders: this.all.holders };
  }

  /** A record of the merchant was kept: it keeps its newest within its allowance, and the sandbox within its budget. */
  kept(payeeId: string): void {
    const limits = this.limits;
    if (!limits || this.trimming) return;
    this.trimming = true;
    try {
      this.trim(payeeId, limits);
      if (this.all.total <= limits.sandboxBytes) this.sweptAt = 0;
      else if (this.all.total > this.sweptAt + limits.sandboxBytes * SWEEP_SLACK) this.sweep(limits);
    } finally {
      this.trimming = false;
    }
  }

  /** Every merchant over its allowance gives back: the space a full sandbox takes from those over their fair share. */
  private sweep(limits: StorageLimits): void {
    for (const [payeeId] of [...this.all.entries()]) this.trim(payeeId, limits);
    this.sweptAt = this.all.total;
  }

  private trim(payeeId: string, limits: StorageLimits): void {
    let over = this.all.of(payeeId) - allowance(this.usage(payeeId), limits);
    for (const part of this.trimmable) {
      if (over <= 0) return;
      over -= part.trimOldest(payeeId, over);
    }
  }
}
