// Answers every read and applies changes it is told of; it never writes anywhere and never decides whether a change may be made.
import { apiKeyHash } from '../domain/ids.js';
import type { Merchant } from '../domain/merchant.js';
import { isLive, isOpen, withMetadataText } from '../domain/payment.js';
import { matchesSearch } from '../domain/payment-search.js';
import type { Payment } from '../domain/payment.js';
import { nextDueAt } from '../domain/transitions.js';
import { DueIndex } from './due-index.js';
import { ByteTally, recordBytes } from './storage-quota.js';
import type { InsertResult, KeyedPayment, PaymentPage, PaymentQuery } from './store.js';

export class MemoryIndex {
  private readonly merchants = new Map<string, Merchant>();
  /** By SHA-256: the keys themselves are never held. */
  private readonly merchantKeys = new Map<string, string>();
  private readonly payments = new Map<string, Payment>();
  private readonly paymentOrder = new Map<string, string[]>();
  /** Nested, so no key string is built per payment. */
  private readonly refs = new Map<string, Map<string, string>>();
  private readonly tokens = new Map<string, string>();
  private readonly codes = new Set<string>();
  private readonly live = new Map<string, Set<string>>();
  private readonly due = new DueIndex();
  readonly paymentBytes = new ByteTally();

  /** Safe to hold while changes go on: a change stores a new record, never edits one. */
  allMerchants(): Merchant[] {
    return [...this.merchants.values()];
  }

  allPayments(): Payment[] {
    return [...this.payments.values()];
  }

  async merchantByKey(apiKey: string): Promise<Merchant | undefined> {
    const id = this.merchantKeys.get(apiKeyHash(apiKey));
    return id === undefined ? undefined : this.merchants.get(id);
  }

  async keyedPayment(apiKey: string, paymentId: string): Promise<KeyedPayment | undefined> {
    const id = this.merchantKeys.get(apiKeyHash(apiKey));
    const merchant = id === undefined ? undefined : this.merchants.get(id);
    const p = this.payments.get(paymentId);
    return merchant && { merchant, payment: p?.payeeId === id ? p : undefined };
  }

  async merchant(payeeId: string): Promise<Merchant | undefined> {
    return this.merchants.get(payeeId);
  }

