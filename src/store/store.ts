/**
 * The one interface between the sandbox and its data. Every method is async so that a shared
 * store (several instances of a hosted sandbox) can stand behind it; `updatePayment` is a
 * compare-and-set on `version`, so two racing transitions cannot both win.
 */
import type { Merchant } from '../domain/merchant.js';
import type { Payment, PaymentStatus } from '../domain/payment.js';
import type { Delivery, DeliveryLog } from './delivery-log.js';
import type { IdempotencyKeys } from './idempotency-keys.js';
import { JOURNAL_CAP } from './journal-log.js';
import type { JournalLog } from './journal-log.js';
import type { RateWindows } from './rate-windows.js';
import type { ReadinessLog } from './readiness-log.js';
import type { StorageLimits, StorageRefusal, StorageUsage } from './storage-quota.js';

export interface PaymentQuery {
  readonly status?: PaymentStatus;
  readonly merchantRefNo?: string;
  /** Matches as domain/payment-search.ts says (payment_id, part of merchant_ref_no or of the payer). */
  readonly search?: string;
  /** Only payments listed after this one of the merchant's (older than it): a cursor's page. */
  readonly after?: string;
  readonly limit: number;
  readonly offset: number;
}

export interface PaymentPage {
  readonly items: readonly Payment[];
  readonly total: number;
}

/** A status read's merchant and payment (undefined: no such payment of this merchant). */
export interface KeyedPayment {
  readonly merchant: Merchant;
  readonly payment: Payment | undefined;
}

/** 'merchant_quota' and 'sandbox_budget': refused by the storage limits given (storage-quota.ts), nothing stored. */
export type InsertResult = 'inserted' | 'duplicate_ref' | 'duplicate_code' | StorageRefusal;

/** A change to a merchant record: the new record (or null for none) and what to answer. */
export type MerchantChange<T> = (current: Merchant) => readonly [Merchant | null, T];

export interface Store {
  readonly kind: 'memory' | 'file' | 'postgres';
  /** The request journal of every merchant. */
  readonly journal: JournalLog;
  /** Rate-limit windows, shared by every instance on this store. */
  readonly rateWindows: RateWindows;
  /** Webhook deliveries; new ones are written by insertPayment and updatePayment with their change. */
  readonly deliveries: DeliveryLog;
  /** Idempotency keys (in a shared store, a retry may reach another instance); a reset erases them. */
  readonly idempotency: IdempotencyKeys;
  /** The readiness report's evidence, kept beyond the journal's bound; a reset erases it, clearing the journal does not. */
  readonly readiness: ReadinessLog;
  open(): Promise<void>;
  /** Writes everything out and releases files; the store is unusable afterwards. */
  close(): Promise<void>;
  /** Resolves while the store can be read and written; otherwise rejects saying what is wrong (for /healthz). */
  ready(): Promise<void>;

  merchantByKey(apiKey: string): Promise<Merchant | undefined>;
  /** The key's merchant and its payment `paymentId` in one read (one statement on PostgreSQL); undefined when the key is unknown. */
  keyedPayment(apiKey: string, paymentId: string): Promise<KeyedPayment | undefined>;
  /**
   * True when a payment read only ever shows committed changes, so a payment's id and version
   * name its content; false where a read may show a change that a failed write then undoes.
   */
  readonly versionsFinal: boolean;
  merchant(payeeId: string): Promise<Merchant | undefined>;
  /** Stores a new merchant (enrolment); a change to an existing one goes through updateMerchant. */
  saveMerchant(merchant: Merchant): Promise<void>;
  /**
   * Reads the stored merchant, applies `change` and stores the result atomically: changes to one
   * merchant never interleave, whichever instance makes them, so none is lost. Answers undefined
   * when the merchant does not exist (and `change` is not called).
   */
  updateMerchant<T>(payeeId: string, change: MerchantChange<T>): Promise<{ readonly result: T } | undefined>;
  merchantIds(): Promise<readonly string[]>;

