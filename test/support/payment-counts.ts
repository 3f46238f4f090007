/** How many payments a store holds for a merchant, and what PostgreSQL's count rows hold for it (schema 11: payreq_payment_counts). */
import type { PostgresStore } from '../../src/store/postgres-store.js';
import type { Store } from '../../src/store/store.js';

/** The merchant's payments as the payment list counts them (its total): the read the API's list answers from. */
export async function storedPayments(store: Pick<Store, 'listPayments'>, payeeId: string): Promise<number> {
  return (await store.listPayments(payeeId, { limit: 0, offset: 0 })).total;
}

export interface PaymentCounts {
  /** Count rows of the merchant (its slots in use). */
  readonly rows: number;
  /** Summed over its rows: the bytes and the number of payments counted. */
  readonly bytes: number;
  readonly count: number;
  /** What its payments stored add up to. */
  readonly stored_bytes: number;
  readonly stored: number;
}

export async function paymentCounts(s: PostgresStore, payeeId: string): Promise<PaymentCounts> {
  const [row] = await s.run((sql) => sql<PaymentCounts[]>`
    SELECT (SELECT count(*)::int FROM payreq_payment_counts WHERE payee_id = ${payeeId}) AS rows,
           (SELECT coalesce(sum(payment_bytes), 0)::int FROM payreq_payment_counts WHERE payee_id = ${payeeId}) AS bytes,
           (SELECT coalesce(sum(payment_count), 0)::int FROM payreq_payment_counts WHERE payee_id = ${payeeId}) AS count,
           (SELECT coalesce(sum(octet_length(doc)), 0)::int FROM payreq_payments WHERE payee_id = ${payeeId}) AS stored_bytes,
           (SELECT count(*)::int FROM payreq_payments WHERE payee_id = ${payeeId}) AS stored`);
  return row!;
}
