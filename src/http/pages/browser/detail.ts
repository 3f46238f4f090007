/**
 * One payment in full: every field, metadata pretty-printed, the QR, the history as a timeline,
 * its journal entries and webhook deliveries; only the actions its state allows, and why not the others.
 */
import type { ActionOffer, ControlActionBody, Journal, JournalEntry, PaymentDetail, PaymentEvent, PaymentHistory, PublicActionBody, SandboxPayment } from './api.js';
import { deliveryList, loadDeliveries } from './deliveries.js';
import { byId, el, isHttpUrl, pretty, when } from './dom.js';
import { journalTable } from './journal.js';
import { statusBadge } from './payments.js';
import { call, CONTROL, control, notice, PUBLIC, run } from './session.js';

const ui = {
  panel: byId('detail-panel', HTMLElement),
  title: byId('detail-title', HTMLElement),
  close: byId('detail-close', HTMLButtonElement),
  message: byId('detail-message', HTMLElement),
  body: byId('detail', HTMLElement),
};

const LABEL: Readonly<Record<ActionOffer['action'], string>> = { pickup: 'Pick up (assign a payer)', pay: 'Pay', fail: 'Fail', expire: 'Expire', settle: 'Settle', cancel: 'Cancel', void: 'Void' };
const REASON = 'from the sandbox dashboard';
let shownId: string | null = null;
let changed: () => Promise<void> = async () => {};

/** Cancel and void go through the public API, as an integration would call them; the rest are control actions. */
function actionRequest(action: ActionOffer['action'], id: string): { url: string; body: ControlActionBody | PublicActionBody } {
  const at = encodeURIComponent(id);
  if (action === 'cancel') return { url: PUBLIC + '/payments/payment/' + at + '/cancel', body: { reason: 'cancelled ' + REASON } };
  if (action === 'void') return { url: PUBLIC + '/payments/payment/' + at + '/void', body: { reason: 'voided ' + REASON } };
  return { url: CONTROL + '/payments/' + at + '/' + action, body: {} };
}

function fieldValue(name: string, value: unknown): Node | string {
  if (value === null) return el('span', { class: 'sub' }, 'null');
  if (typeof value === 'object') return el('pre', null, pretty(value));
  // Unix seconds, with the time a person reads beside them.
  if (typeof value === 'number' && /(_at|_date)$/.test(name)) return el('span', null, String(value), el('span', { class: 'sub' }, ' · ' + when(value)));
  return String(value);
}

function fields(p: SandboxPayment): HTMLElement {
  const rows: HTMLElement[] = [];
  for (const [name, value] of Object.entries(p)) {
    if (name === 'metadata' || name === 'qr_data') continue;
    rows.push(el('dt', null, name), el('dd', { data: { field: name } }, fieldValue(name, value)));
  }
  return el('dl', { class: 'fields' }, rows);
}

function metadataBlock(p: SandboxPayment): HTMLElement {
  const meta: unknown = (p as { metadata?: unknown }).metadata;
  const text = meta === null || meta === undefined ? 'No metadata was sent with this payment.' : pretty(meta);
  return el('section', { class: 'detail-part' }, el('h3', null, 'metadata'), el('pre', { id: 'detail-metadata' }, text));
}

function qrBlock(p: SandboxPayment): HTMLElement {
  const qr = p.qr_data;
  return el(
    'section',
    { class: 'detail-part qr-part' },
    el('h3', null, 'QR'),
    isHttpUrl(qr.image_url) ? el('img', { src: qr.image_url, alt: 'QR code of payment ' + p.payment_code, width: 200, height: 200, id: 'detail-qr' }) : '',
    el('dl', { class: 'fields' }, el('dt', null, 'payload'), el('dd', { class: 'mono' }, qr.payload), el('dt', null, 'expires_at'), el('dd', null, when(qr.expires_at))),
    isHttpUrl(qr.checkout_url) ? el('a', { href: qr.checkout_url, target: '_blank', rel: 'noopener noreferrer' }, 'Open the payer page') : '',
  );
}

