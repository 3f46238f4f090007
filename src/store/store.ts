// Every method is async so that a shared store (several instances of a hosted sandbox) can stand behind it.
import type { Merchant } from '../domain/merchant.js';
import type { Payment, PaymentStatus } from '../domain/payment.js';
import type { Delivery, DeliveryLog } from './delivery-log.js';
import type { IdempotencyKeys } from './idempotency-keys.js';
import type { JournalLog } from './journal-log.js';
import type { RateWindows } from './rate-windows.js';
import type { ReadinessLog } from './readiness-log.js';
import type { StorageLimits, StorageRefusal, StorageUsage } from './storage-quota.js';

export interface PaymentQuery {
  readonly status?: PaymentStatus;
  readonly merchantRefNo?: string;
  /** As domain/payment-search.ts matches it. */
  readonly search?: string;
  /** A cursor's page: only payments older than this one. */
  readonly after?: string;
  readonly limit: number;
  readonly offset: number;
}

export interface PaymentPage {
  readonly items: readonly Payment[];
  readonly total: number;
}

/** payment undefined: no such payment of this merchant. */
export interface KeyedPayment {
  readonly merchant: Merchant;
  readonly payment: Payment | undefined;
}

/** A StorageRefusal stored nothing. */
export type InsertResult = 'inserted' | 'duplicate_ref' | 'duplicate_code' | StorageRefusal;

/** Null for the new record: nothing to store. */
export type MerchantChange<T> = (current: Merchant) => readonly [Merchant | null, T];

export interface Store {
  readonly kind: 'memory' | 'file' | 'postgres';
  readonly journal: JournalLog;
  /** Shared by every instance on this store. */
  readonly rateWindows: RateWindows;
  /** New ones are written with the payment change that causes them (an outbox). */
  readonly deliveries: DeliveryLog;
  /** Kept in the store because a retry may reach another instance. */
  readonly idempotency: IdempotencyKeys;
  /** Kept beyond the journal's bound; a reset erases it, clearing the journal does not. */
  readonly readiness: ReadinessLog;
  open(): Promise<void>;
  close(): Promise<void>;
  /** Rejects saying what is wrong, for /healthz. */
  ready(): Promise<void>;

  merchantByKey(apiKey: string): Promise<Merchant | undefined>;
  /** One read for the hot status path (one statement on PostgreSQL). */
  keyedPayment(apiKey: string, paymentId: string): Promise<KeyedPayment | undefined>;
  merchant(payeeId: string): Promise<Merchant | undefined>;
  /** For enrolment only: a change goes through updateMerchant, so none is lost. */
  saveMerchant(merchant: Merchant): Promise<void>;
  /** Atomic, whichever instance makes the change, so none is lost; undefined when there is no such merchant. */
  updateMerchant<T>(payeeId: string, change: MerchantChange<T>): Promise<{ readonly result: T } | undefined>;
  merchantIds(): Promise<readonly string[]>;

  /** Another merchant's payment answers undefined, like an unknown one, so none can be detected. */
  payment(payeeId: string, paymentId: string): Promise<Payment | undefined>;
  paymentByRef(payeeId: string, merchantRefNo: string): Promise<Payment | undefined>;
  paymentByToken(token: string): Promise<Payment | undefined>;
  /** Stores the outbox with the payment, both or neither, so no webhook is lost or sent for nothing. */
  insertPayment(payment: Payment, outbox?: readonly Delivery[], limits?: StorageLimits): Promise<InsertResult>;
  storageUsage(payeeId: string): Promise<StorageUsage>;
  /** A compare-and-set on version, so two racing transitions cannot both win; false when another won. */
  updatePayment(payment: Payment, expectedVersion: number, outbox?: readonly Delivery[]): Promise<boolean>;
  listPayments(payeeId: string, query: PaymentQuery): Promise<PaymentPage>;
  /** A shared store may answer from a count a few seconds old. */
  belowPaymentCap(payeeId: string, cap: number): Promise<boolean>;
  /** Hints only: the caller re-reads each payment and decides, since an id may have nothing due any more. */
  dueIds(payeeId: string, now: number, autoSettle: boolean): Promise<readonly string[]>;
  /** Exact, unlike dueIds, and takes nothing. */
  countDue(payeeId: string, now: number, autoSettle: boolean): Promise<number>;
  /** A superset is allowed: each merchant's dueIds decides. */
  merchantsWithDueWork(realNow: number): Promise<readonly string[]>;
  /** Those that may still change without a request: P, W, and A not yet settled. */
  livePayments(payeeId: string): Promise<readonly Payment[]>;
  /** Erases what the merchant made, together (one transaction where the store has them); keys and settings stay. */
  resetMerchant(payeeId: string): Promise<number>;
  /** Only payments that can no longer change go. */
  prunePayments(payeeId: string, createdBefore: number): Promise<number>;
  /** For good: a restart does not bring the merchant or anything it held back. */
  deleteMerchant(payeeId: string): Promise<MerchantErasure | undefined>;
}

export interface MerchantErasure {
  readonly payments: number;
  readonly journalEntries: number;
  readonly deliveries: number;
}
