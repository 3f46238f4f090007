/**
 * The in-memory store of tests and in-process use: the index itself (which answers every read),
 * the journal, the deliveries, the idempotency keys and the readiness evidence, with writes that
 * change memory and nothing else.
 */
import { afterReset } from '../domain/merchant.js';
import type { Merchant } from '../domain/merchant.js';
import type { Payment } from '../domain/payment.js';
import { MemoryDeliveryLog } from './delivery-log.js';
import type { Delivery } from './delivery-log.js';
import { MemoryIdempotencyKeys } from './idempotency-keys.js';
import { MemoryJournalLog } from './journal-log.js';
import { MemoryIndex, MerchantQueues } from './memory-index.js';
import { MemoryRateWindows } from './rate-windows.js';
import { MemoryReadinessLog } from './readiness-log.js';
import type { InsertResult, MerchantChange, MerchantErasure, Store } from './store.js';
import { clearMerchantParts, countMerchantParts } from './store.js';
import { recordBytes, storageRefusal } from './storage-quota.js';
import { StorageRoom } from './storage-room.js';
import type { StorageLimits, StorageUsage } from './storage-quota.js';

export class MemoryStore extends MemoryIndex implements Store {
  readonly kind = 'memory' as const;
  /** Nothing is written, so no change is ever undone. */
  readonly versionsFinal = true;
  readonly journal = new MemoryJournalLog();
  readonly rateWindows = new MemoryRateWindows();
  readonly deliveries = new MemoryDeliveryLog();
  readonly idempotency = new MemoryIdempotencyKeys();
  readonly readiness = new MemoryReadinessLog();
  private readonly queues = new MerchantQueues();
  private shut = false;
  /** The storage rule kept across payments and parts; without limits nothing is trimmed by bytes. */
  private readonly room: StorageRoom;

  constructor(limits?: StorageLimits) {
    super();
    this.room = new StorageRoom(this.paymentBytes, [this.journal.bytes, this.deliveries.bytes, this.idempotency.bytes, this.readiness.bytes], [this.journal, this.readiness, this.deliveries], limits);
  }

  async open(): Promise<void> {}
  async close(): Promise<void> {
    this.shut = true;
  }

  async ready(): Promise<void> {
    if (this.shut) throw new Error('the memory store is closed');
  }

  async saveMerchant(merchant: Merchant): Promise<void> {
    this.applyMerchant(merchant);
  }

  updateMerchant<T>(payeeId: string, change: MerchantChange<T>): Promise<{ readonly result: T } | undefined> {
    return this.queues.run(payeeId, () => this.merchant(payeeId), change, (m) => this.saveMerchant(m));
  }

  async insertPayment(payment: Payment, outbox: readonly Delivery[] = [], limits?: StorageLimits): Promise<InsertResult> {
    const conflict = this.insertConflict(payment);
    if (conflict) return conflict;
    const bytes = recordBytes(payment);
    const refused = limits && storageRefusal(this.usage(payment.payeeId), bytes, limits);
    if (refused) return refused;
    this.applyPayment(payment, bytes);
    this.deliveries.add(outbox);
    this.room.kept(payment.payeeId);
    return 'inserted';
  }

  async updatePayment(payment: Payment, expectedVersion: number, outbox: readonly Delivery[] = []): Promise<boolean> {
    if (!this.replaceable(payment, expectedVersion)) return false;
    this.applyPayment(payment);
    this.deliveries.add(outbox);
    return true;
  }

  async storageUsage(payeeId: string): Promise<StorageUsage> {
    return this.usage(payeeId);
  }

  private usage(payeeId: string) {
    return this.room.usage(payeeId);
  }

  async resetMerchant(payeeId: string): Promise<number> {
    const erased = this.applyReset(payeeId);
    await clearMerchantParts(this, payeeId);
    await this.updateMerchant(payeeId, (m) => [afterReset(m), null] as const);
    return erased;
  }

  async prunePayments(payeeId: string, createdBefore: number): Promise<number> {
    return this.applyPrune(payeeId, createdBefore);
  }

  /** What a reset erases, then the merchant itself, with anything a request in flight added in between. */
  async deleteMerchant(payeeId: string): Promise<MerchantErasure | undefined> {
    if (!(await this.merchant(payeeId))) return undefined;
    const counted = await countMerchantParts(this, payeeId);
    const reset = await this.resetMerchant(payeeId);
    const late = await this.queues.exclusive(payeeId, async () => {
      const erased = this.applyMerchantDelete(payeeId);
      await clearMerchantParts(this, payeeId);
      return erased;
    });
    return { payments: reset + late, ...counted };
  }

  /** Memory is the store: nothing is ever waiting to be written. */
  pendingWrites(): Promise<void> | undefined {
    return undefined;
  }

  pendingWriteOf(): Promise<void> | undefined {
    return undefined;
  }
}