  async merchantIds(): Promise<readonly string[]> {
    return [...this.merchants.keys()];
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

  insertConflict(payment: Payment): Exclude<InsertResult, 'inserted'> | undefined {
    if (this.refs.get(payment.payeeId)?.has(payment.merchantRefNo)) return 'duplicate_ref';
    if (this.codes.has(payment.code) || this.payments.has(payment.id) || this.tokens.has(payment.token)) return 'duplicate_code';
    return undefined;
  }

  /** Compare-and-set on version. */
  replaceable(payment: Payment, expectedVersion: number): Payment | undefined {
    const current = this.payments.get(payment.id);
    return current && current.version === expectedVersion && current.payeeId === payment.payeeId ? current : undefined;
  }

  async listPayments(payeeId: string, query: PaymentQuery): Promise<PaymentPage> {
    const order = this.paymentOrder.get(payeeId) ?? [];
    const items: Payment[] = [];
    let total = 0;
    let listing = query.after === undefined;
    for (let i = order.length - 1; i >= 0; i--) {
      const p = this.payments.get(order[i]!)!;
      if (!listing && p.id === query.after) listing = true;
      if (query.status !== undefined && p.status !== query.status) continue;
      if (query.merchantRefNo !== undefined && p.merchantRefNo !== query.merchantRefNo) continue;
      if (query.search !== undefined && !matchesSearch(p, query.search)) continue;
      if (listing && p.id !== query.after && total >= query.offset && items.length < query.limit) items.push(p);
      total++;
    }
    return { items, total };
  }

  async livePayments(payeeId: string): Promise<readonly Payment[]> {
    const ids = this.live.get(payeeId);
    if (!ids) return [];
    return [...ids].map((id) => this.payments.get(id)!);
  }

  async countDue(payeeId: string, now: number, autoSettle: boolean): Promise<number> {
    let due = 0;
    for (const id of this.live.get(payeeId) ?? []) {
      const at = nextDueAt(this.payments.get(id)!, autoSettle);
      if (at !== null && at <= now) due++;
    }
    return due;
  }

  /** From the due index, so a pass touches only what is due, not every live payment. */
  async dueIds(payeeId: string, now: number, autoSettle: boolean): Promise<readonly string[]> {
    if (this.due.needsRebuild(payeeId)) this.due.rebuild(payeeId, await this.livePayments(payeeId));
    const ids = this.due.takeDue(payeeId, now);
    // The index notes cut-offs of paid payments too; without auto-settlement they are no work.
    return autoSettle ? ids : ids.filter((id) => { const p = this.payments.get(id); return p !== undefined && isOpen(p); });
  }

  async belowPaymentCap(payeeId: string, cap: number): Promise<boolean> {
    return (this.paymentOrder.get(payeeId)?.length ?? 0) < cap;
  }

  /** Every merchant: each one's due index answers cheaply when nothing is due. */
  merchantsWithDueWork(_realNow: number): Promise<readonly string[]> {
    return this.merchantIds();
  }

  applyMerchant(merchant: Merchant): void {
    const previous = this.merchants.get(merchant.payeeId);
    for (const hash of previous?.apiKeyHashes ?? []) this.merchantKeys.delete(hash);
    this.merchants.set(merchant.payeeId, merchant);
    for (const hash of merchant.apiKeyHashes) this.merchantKeys.set(hash, merchant.payeeId);
  }

  /** `bytes` when the caller counted them already. */
  applyPayment(payment: Payment, bytes = recordBytes(payment)): void {
    const previous = this.payments.get(payment.id);
    this.paymentBytes.add(payment.payeeId, bytes - (previous ? recordBytes(previous) : 0));
    if (!previous) {
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

  applyReset(payeeId: string): number {
    const order = this.paymentOrder.get(payeeId) ?? [];
    for (const id of order) this.forget(this.payments.get(id)!);
    this.paymentOrder.delete(payeeId);
    this.refs.delete(payeeId);
    this.live.delete(payeeId);
    this.due.drop(payeeId);
    this.paymentBytes.clear(payeeId);
    return order.length;
  }

  applyMerchantDelete(payeeId: string): number {
    const erased = this.applyReset(payeeId);
    for (const hash of this.merchants.get(payeeId)?.apiKeyHashes ?? []) this.merchantKeys.delete(hash);
    this.merchants.delete(payeeId);
    return erased;
  }

  /** Deterministic on a given state, so replaying the log prunes exactly what was pruned. */
  applyPrune(payeeId: string, createdBefore: number): number {
    const order = this.paymentOrder.get(payeeId);
    if (!order) return 0;
    let pruned = 0;
    const kept = order.filter((id) => {
      const p = this.payments.get(id)!;
      if (p.createdAt >= createdBefore || isLive(p)) return true;
      this.forget(p);
      this.paymentBytes.add(payeeId, -recordBytes(p));
      pruned++;
      return false;
    });
    this.paymentOrder.set(payeeId, kept);
    return pruned;
  }

  /** JSON.parse gives each record its own payeeId string (3.2 MB at 100,000): share the merchant's instead. */
  withSharedPayee(p: Payment): Payment {
    withMetadataText(p);
    const merchant = this.merchants.get(p.payeeId);
    if (merchant) (p as { payeeId: string }).payeeId = merchant.payeeId;
    return p;
  }

  private forget(p: Payment): void {
    this.refs.get(p.payeeId)?.delete(p.merchantRefNo);
    this.tokens.delete(p.token);
    this.codes.delete(p.code);
    this.payments.delete(p.id);
  }
}

/** Changes to one merchant never interleave, so none is lost. */
export class MerchantQueues {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** A deletion runs between the changes queued before and after it. */
  exclusive<T>(payeeId: string, task: () => Promise<T>): Promise<T> {
    const run = (this.tails.get(payeeId) ?? Promise.resolve()).then(task);
    const tail = run.catch(() => undefined);
    this.tails.set(payeeId, tail);
    void tail.then(() => {
      if (this.tails.get(payeeId) === tail) this.tails.delete(payeeId);
    });
    return run;
  }
}
