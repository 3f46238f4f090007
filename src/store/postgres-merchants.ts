/** Writes of the merchant table and erasure of a merchant's records, inside a caller's transaction. */
import type { Merchant } from '../domain/merchant.js';
import type { Sql } from './postgres-connection.js';

/** Deletes the merchant's journal, deliveries, idempotency keys and evidence in one statement (its answer texts go with its next journal trim). */
export async function eraseRecords(tx: Sql, payeeId: string): Promise<{ journalEntries: number; deliveries: number }> {
  const [row] = await tx<{ journalEntries: number; deliveries: number }[]>`
    WITH j AS (DELETE FROM payreq_journal WHERE payee_id = ${payeeId} RETURNING 1),
    d AS (DELETE FROM payreq_deliveries WHERE payee_id = ${payeeId} RETURNING 1),
    k AS (DELETE FROM payreq_idempotency WHERE payee_id = ${payeeId}),
    r AS (DELETE FROM payreq_readiness WHERE payee_id = ${payeeId})
    SELECT (SELECT count(*) FROM j)::int AS "journalEntries", (SELECT count(*) FROM d)::int AS deliveries`;
  return row!;
}

export async function writeMerchant(tx: Sql, m: Merchant): Promise<void> {
  await tx`
    INSERT INTO payreq_merchants (payee_id, doc, clock_offset_ms, auto_settle)
    VALUES (${m.payeeId}, ${JSON.stringify(m)}, ${m.clockOffsetMs}, ${m.settings.autoSettle})
    ON CONFLICT (payee_id) DO UPDATE SET doc = excluded.doc, clock_offset_ms = excluded.clock_offset_ms, auto_settle = excluded.auto_settle`;
  await tx`DELETE FROM payreq_merchant_keys WHERE payee_id = ${m.payeeId} AND key_hash NOT IN (SELECT jsonb_array_elements_text(${tx.json(m.apiKeyHashes)}))`;
  for (const hash of m.apiKeyHashes) {
    await tx`INSERT INTO payreq_merchant_keys (key_hash, payee_id) VALUES (${hash}, ${m.payeeId}) ON CONFLICT (key_hash) DO NOTHING`;
  }
}
