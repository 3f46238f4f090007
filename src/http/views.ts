/** How payments look on the wire: the public status view, the create answer, the sandbox views, and their schemas. */
import { z } from 'zod';
import { CURRENCY_CODES } from '../domain/currencies.js';
import type { Merchant } from '../domain/merchant.js';
import { Amount, RawJson } from './json-text.js';
import type { Payment, PaymentEvent } from '../domain/payment.js';
import { PAYMENT_ID_PATTERN, PAYMENT_TOKEN_PATTERN } from '../domain/ids.js';
import { emvPayloadOf } from '../services/qr-images.js';
import { TWO_DECIMALS } from './schemas.js';

export const unixSeconds = (ms: number): number => Math.floor(ms / 1000);

const amountView = z.number().meta({ id: 'Amount', ...TWO_DECIMALS, description: 'Written with exactly two decimals in the JSON text, e.g. 10.50' });
const currencyView = z.enum(CURRENCY_CODES as [string, ...string[]]);
const unixTime = z.number().int().meta({ description: 'Unix time in seconds' });
export const paymentIdView = z.string().regex(PAYMENT_ID_PATTERN);
export const paymentTokenView = z.string().regex(PAYMENT_TOKEN_PATTERN);
export const paymentStatusView = z.enum(['P', 'W', 'E', 'F', 'V', 'A']).meta({ description: 'P pending, W waiting for payment, A paid, F failed, E expired, V voided' });
const metadataSchema = z.record(z.string(), z.unknown()).nullable().meta({ description: 'As sent at create, as the same JSON value (written as JSON.stringify writes it: 7.0 comes back 7, \\u00e9 as é)' });

/** The schema of paymentStatusFields. */
export const paymentStatusShape = {
  payment_id: paymentIdView,
  merchant_ref_no: z.string(),
  original_currency_code: currencyView,
  original_amount: amountView,
  paid_currency_code: currencyView,
  paid_amount: amountView,
  product_type: z.string(),
  payment_code: z.string().regex(/^[0-9A-Z]{12}$/),
  payment_status: paymentStatusView,
  payment_date: unixTime.nullable().meta({ description: 'Unix seconds of the payment; null until paid' }),
  payee: z.object({ id: z.string(), name: z.string(), city: z.string(), country_code: z.string(), mcc: z.string() }),
  payer: z.object({ id: z.string(), name: z.string() }).nullable(),
  source: z.object({ type: z.string(), provider: z.string(), account: z.string() }).nullable().meta({ description: 'Masked; null before payment' }),
  fee: z.array(z.object({ type: z.string(), currency_code: currencyView, amount: amountView })),
  metadata: metadataSchema,
};

/** The fields of the interface's status response, in its order. */
export function paymentStatusFields(p: Payment, merchant: Merchant): Record<string, unknown> {
  return {
    payment_id: p.id,
    merchant_ref_no: p.merchantRefNo,
    original_currency_code: p.currency,
    original_amount: new Amount(p.amountMinor),
    paid_currency_code: p.paidCurrency,
    paid_amount: new Amount(p.paidAmountMinor),
    product_type: p.productType,
    payment_code: p.code,
    payment_status: p.status,
    payment_date: p.paidAt === null ? null : unixSeconds(p.paidAt),
    payee: { id: merchant.payeeId, name: merchant.name, city: merchant.city, country_code: merchant.countryCode, mcc: merchant.mcc },
    payer: p.payer ? { id: p.payer.id, name: p.payer.name } : null,
    source: p.source ? { type: p.source.type, provider: p.source.provider, account: p.source.account } : null,
    fee: p.fees.map((f) => ({ type: f.type, currency_code: f.currency, amount: new Amount(f.amountMinor) })),
    metadata: metadataView(p),
  };
}

/** The metadata as sent: its kept text embedded as is by toJsonText, byte for byte what the parsed object gave. */
export function metadataView(p: Payment): RawJson | null {
  return p.metadata === null ? null : new RawJson(p.metadata);
}

