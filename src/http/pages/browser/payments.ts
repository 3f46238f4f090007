/**
 * The payments panel: search (payment_id, merchant_ref_no, payer), the status filter, and pages
 * through every payment with the list's cursor (GET /sandbox/v1/payments?cursor=...).
 */
import type { PaymentPage, PaymentStatus, SandboxPayment } from './api.js';
import { byId, el, isHttpUrl, money, redrawKeepingPlace, when } from './dom.js';
import { control, notice } from './session.js';

export const MEANING: Readonly<Record<PaymentStatus, string>> = { P: 'pending', W: 'waiting for payment', A: 'paid', F: 'failed', E: 'expired', V: 'voided' };
const PAGE_SIZE = 20;

const ui = {
  form: byId('payment-search', HTMLFormElement),
  search: byId('search', HTMLInputElement),
  status: byId('status-filter', HTMLSelectElement),
  body: byId('payments-body', HTMLTableSectionElement),
  count: byId('payments-count', HTMLElement),
  newer: byId('payments-newer', HTMLButtonElement),
  older: byId('payments-older', HTMLButtonElement),
  page: byId('payments-page', HTMLElement),
  message: byId('payments-message', HTMLElement),
};

/** The cursors of the pages seen: [null] is the newest page; the last is the page shown. */
let cursors: (string | null)[] = [null];
let next: string | null = null;
let shown = '';
let generation = 0;
/** Why the list went back to the newest page: shown until the user moves, not cleared by the next live reload. */
let staleCursorNotice = false;
let open: (id: string) => void = () => {};

export function statusBadge(p: Pick<SandboxPayment, 'payment_status' | 'settled'>): HTMLSpanElement {
  const settled = p.payment_status === 'A' && p.settled ? ', settled' : '';
  return el('span', { class: 'badge st-' + p.payment_status, data: { status: p.payment_status } }, el('span', { class: 'code' }, p.payment_status), MEANING[p.payment_status] + settled);
}

function paymentRow(p: SandboxPayment): HTMLTableRowElement {
  const qr = p.qr_data;
  const thumb = isHttpUrl(qr.image_url) ? el('img', { src: qr.image_url, alt: 'QR of ' + p.payment_code, loading: 'lazy', width: 56, height: 56 }) : '';
  return el(
    'tr',
    { data: { paymentId: p.payment_id } },
    el('td', { class: 'qr' }, thumb),
    el('td', null, el('div', { class: 'ref' }, p.merchant_ref_no), el('div', { class: 'sub mono' }, p.payment_id)),
    el('td', { class: 'num' }, money(p.original_amount) + ' ' + p.original_currency_code),
    el('td', { class: 'status' }, statusBadge(p)),
    el('td', { class: 'when' }, when(p.created_at)),
    el('td', null, p.payer ? p.payer.name : el('span', { class: 'sub' }, 'none yet')),
    el('td', null, el('button', { type: 'button', class: 'secondary small', data: { action: 'open' }, 'aria-label': 'Open payment ' + p.merchant_ref_no, onclick: () => open(p.payment_id) }, 'Open')),
  );
}

function emptyRow(text: string): HTMLTableRowElement {
  return el('tr', null, el('td', { colspan: 7, class: 'empty' }, text));
}

function query(cursor: string | null): string {
  const parts = ['limit=' + PAGE_SIZE];
  const search = ui.search.value.trim();
  if (search) parts.push('search=' + encodeURIComponent(search));
  if (ui.status.value) parts.push('status=' + encodeURIComponent(ui.status.value));
  if (cursor) parts.push('cursor=' + encodeURIComponent(cursor));
  return parts.join('&');
}

/** Reloads the page shown; the rows are replaced only when something changed, so a focused button keeps its focus. */
export async function loadPayments(): Promise<void> {
  const cursor = cursors[cursors.length - 1] ?? null;
  // Loads overlap (live updates, a search); only the newest may draw, or an older answer could undo a search.
  const mine = ++generation;
  const r = await control<PaymentPage>('GET', '/payments?' + query(cursor));
  if (mine !== generation) return;
  if (!r.ok) {
    // A cursor gone stale (a reset erased its payment): back to the newest page, saying why.
    if (r.code === 400 && cursor) {
      cursors = [null];
      await loadPayments();
      staleCursorNotice = true;
    }
    notice(ui.message, r.code, r.body.description);
    return;
  }
  if (!staleCursorNotice) ui.message.replaceChildren();
  const { payments, total, next_cursor } = r.body;
  next = next_cursor;
  const first = (cursors.length - 1) * PAGE_SIZE;
  ui.count.textContent = payments.length ? `${first + 1}–${first + payments.length} of ${total}` : String(total);
  ui.page.textContent = 'Page ' + cursors.length;
  ui.newer.disabled = cursors.length === 1;
  ui.older.disabled = next === null;
  const signature = JSON.stringify(payments.map((p) => [p.payment_id, p.payment_status, p.settled, p.payer?.name ?? null]));
  if (signature === shown && ui.body.rows.length) return;
  shown = signature;
  if (payments.length) redrawKeepingPlace(ui.body, 'data-payment-id', () => ui.body.replaceChildren(...payments.map(paymentRow)));
  else if (ui.search.value.trim() || ui.status.value) ui.body.replaceChildren(emptyRow('No payment matches this search: clear the search or choose All statuses.'));
  else ui.body.replaceChildren(emptyRow('No payments yet: create one with the form below (or POST /openapi/v1/payments/payment) and it shows here.'));
}

/** The newest page of the current search: new payments appear there. */
export const onNewestPage = (): boolean => cursors.length === 1;

/** The user moved (a search, a status, another page): what was said of the last page goes. */
function moved(): void {
  staleCursorNotice = false;
  void loadPayments();
}

export function initPayments(openPayment: (id: string) => void): void {
  open = openPayment;
  ui.form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    cursors = [null];
    moved();
  });
  ui.status.addEventListener('change', () => {
    cursors = [null];
    moved();
  });
  ui.older.addEventListener('click', () => {
    if (next === null) return;
    cursors.push(next);
    moved();
  });
  ui.newer.addEventListener('click', () => {
    if (cursors.length > 1) cursors.pop();
    moved();
  });
}
