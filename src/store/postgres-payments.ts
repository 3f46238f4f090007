/** The payment table's queries that need no store state: a page of a merchant's payments, who has due work, and a payment as a row and back. */
import type postgres from 'postgres';
import { isLive, isOpen, type Payment, withMetadataText } from '../domain/payment.js';
import { nextDueAt } from '../domain/transitions.js';
import type { Sql } from './postgres-connection.js';
import type { PaymentPage, PaymentQuery } from './store.js';

export async function listPayments(sql: Sql, payeeId: string, query: PaymentQuery): Promise<PaymentPage> {
  const { status = null, merchantRefNo: ref = null, search = null, after = null } = query;
  // domain/payment-search.ts's rule in SQL: the id exactly, else a part of the reference or the payer.
  const part = search === null ? null : '%' + search.replace(/[\\%_]/g, (ch) => '\\' + ch) + '%';
  // A search JSON writes verbatim is in the document's text if in the payer: that cheap test spares parsing each document (~300 ms at 10,000).
  const verbatim = search !== null && !/["\\\u0000-\u001f\ud800-\udfff]/.test(search);
  const where = sql`payee_id = ${payeeId} AND (${status}::text IS NULL OR status = ${status}) AND (${ref}::text IS NULL OR merchant_ref_no = ${ref})
    AND (${search}::text IS NULL OR id = ${search} OR merchant_ref_no ILIKE ${part}
      OR ((${!verbatim}::boolean OR doc ILIKE ${part}) AND ((doc::jsonb->'payer'->>'id') ILIKE ${part} OR (doc::jsonb->'payer'->>'name') ILIKE ${part})))`;
  const page = sql`${where} AND (${after}::text IS NULL OR seq < (SELECT seq FROM payreq_payments WHERE id = ${after} AND payee_id = ${payeeId}))`;
  const [rows, [count]] = await Promise.all([
    sql<{ doc: string }[]>`SELECT doc FROM payreq_payments WHERE ${page} ORDER BY seq DESC LIMIT ${query.limit} OFFSET ${query.offset}`,
    sql<{ n: number }[]>`SELECT count(*)::int AS n FROM payreq_payments WHERE ${where}`,
  ]);
  return { items: rows.map((r) => paymentOf(r.doc)), total: count?.n ?? 0 };
}

/** Candidates from the payments due by the furthest merchant clock (two index ranges), then each one's own clock. */
export async function merchantsWithDueWork(sql: Sql, realNow: number): Promise<readonly string[]> {
  const rows = await sql<{ payee_id: string }[]>`
    WITH horizon AS (SELECT ${realNow}::bigint + coalesce(max(clock_offset_ms), 0) AS t FROM payreq_merchants),
    candidates AS (
      SELECT payee_id FROM payreq_payments WHERE due_at <= (SELECT t FROM horizon)
      UNION
      SELECT payee_id FROM payreq_payments WHERE settle_at <= (SELECT t FROM horizon))
    SELECT m.payee_id FROM payreq_merchants m JOIN candidates c USING (payee_id)
     WHERE EXISTS (SELECT 1 FROM payreq_payments p WHERE p.payee_id = m.payee_id AND p.due_at <= ${realNow} + m.clock_offset_ms)
        OR (m.auto_settle AND EXISTS (SELECT 1 FROM payreq_payments p WHERE p.payee_id = m.payee_id AND p.settle_at <= ${realNow} + m.clock_offset_ms))`;
  return rows.map((r) => r.payee_id);
}

/** The merchant's payments with work due by `now`: an expiry or a delayed payer, or a settlement when it auto-settles. */
export function due(sql: Sql, payeeId: string, now: number, autoSettle: boolean): postgres.Fragment {
  return sql`payee_id = ${payeeId} AND (due_at <= ${now} OR (${autoSettle}::boolean AND settle_at <= ${now}))`;
}

/** The searched columns of a payment beside its document. */
export function paymentRow(p: Payment) {
  return {
    id: p.id,
    payee_id: p.payeeId,
    merchant_ref_no: p.merchantRefNo,
    token: p.token,
    code: p.code,
    status: p.status,
    live: isLive(p),
    // Open: expiry or a delayed payer; paid and unsettled: the cut-off, used when the merchant auto-settles.
    due_at: isOpen(p) ? nextDueAt(p, false) : null,
    settle_at: isOpen(p) ? null : nextDueAt(p, true),
    created_at: p.createdAt,
    version: p.version,
    doc: JSON.stringify(p),
  };
}

/** A payment document as read; one written before metadata was kept as text gets it as text. */
export function paymentOf(doc: string): Payment {
  return withMetadataText(JSON.parse(doc) as Payment);
}