  /** A payment of this merchant; another merchant's id answers undefined, like an unknown one. */
  payment(payeeId: string, paymentId: string): Promise<Payment | undefined>;
  paymentByRef(payeeId: string, merchantRefNo: string): Promise<Payment | undefined>;
  paymentByToken(token: string): Promise<Payment | undefined>;
  /**
   * Stores a new payment and, with it, the webhook deliveries its creation causes (the outbox);
   * with `limits`, only when the storage rule (storage-quota.ts) lets it in.
   */
  insertPayment(payment: Payment, outbox?: readonly Delivery[], limits?: StorageLimits): Promise<InsertResult>;
  /** The bytes the merchant's records take, and the sandbox's (storage-quota.ts). */
  storageUsage(payeeId: string): Promise<StorageUsage>;
  /**
   * Stores `payment` when the stored one is still at `expectedVersion`, and with it the
   * deliveries the change causes: both or neither. False when another change won.
   */
  updatePayment(payment: Payment, expectedVersion: number, outbox?: readonly Delivery[]): Promise<boolean>;
  listPayments(payeeId: string, query: PaymentQuery): Promise<PaymentPage>;
  countPayments(payeeId: string): Promise<number>;
  /** True while the merchant holds fewer than `cap` payments (a shared store may answer from a count a few seconds old). */
  belowPaymentCap(payeeId: string, cap: number): Promise<boolean>;
  /**
   * Ids of the merchant's payments whose next due work (expiry, a delayed payer, the settlement
   * cut-off when `autoSettle`) falls at or before `now`, its sandbox ms. Hints: the caller
   * re-reads each and decides; an id may come up that has nothing due any more.
   */
  dueIds(payeeId: string, now: number, autoSettle: boolean): Promise<readonly string[]>;
  /** How many of the merchant's payments have work due by `now` (exact, unlike dueIds; nothing is taken). */
  countDue(payeeId: string, now: number, autoSettle: boolean): Promise<number>;
  /** The merchants that may have work due now (`realNow` plus each one's clock offset); a superset is allowed. */
  merchantsWithDueWork(realNow: number): Promise<readonly string[]>;
  /** Payments that may still change without a request: P, W, and A not yet settled. */
  livePayments(payeeId: string): Promise<readonly Payment[]>;
  /**
   * While changes are visible in memory but not yet written (a durable store writes the changes
   * of one event-loop turn together), the promise of that write; otherwise undefined. An answer
   * that may have read such a change waits for it, and must not claim success if it rejects.
   */
  pendingWrites(): Promise<void> | undefined;
  /**
   * Like pendingWrites, for one payment: the write of its last change while that write is
   * pending, otherwise undefined. An answer that shows only that payment waits for this alone: a
   * batch of other payments' changes, made after it read, is not one it may have read.
   */
  pendingWriteOf(paymentId: string): Promise<void> | undefined;
  /**
   * Erases the merchant's payments, journal, readiness evidence, idempotency keys, webhook
   * deliveries and fault rules and sets its clock back to real time, together (one transaction
   * where the store has them); its keys and settings stay. Answers how many payments went.
   */
  resetMerchant(payeeId: string): Promise<number>;
  /** Deletes the merchant's payments created before `createdBefore` (its sandbox ms) that can no longer change; answers how many. */
  prunePayments(payeeId: string, createdBefore: number): Promise<number>;
  /**
   * Deletes the merchant and all it holds: what a reset erases (payments, journal, webhook
   * deliveries, idempotency keys), and its record with its keys, settings, fault rules and
   * clock. For good: a restart does not bring it back. Answers what went, or undefined when
   * there is no such merchant.
   */
  deleteMerchant(payeeId: string): Promise<MerchantErasure | undefined>;
}

/** What deleting a merchant erased, counted. */
export interface MerchantErasure {
  readonly payments: number;
  readonly journalEntries: number;
  readonly deliveries: number;
}

/** A merchant's data beside its payments, each kept in a part of the store. */
type MerchantParts = Pick<Store, 'journal' | 'deliveries' | 'idempotency' | 'readiness'>;

/** Erases what the parts hold of a merchant (a reset of the in-process stores). */
export async function clearMerchantParts(parts: MerchantParts, payeeId: string): Promise<void> {
  await parts.journal.clear(payeeId);
  await parts.deliveries.clear(payeeId);
  await parts.idempotency.clear(payeeId);
  await parts.readiness.clear(payeeId);
}

/** What a deletion reports of the parts, counted before they are erased. */
export async function countMerchantParts(parts: MerchantParts, payeeId: string): Promise<Omit<MerchantErasure, 'payments'>> {
  return {
    journalEntries: (await parts.journal.list(payeeId, { limit: JOURNAL_CAP })).length,
    deliveries: (await parts.deliveries.list(payeeId, Number.MAX_SAFE_INTEGER)).length,
  };
}
