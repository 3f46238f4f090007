/**
 * The in-memory index of merchants and payments: the memory store is this index (plus the
 * journal and deliveries), and the file store keeps one in front of its files. It answers every
 * read of a Store and applies changes it is told of; it never writes anything anywhere, and
 * never decides whether a change may be made.
 */
import { apiKeyHash } from '../domain/ids.js';
import type { Merchant } from '../domain/merchant.js';
import { isLive, isOpen, withMetadataText } from '../domain/payment.js';
import { matchesSearch } from '../domain/payment-search.js';
import type { Payment } from '../domain/payment.js';
import { nextDueAt } from '../domain/transitions.js';
import { DueIndex } from './due-index.js';
import { ByteTally, recordBytes } from './storage-quota.js';
import type { InsertResult, KeyedPayment, MerchantChange, PaymentPage, PaymentQuery, Store } from './store.js';

/** The reads of a Store: every one answered from memory. */
export type StoreReads = Pick<Store, 'merchantByKey' | 'keyedPayment' | 'merchant' | 'merchantIds' | 'payment' | 'paymentByRef' | 'paymentByToken' | 'listPayments' | 'countPayments' | 'belowPaymentCap' | 'livePayments' | 'dueIds' | 'countDue' | 'merchantsWithDueWork'>;

export class MemoryIndex implements StoreReads {
  private readonly merchants = new Map<string, Merchant>();
  /** SHA-256 of an API key to its merchant's payee id. */
  private readonly merchantKeys = new Map<string, string>();
  private readonly payments = new Map<string, Payment>();
  /** Per merchant, payment ids in creation order. */
  private readonly paymentOrder = new Map<string, string[]>();
  /** Per merchant, merchant_ref_no to payment id (nested: no key string is built per payment). */
  private readonly refs = new Map<string, Map<string, string>>();
  private readonly tokens = new Map<string, string>();
  private readonly codes = new Set<string>();
  private readonly live = new Map<string, Set<string>>();
  private readonly due = new DueIndex();
  /** The stored bytes of the payments, per merchant (storage-quota.ts). */
  readonly paymentBytes = new ByteTally();

  get paymentCount(): number {
    return this.payments.size;
  }

  get merchantCount(): number {
    return this.merchants.size;
  }

  /** Every merchant and payment as they are now (records are immutable: a change stores a new one). */
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

  /** Why `payment` cannot be inserted, or undefined when it can. */
  insertConflict(payment: Payment): Exclude<InsertResult, 'inserted'> | undefined {
    if (this.refs.get(payment.payeeId)?.has(payment.merchantRefNo)) return 'duplicate_ref';
    if (this.codes.has(payment.code) || this.payments.has(payment.id) || this.tokens.has(payment.token)) return 'duplicate_code';
    return undefined;
  }

  /** The stored payment that `payment` may replace (compare-and-set on version), or undefined. */
  replaceable(payment: Payment, expectedVersion: number): Payment | undefined {
    const current = this.payments.get(payment.id);
    return current && current.version === expectedVersion && current.payeeId === payment.payeeId ? current : undefined;
  }

  async listPayments(payeeId: string, query: PaymentQuery): Promise<PaymentPage> {
    const order = this.paymentOrder.get(payeeId) ?? [];
    const items: Payment[] = [];
    let total = 0;
    // total counts every match; items start past the cursor's payment when there is one.
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

  async countPayments(payeeId: string): Promise<number> {
    return this.paymentOrder.get(payeeId)?.length ?? 0;
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

  /** Takes the hints due by `now` from the merchant's due index (built from its live payments on first use): each comes up once per note. */
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

  /** Stores `payment`, of `bytes` stored bytes (storage-quota.ts; counted here when the caller has not). */
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

  /** Undoes `applyPayment(payment)` when `previous` was stored before it (undefined: it was new). */
  unapplyPayment(payment: Payment, previous: Payment | undefined): void {
    if (previous) {
      this.applyPayment(previous);
      return;
    }
    this.forget(payment);
    this.paymentBytes.add(payment.payeeId, -recordBytes(payment));
    const order = this.paymentOrder.get(payment.payeeId);
    const at = order ? order.lastIndexOf(payment.id) : -1;
    if (at >= 0) order!.splice(at, 1);
    this.live.get(payment.payeeId)?.delete(payment.id);
  }

  /** Erases the merchant's payments; answers how many went. */
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

  /** Forgets the merchant, its keys and its payments; answers how many payments went. */
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

  /**
   * A payment just parsed from a file, its payeeId made the merchant's own string: JSON.parse
   * gives every record its own copy (~32 bytes each, 3.2 MB at 100,000). The record is not
   * shared with anything yet, so it is changed in place; the value is the same. Metadata an
   * older file holds as an object becomes its text (withMetadataText).
   */
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

/**
 * Per merchant, the tail of its queue of changes: changes to one merchant never interleave.
 * `change` runs on the record `read` answers then; its new record goes to `save`.
 */
export class MerchantQueues {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(payeeId: string, read: () => Promise<Merchant | undefined>, change: MerchantChange<T>, save: (m: Merchant) => Promise<void>): Promise<{ readonly result: T } | undefined> {
    return this.exclusive(payeeId, async () => {
      const current = await read();
      if (!current) return undefined;
      const [next, result] = change(current);
      if (next) await save(next);
      return { result };
    });
  }

  /** Runs `task` after the merchant's queued changes and before any queued after it (a deletion). */
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
