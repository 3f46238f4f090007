/** The in-memory store: the indexes every store keeps, and the store of tests and in-process use. */
import { afterReset } from '../domain/merchant.js';
import type { Merchant } from '../domain/merchant.js';
import { isLive, isOpen } from '../domain/payment.js';
import { nextDueAt } from '../domain/transitions.js';
import type { Payment } from '../domain/payment.js';
import { MemoryDeliveryLog } from './delivery-log.js';
import type { Delivery } from './delivery-log.js';
import { DueIndex } from './due-index.js';
import { MemoryJournalLog } from './journal-log.js';
import { MemoryRateWindows } from './rate-windows.js';
import type { InsertResult, MerchantChange, PaymentPage, PaymentQuery, Store } from './store.js';

export class MemoryStore implements Store {
  readonly kind: 'memory' | 'file' | 'postgres' = 'memory';
  readonly journal = new MemoryJournalLog();
  readonly rateWindows = new MemoryRateWindows();
  readonly deliveries = new MemoryDeliveryLog();
  protected readonly merchants = new Map<string, Merchant>();
  private readonly merchantKeys = new Map<string, string>();
  protected readonly payments = new Map<string, Payment>();
  /** Per merchant, payment ids in creation order. */
  private readonly paymentOrder = new Map<string, string[]>();
  /** Per merchant, merchant_ref_no to payment id (nested: no key string is built per payment). */
  private readonly refs = new Map<string, Map<string, string>>();
  private readonly tokens = new Map<string, string>();
  private readonly codes = new Set<string>();
  private readonly live = new Map<string, Set<string>>();
  private readonly due = new DueIndex();
  /** Per merchant, the tail of its queue of changes: changes to one merchant never interleave. */
  private readonly merchantQueues = new Map<string, Promise<unknown>>();

  private shut = false;

  async open(): Promise<void> {}
  async close(): Promise<void> {
    this.shut = true;
  }

  async ready(): Promise<void> {
    if (this.shut) throw new Error(`the ${this.kind} store is closed`);
  }

  async merchantByKey(apiKey: string): Promise<Merchant | undefined> {
    const id = this.merchantKeys.get(apiKey);
    return id === undefined ? undefined : this.merchants.get(id);
  }

  async merchant(payeeId: string): Promise<Merchant | undefined> {
    return this.merchants.get(payeeId);
  }

  async merchantIds(): Promise<readonly string[]> {
    return [...this.merchants.keys()];
  }

  async saveMerchant(merchant: Merchant): Promise<void> {
    this.applyMerchant(merchant);
  }

  updateMerchant<T>(payeeId: string, change: MerchantChange<T>): Promise<{ readonly result: T } | undefined> {
    const run = (this.merchantQueues.get(payeeId) ?? Promise.resolve()).then(async () => {
      const current = this.merchants.get(payeeId);
      if (!current) return undefined;
      const [next, result] = change(current);
      if (next) await this.saveMerchant(next);
      return { result };
    });
    const tail = run.catch(() => undefined);
    this.merchantQueues.set(payeeId, tail);
    void tail.then(() => {
      if (this.merchantQueues.get(payeeId) === tail) this.merchantQueues.delete(payeeId);
    });
    return run;
  }

  async countDue(payeeId: string, now: number, autoSettle: boolean): Promise<number> {
    let due = 0;
    for (const id of this.live.get(payeeId) ?? []) {
      const at = nextDueAt(this.payments.get(id)!, autoSettle);
      if (at !== null && at <= now) due++;
    }
    return due;
  }

  /** Every merchant: each one's index answers cheaply when nothing is due. */
  merchantsWithDueWork(_realNow: number): Promise<readonly string[]> {
    return this.merchantIds();
  }

  /** Takes the hints due by `now` from the merchant's index: each comes up once per note. */
  async dueIds(payeeId: string, now: number, autoSettle: boolean): Promise<readonly string[]> {
    if (this.due.needsRebuild(payeeId)) this.due.rebuild(payeeId, await this.livePayments(payeeId));
    const ids = this.due.takeDue(payeeId, now);
    // The index notes cut-offs of paid payments too; without auto-settlement they are no work.
    return autoSettle ? ids : ids.filter((id) => { const p = this.payments.get(id); return p !== undefined && isOpen(p); });
  }

  async payment(payeeId: string, paymentId: string): Promise<Payment | undefined> {
    const p = this.payments.get(paymentId);
    return p && p.payeeId === payeeId ? p : undefined;
  }

  async paymentByRef(payeeId: string, merchantRefNo: string): Promise<Payment | undefined> {
    const id = this.refs.get(payeeId)?.get(merchantRefNo);
    return id === undefined ? undefined : this.payments.get(id);
  }

  async paymentByToken(token: string): Promise<Payment | undefined> {
    const id = this.tokens.get(token);
    return id === undefined ? undefined : this.payments.get(id);
  }

  async insertPayment(payment: Payment, outbox: readonly Delivery[] = []): Promise<InsertResult> {
    if (this.refs.get(payment.payeeId)?.has(payment.merchantRefNo)) return 'duplicate_ref';
    if (this.codes.has(payment.code) || this.payments.has(payment.id) || this.tokens.has(payment.token)) return 'duplicate_code';
    const written = this.persistPayment(payment, undefined);
    this.applyPayment(payment);
    if (written) await written;
    // Only once the change is written: a change undone by a failed write sends nothing.
    this.deliveries.add(outbox);
    return 'inserted';
  }