/** Where the QR image and the payer page of a payment are, under `base` (an origin or a path). */
export const qrImageUrl = (base: string, token: string): string => `${base}/sandbox/v1/qr/${token}`;
export const checkoutUrl = (base: string, token: string): string => `${base}/sandbox/pay/${token}`;

/** The schema of qrData (image only when the merchant set inline_qr_image). */
export const qrDataView = z.object({
  payload: z.string().meta({ description: 'EMVCo merchant-presented payload (tag 62/05 carries payment_code; CRC in tag 63)' }),
  format: z.literal('EMVCO_MPM'),
  image_url: z.string().meta({ description: 'The QR image: PNG, or SVG with ?format=svg' }),
  checkout_url: z.string().meta({ description: 'The payer page' }),
  expires_at: unixTime,
  image: z.string().regex(/^data:image\/png;base64,/).optional().meta({ description: 'PNG data URL, only when the merchant set inline_qr_image' }),
}).meta({ id: 'QrData' });

export function qrData(p: Payment, merchant: Merchant, baseUrl: string): Record<string, unknown> {
  return {
    payload: emvPayloadOf(p, merchant),
    format: 'EMVCO_MPM',
    image_url: qrImageUrl(baseUrl, p.token),
    checkout_url: checkoutUrl(baseUrl, p.token),
    expires_at: unixSeconds(p.expiresAt),
  };
}

/** The control API shows the status view plus what only the sandbox knows. */
export function sandboxPaymentView(p: Payment, merchant: Merchant, baseUrl: string): Record<string, unknown> {
  return {
    ...paymentStatusFields(p, merchant),
    settled: p.settled,
    created_at: unixSeconds(p.createdAt),
    expires_at: unixSeconds(p.expiresAt),
    settled_at: p.settledAt === null ? null : unixSeconds(p.settledAt),
    pays_at: p.payDueAt === null ? null : unixSeconds(p.payDueAt),
    payment_token: p.token,
    qr_data: qrData(p, merchant, baseUrl),
  };
}

/** The schema of sandboxPaymentView. */
const sandboxPaymentShape = {
  ...paymentStatusShape,
  settled: z.boolean(),
  created_at: unixTime,
  expires_at: unixTime,
  settled_at: unixTime.nullable(),
  pays_at: unixTime.nullable().meta({ description: 'When a PAYER_PAYS_LATER payer pays; null when nobody is due to pay' }),
  payment_token: paymentTokenView,
  qr_data: qrDataView,
};

export const sandboxPaymentSchema = z.object(sandboxPaymentShape).meta({ id: 'SandboxPayment', description: 'A payment as the status query shows it, plus what only the sandbox knows' });

/** The body of a webhook for one event of a payment (each attempt is signed by the sender, in Sandbox-Signature). */
export function webhookEventBody(merchant: Merchant, p: Payment, e: PaymentEvent, eventId: string): Record<string, unknown> {
  return {
    event_id: eventId,
    type: `payment.${e.type}`,
    created_at: unixSeconds(e.at),
    payment_id: p.id,
    merchant_ref_no: p.merchantRefNo,
    from: e.from,
    to: e.to,
    reason: e.reason,
    actor: e.actor,
    settled: p.settled,
    payment: paymentStatusFields(p, merchant),
  };
}

export const eventViewSchema = z.object({
  type: z.enum(['created', 'payer_assigned', 'paid', 'cancelled', 'failed', 'expired', 'voided', 'settled']),
  from: paymentStatusView.nullable(),
  to: paymentStatusView,
  at: unixTime,
  at_iso: z.string(),
  reason: z.string().nullable(),
  actor: z.enum(['merchant', 'payer', 'sandbox', 'clock']),
}).meta({ id: 'PaymentEvent' });

export function eventView(e: PaymentEvent): Record<string, unknown> {
  return { type: e.type, from: e.from, to: e.to, at: unixSeconds(e.at), at_iso: new Date(e.at).toISOString(), reason: e.reason, actor: e.actor };
}
