/**
 * Create a payment from a form, as an integration would: every field checked before any request
 * (its message beside it), signed through POST /sandbox/v1/tools/sign when the merchant requires it
 * (the salt never reaches the browser), the curl line to copy, then the answer.
 */
import type { CreatePaymentBody, Signed } from './api.js';
import { byId, copyable, el, fieldError, pretty } from './dom.js';
import { call, control, notice, PUBLIC, run } from './session.js';

const ui = {
  form: byId('create-form', HTMLFormElement),
  amount: byId('create-amount', HTMLInputElement),
  currency: byId('create-currency', HTMLSelectElement),
  product: byId('create-product', HTMLSelectElement),
  ref: byId('create-ref', HTMLInputElement),
  payer: byId('create-payer', HTMLInputElement),
  metadata: byId('create-metadata', HTMLTextAreaElement),
  signed: byId('create-signed', HTMLElement),
  curl: byId('create-curl', HTMLElement),
  answer: byId('create-answer', HTMLElement),
  message: byId('create-message', HTMLElement),
};

type Field = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
interface Merchant {
  readonly payeeId: string;
  readonly requireSignature: boolean;
}
let merchant: Merchant | null = null;
let created: () => Promise<void> = async () => {};
let opened: (id: string) => Promise<void> = async () => {};

const freshRef = (): string => 'dash-' + new Date().toISOString().replace(/[-:T.Z]/g, '').slice(0, 14) + '-' + Math.random().toString(36).slice(2, 6);

/** The rules of SPEC 4's formats, checked here so a wrong value is named before anything is sent. */
function amountProblem(text: string): string | null {
  if (!/^[0-9]{1,10}(\.[0-9]{1,2})?$/.test(text)) return 'Write the amount in digits with at most 2 decimals, such as 10.50.';
  const n = Number(text);
  if (n < 0.01 || n > 9999999999.99) return 'The amount must be from 0.01 to 9999999999.99.';
  return null;
}

function metadataProblem(text: string): { problem: string | null; value?: Record<string, unknown> } {
  if (!text.trim()) return { problem: null };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { problem: 'Not JSON: ' + (err instanceof Error ? err.message : String(err)) + '.' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { problem: 'metadata must be a JSON object, such as {"order": "A-17"}.' };
  if (Object.keys(value).length > 50) return { problem: 'metadata may have at most 50 keys.' };
  if (new TextEncoder().encode(JSON.stringify(value)).length > 8192) return { problem: 'metadata may be at most 8 KiB as compact JSON.' };
  return { problem: null, value: value as Record<string, unknown> };
}

/** The body to send, or null once every wrong field is named beside itself. */
function bodyOfForm(): CreatePaymentBody | null {
  const problems: [Field, string | null][] = [];
  const amount = ui.amount.value.trim();
  problems.push([ui.amount, amountProblem(amount)]);
  const ref = ui.ref.value.trim();
  problems.push([ui.ref, /^[A-Za-z0-9._-]{1,64}$/.test(ref) ? null : 'merchant_ref_no is 1 to 64 letters, digits, dots, dashes or underscores.']);
  const payer = ui.payer.value.trim();
  problems.push([ui.payer, payer.length > 64 ? 'payer is at most 64 characters.' : null]);
  const meta = metadataProblem(ui.metadata.value);
  problems.push([ui.metadata, meta.problem]);
  problems.push([ui.currency, /^[A-Z]{3}$/.test(ui.currency.value) ? null : 'Choose a currency.']);
  for (const [field, problem] of problems) fieldError(field, problem);
  const first = problems.find(([, problem]) => problem !== null);
  if (first) {
    first[0].focus();
    return null;
  }
  if (!merchant) {
    notice(ui.message, 0, 'The merchant could not be read (GET /sandbox/v1/merchant): reload the page.');
    return null;
  }
  const body: CreatePaymentBody = { payee: merchant.payeeId, product_type: ui.product.value, merchant_ref_no: ref, amount: Number(amount), currency_code: ui.currency.value };
  if (payer) body.payer = payer;
  if (meta.value) body.metadata = meta.value;
  return body;
}

/** A shell word in single quotes: safe to paste whatever the JSON holds. */
const shellQuote = (text: string): string => "'" + text.replace(/'/g, "'\\''") + "'";

function curlLine(url: string, json: string): string {
  return ['curl -X POST ' + shellQuote(url), '-H "Service-Api-Key: $PAYREQ_SANDBOX_KEY"', "-H 'Content-Type: application/json'", '-d ' + shellQuote(json)].join(' \\\n  ');
}

async function submit(): Promise<void> {
  ui.message.replaceChildren();
  const body = bodyOfForm();
  if (!body) return;
  if (merchant?.requireSignature) {
    const signed = await control<Signed>('POST', '/tools/sign', body);
    if (!signed.ok) return notice(ui.message, signed.code, 'Could not sign the request: ' + signed.body.description);
    body.sign_type = signed.body.sign_type;
    body.sign = signed.body.sign;
  }
  const url = PUBLIC + '/payments/payment';
  const json = JSON.stringify(body);
  ui.curl.replaceChildren(el('h3', null, 'The request, as your integration sends it'), copyable(curlLine(new URL(url, location.href).href, json), 'curl command'));
  const r = await call<{ description: string; payment_id?: string }>('POST', url, json);
  notice(ui.message, r.code, r.body.description);
  ui.answer.replaceChildren(el('h3', null, 'The answer'), el('pre', { id: 'create-answer-body' }, pretty(r.body)));
  const id = r.body.payment_id;
  if (typeof id === 'string') {
    // The answer stays in view; the new payment opens when asked.
    ui.answer.append(el('button', { type: 'button', class: 'secondary small', id: 'create-open', onclick: () => void opened(id) }, 'Open this payment'));
    ui.ref.value = freshRef();
    await created();
  }
}

/** The merchant's payee id, home currency and whether it must sign, once the key is known. */
export function setMerchant(payeeId: string, homeCurrency: string, requireSignature: boolean): void {
  merchant = { payeeId, requireSignature };
  if (!ui.currency.dataset.chosen) ui.currency.value = homeCurrency;
  ui.signed.textContent = requireSignature
    ? 'This merchant requires signatures: the dashboard signs each create with POST /sandbox/v1/tools/sign (your signing salt stays on the sandbox).'
    : 'This merchant does not require signatures: creates are sent unsigned.';
}

/** `onCreated` reloads what shows payments; `open` shows one. */
export function initCreate(onCreated: () => Promise<void>, open: (id: string) => Promise<void>): void {
  created = onCreated;
  opened = open;
  ui.ref.value = freshRef();
  ui.currency.addEventListener('change', () => (ui.currency.dataset.chosen = '1'));
  ui.form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    void run(ui.form, submit);
  });
}