  async updatePayment(payment: Payment, expectedVersion: number, outbox: readonly Delivery[] = []): Promise<boolean> {
    const current = this.payments.get(payment.id);
    if (!current || current.version !== expectedVersion || current.payeeId !== payment.payeeId) return false;
    const written = this.persistPayment(payment, current);
    this.applyPayment(payment);
    if (written) await written;
    this.deliveries.add(outbox);
    return true;
  }

  async listPayments(payeeId: string, query: PaymentQuery): Promise<PaymentPage> {
    const order = this.paymentOrder.get(payeeId) ?? [];
    const items: Payment[] = [];
    let total = 0;
    for (let i = order.length - 1; i >= 0; i--) {
      const p = this.payments.get(order[i]!)!;
      if (query.status !== undefined && p.status !== query.status) continue;
      if (query.merchantRefNo !== undefined && p.merchantRefNo !== query.merchantRefNo) continue;
      if (total >= query.offset && items.length < query.limit) items.push(p);
      total++;
    }
    return { items, total };
  }

  async belowPaymentCap(payeeId: string, cap: number): Promise<boolean> {
    return (this.paymentOrder.get(payeeId)?.length ?? 0) < cap;
  }

  async countPayments(payeeId: string): Promise<number> {
    return this.paymentOrder.get(payeeId)?.length ?? 0;
  }

  async livePayments(payeeId: string): Promise<readonly Payment[]> {
    const ids = this.live.get(payeeId);
    if (!ids) return [];
    return [...ids].map((id) => this.payments.get(id)!);
  }

  async resetMerchant(payeeId: string): Promise<number> {
    const erased = this.paymentOrder.get(payeeId)?.length ?? 0;
    this.persistReset(payeeId);
    this.applyReset(payeeId);
    await this.journal.clear(payeeId);
    await this.deliveries.clear(payeeId);
    await this.updateMerchant(payeeId, (m) => [afterReset(m), null] as const);
    return erased;
  }

  async prunePayments(payeeId: string, createdBefore: number): Promise<number> {
    this.persistPrune(payeeId, createdBefore);
    return this.applyPrune(payeeId, createdBefore);
  }

  /** Memory is the store: nothing is ever waiting to be written. */
  pendingWrites(): Promise<void> | undefined {
    return undefined;
  }

  /**
   * Hooks for a durable store, called before memory changes; they may throw to refuse the
   * change. `persistPayment` may instead answer a promise: memory changes at once, the caller
   * waits for it, and if it rejects the store has already undone the change (`unapplyPayment`).
   */
  protected persistPayment(_payment: Payment, _previous: Payment | undefined): Promise<void> | void {}
  protected persistReset(_payeeId: string): void {}
  protected persistPrune(_payeeId: string, _createdBefore: number): void {}

  protected applyMerchant(merchant: Merchant): void {
    const previous = this.merchants.get(merchant.payeeId);
    for (const key of previous?.apiKeys ?? []) this.merchantKeys.delete(key);
    this.merchants.set(merchant.payeeId, merchant);
    for (const key of merchant.apiKeys) this.merchantKeys.set(key, merchant.payeeId);
  }

  protected applyPayment(payment: Payment): void {
    if (!this.payments.has(payment.id)) {
      let order = this.paymentOrder.get(payment.payeeId);
      if (!order) this.paymentOrder.set(payment.payeeId, (order = []));
      order.push(payment.id);
      let refs = this.refs.get(payment.payeeId);
      if (!refs) this.refs.set(payment.payeeId, (refs = new Map()));
      refs.set(payment.merchantRefNo, payment.id);
      this.tokens.set(payment.token, payment.id);
      this.codes.add(payment.code);
    }
    this.payments.set(payment.id, payment);
    let live = this.live.get(payment.payeeId);
    if (!live) this.live.set(payment.payeeId, (live = new Set()));
    if (isLive(payment)) live.add(payment.id);
    else live.delete(payment.id);
    this.due.note(payment);
  }

  /** Undoes `applyPayment(payment)` when `previous` was stored before it (undefined: it was new). */
  protected unapplyPayment(payment: Payment, previous: Payment | undefined): void {
    if (previous) {
      this.applyPayment(previous);
      return;
    }
    this.forget(payment);
    const order = this.paymentOrder.get(payment.payeeId);
    const at = order ? order.lastIndexOf(payment.id) : -1;
    if (at >= 0) order!.splice(at, 1);
    this.live.get(payment.payeeId)?.delete(payment.id);
  }

  protected applyReset(payeeId: string): void {
    for (const id of this.paymentOrder.get(payeeId) ?? []) this.forget(this.payments.get(id)!);
    this.paymentOrder.delete(payeeId);
    this.refs.delete(payeeId);
    this.live.delete(payeeId);
    this.due.drop(payeeId);
  }

  /** Deterministic on a given state, so replaying the log prunes exactly what was pruned. */
  protected applyPrune(payeeId: string, createdBefore: number): number {
    const order = this.paymentOrder.get(payeeId);
    if (!order) return 0;
    let pruned = 0;
    const kept = order.filter((id) => {
      const p = this.payments.get(id)!;
      if (p.createdAt >= createdBefore || isLive(p)) return true;
      this.forget(p);
      pruned++;
      return false;
    });
    this.paymentOrder.set(payeeId, kept);
    return pruned;
  }

  private forget(p: Payment): void {
    this.refs.get(p.payeeId)?.delete(p.merchantRefNo);
    this.tokens.delete(p.token);
    this.codes.delete(p.code);
    this.payments.delete(p.id);
  }
}
