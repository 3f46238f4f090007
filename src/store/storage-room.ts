// The storage rule (storage-quota.ts) for the in-process stores; PostgreSQL keeps the same rule in postgres-trims.ts.
import { allowance, ByteTally } from './storage-quota.js';
import type { StorageLimits, StorageUsage } from './storage-quota.js';

/** Oldest records go first, so a merchant keeps its newest. */
export interface TrimmablePart {
  trimOldest(payeeId: string, bytes: number): number;
  keepWithin(room: StorageRoom): void;
}

/** Sweeping every merchant on each record past the budget would cost each request a full pass. */
const SWEEP_SLACK = 0.02;

export class StorageRoom {
  private readonly all = new ByteTally();
  private sweptAt = 0;
  private trimming = false;

  constructor(
    private readonly payments: ByteTally,
    private readonly parts: readonly ByteTally[],
    /** The deliveries last: they may still be sent. */
    private readonly trimmable: readonly TrimmablePart[],
    /** None for a store made by a test or a tool. */
    private readonly limits?: StorageLimits,
  ) {
    for (const tally of [payments, ...parts]) tally.countInto(this.all);
    for (const part of trimmable) part.keepWithin(this);
  }

  usage(payeeId: string): StorageUsage & { readonly paymentBytes: number; readonly partsBytes: number } {
    const paymentBytes = this.payments.of(payeeId);
    let partsBytes = 0;
    for (const part of this.parts) partsBytes += part.of(payeeId);
    return { paymentBytes, partsBytes, merchantBytes: paymentBytes + partsBytes, sandboxBytes: this.all.total, holders: this.all.holders };
  }

  /** Only a merchant over its fair share gives back once the sandbox is full, never one under it. */
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