function actionsBlock(p: SandboxPayment, offers: readonly ActionOffer[]): HTMLElement {
  const allowed = offers.filter((o) => o.allowed);
  const absent = offers.filter((o) => !o.allowed);
  const buttons = allowed.map((o) => {
    const b = el('button', { type: 'button', class: 'secondary small', data: { action: o.action } }, LABEL[o.action]);
    b.addEventListener('click', () =>
      void run(ui.panel, async () => {
        const { url, body } = actionRequest(o.action, p.payment_id);
        const r = await call<{ description: string }>('POST', url, body);
        notice(ui.message, r.code, r.body.description);
        await Promise.all([showPayment(p.payment_id, false), changed()]);
      }),
    );
    return b;
  });
  return el(
    'section',
    { class: 'detail-part' },
    el('h3', null, 'Actions'),
    buttons.length ? el('div', { class: 'row-actions', id: 'detail-actions' }, buttons) : el('p', { class: 'hint', id: 'detail-actions' }, 'No action applies: this payment is in a final state.'),
    absent.length
      ? el('details', { class: 'absent' }, el('summary', null, 'Not offered (' + absent.length + '): why'), el('ul', null, absent.map((o) => el('li', { data: { absent: o.action } }, el('strong', null, LABEL[o.action]), ': ', o.refusal ?? ''))))
      : '',
  );
}

function eventItem(e: PaymentEvent): HTMLLIElement {
  return el('li', { data: { event: e.type } }, el('span', { class: 'mono when' }, e.at_iso || when(e.at)), el('strong', null, e.type), ' ', (e.from ?? '∅') + ' → ' + e.to, ' by ' + e.actor, e.reason ? el('div', { class: 'sub' }, e.reason) : '');
}

/** Journal entries of this payment: its path names it, its answer does, or it is a create sent with its merchant_ref_no (one a fault cut off has no answer to name it). */
function mentions(e: JournalEntry, id: string, ref: string): boolean {
  if (e.path.includes(id)) return true;
  if (fieldOf(e.response_body, 'payment_id') === id) return true;
  return e.method === 'POST' && /\/payments\/payment$/.test(e.path) && fieldOf(e.request_body, 'merchant_ref_no') === ref;
}

function fieldOf(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
}

export async function showPayment(id: string, focus = true): Promise<void> {
  shownId = id;
  const at = '/payments/' + encodeURIComponent(id);
  const [detail, history, journal, deliveries] = await Promise.all([
    control<PaymentDetail>('GET', at),
    control<PaymentHistory>('GET', at + '/events'),
    control<Journal>('GET', '/requests?limit=500&path=' + encodeURIComponent('/payments')),
    loadDeliveries(),
  ]);
  ui.panel.hidden = false;
  if (!detail.ok) {
    ui.title.textContent = 'Payment ' + id;
    ui.body.replaceChildren(el('div', { class: 'notice error' }, detail.code + ' ' + detail.body.description));
    return;
  }
  const p = detail.body.payment;
  ui.title.replaceChildren(el('span', { class: 'ref' }, p.merchant_ref_no), ' ', statusBadge(p));
  const entries = journal.ok ? journal.body.requests.filter((e) => mentions(e, id, p.merchant_ref_no)) : [];
  const mine = (deliveries ?? []).filter((d) => d.payment_id === id);
  ui.body.replaceChildren(
    // First, under the message: a payment is opened to act on it, and an action's answer shows above it, both in view.
    actionsBlock(p, detail.body.actions),
    el('div', { class: 'detail-grid' }, el('section', { class: 'detail-part' }, el('h3', null, 'Fields'), fields(p)), qrBlock(p)),
    metadataBlock(p),
    el('section', { class: 'detail-part' }, el('h3', null, 'History'), history.ok ? el('ol', { class: 'timeline' }, history.body.events.map(eventItem)) : el('p', { class: 'hint' }, history.body.description)),
    el('section', { class: 'detail-part', id: 'detail-journal' }, el('h3', null, 'Requests'), entries.length ? journalTable(entries) : el('p', { class: 'hint' }, 'No journaled request names this payment.')),
    el(
      'section',
      { class: 'detail-part', id: 'detail-deliveries' },
      el('h3', null, 'Webhook deliveries'),
      mine.length ? deliveryList(mine, ui.message, () => showPayment(id, false)) : el('p', { class: 'hint' }, deliveries === null ? 'The delivery log is not available.' : 'No webhook delivery for this payment: set a webhook URL below and its next change is delivered.'),
    ),
  );
  if (focus) {
    ui.message.replaceChildren();
    ui.panel.scrollIntoView({ block: 'start' });
    ui.close.focus();
  }
}

export function initDetail(onChange: () => Promise<void>): void {
  changed = onChange;
  ui.close.addEventListener('click', () => {
    ui.panel.hidden = true;
    const row = shownId ? document.querySelector<HTMLElement>(`tr[data-payment-id="${CSS.escape(shownId)}"] button`) : null;
    shownId = null;
    row?.focus();
  });
}

/** The payment shown, reloaded (live updates); nothing when none is shown. */
export async function reloadDetail(): Promise<void> {
  if (shownId !== null && !ui.panel.hidden) await showPayment(shownId, false);
}
