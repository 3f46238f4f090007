// The file store is this store with each change written first (to the log it names in `slot`), so both answer every read the same way.
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
import { deliveryRecords } from './file-records.js';
import type { LogSlot } from './file-records.js';
import type { InsertResult, MerchantChange, MerchantErasure, Store } from './store.js';
import { recordBytes, storageRefusal } from './storage-quota.js';
import { StorageRoom } from './storage-room.js';
import type { StorageLimits, StorageUsage } from './storage-quota.js';

export class MemoryStore extends MemoryIndex implements Store {
  readonly kind: Store['kind'] = 'memory';
  /** A durable store names its log here: each change is written there before it is made, so a throw leaves memory unchanged. */
  protected readonly slot: LogSlot = {};
  readonly journal = new MemoryJournalLog(this.slot);
  readonly rateWindows = new MemoryRateWindows();
  readonly deliveries = new MemoryDeliveryLog(this.slot);
  readonly idempotency = new MemoryIdempotencyKeys(this.slot);
  readonly readiness = new MemoryReadinessLog(this.slot);
  protected readonly queues = new MerchantQueues();
  private shut = false;
  private readonly room: StorageRoom;

  constructor(limits?: StorageLimits) {
    super();
    const [journal, readiness, deliveries] = [this.journal.entries, this.readiness.kept, this.deliveries.kept];
    this.room = new StorageRoom(this.paymentBytes, [journal.bytes, deliveries.bytes, this.idempotency.kept.bytes, readiness.bytes], [journal, readiness, deliveries], limits);
  }

  async open(): Promise<void> {}
  async close(): Promise<void> {
    this.shut = true;
  }

  async ready(): Promise<void> {
    if (this.shut) throw new Error('the memory store is closed');
  }

  async saveMerchant(merchant: Merchant): Promise<void> {
    this.slot.log?.write({ t: 'merchant', v: merchant });
    this.applyMerchant(merchant);
  }

  updateMerchant<T>(payeeId: string, change: MerchantChange<T>): Promise<{ readonly result: T } | undefined> {
    return this.queues.exclusive(payeeId, async () => {
      const current = await this.merchant(payeeId);
      if (!current) return undefined;
      const [next, result] = change(current);
      if (next) await this.saveMerchant(next);
      return { result };
    });
  }

  async insertPayment(payment: Payment, outbox: readonly Delivery[] = [], limits?: StorageLimits): Promise<InsertResult> {
    const conflict = this.insertConflict(payment);
    if (conflict) return conflict;
    const bytes = recordBytes(payment);
    const refused = limits && storageRefusal(this.room.usage(payment.payeeId), bytes, limits);
    if (refused) return refused;
    this.writePayment(payment, outbox, bytes);
    this.room.kept(payment.payeeId);
    return 'inserted';
  }

  async updatePayment(payment: Payment, expectedVersion: number, outbox: readonly Delivery[] = []): Promise<boolean> {
    if (!this.replaceable(payment, expectedVersion)) return false;
    this.writePayment(payment, outbox);
    return true;
  }

  /** One write for the change and its deliveries: both or neither. */
  private writePayment(payment: Payment, outbox: readonly Delivery[], bytes?: number): void {
    this.slot.log?.write({ t: 'payment', v: payment }, ...deliveryRecords(outbox));
    this.applyPayment(payment, bytes);
    for (const d of outbox) this.deliveries.put(d);
  }

  async storageUsage(payeeId: string): Promise<StorageUsage> {
    return this.room.usage(payeeId);
  }

  /** One write with the merchant's clock set back, so a failed write leaves nothing half made. */
  resetMerchant(payeeId: string): Promise<number> {
    return this.queues.exclusive(payeeId, async () => {
      const current = await this.merchant(payeeId);
      const fresh = current ? afterReset(current) : null;
      this.slot.log?.write({ t: 'reset', payeeId }, ...(fresh ? [{ t: 'merchant', v: fresh } as const] : []));
      const erased = this.applyReset(payeeId);
      this.clearParts(payeeId);
      if (fresh) this.applyMerchant(fresh);
      return erased;
    });
  }

  async prunePayments(payeeId: string, createdBefore: number): Promise<number> {
    this.slot.log?.write({ t: 'prune', payeeId, createdBefore });
    return this.applyPrune(payeeId, createdBefore);
  }

  /** One line erases it all, now and on replay, so a failed write leaves nothing half made. */
  deleteMerchant(payeeId: string): Promise<MerchantErasure | undefined> {
    return this.queues.exclusive(payeeId, async () => {
      if (!(await this.merchant(payeeId))) return undefined;
      this.slot.log?.write({ t: 'merchant-delete', payeeId });
      const payments = this.applyMerchantDelete(payeeId);
      return { payments, ...this.clearParts(payeeId) };
    });
  }

  /** Memory only (the reset's or deletion's one line clears them on replay, so no second write can fail after memory changed), and in one turn, as a replay needs. */
  protected clearParts(payeeId: string): Omit<MerchantErasure, 'payments'> {
    const erased = { journalEntries: this.journal.erase(payeeId), deliveries: this.deliveries.erase(payeeId) };
    this.idempotency.erase(payeeId);
    this.readiness.erase(payeeId);
    return erased;
  }
}
