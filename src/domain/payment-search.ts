/**
 * What a search of a merchant's payments matches: the payment_id exactly, or a part of the
 * merchant_ref_no, the payer's id or the payer's name, letter case ignored. The PostgreSQL store
 * says the same in SQL (postgres-payments.ts listPayments); this is the rule the others run.
 */
import type { Payment } from './payment.js';

export function matchesSearch(p: Payment, search: string): boolean {
  if (p.id === search) return true;
  const needle = search.toLowerCase();
  if (p.merchantRefNo.toLowerCase().includes(needle)) return true;
  return p.payer !== null && (p.payer.id.toLowerCase().includes(needle) || p.payer.name.toLowerCase().includes(needle));
}
