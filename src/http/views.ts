/** How payments look on the wire: the public status view, the create answer, the sandbox views. */
import type { Merchant } from '../domain/merchant.js';
import { Amount } from '../domain/money.js';
import type { Payment, PaymentEvent } from '../domain/payment.js';
import { emvPayloadOf } from '../services/qr-images.js';

export const unixSeconds = (ms: number): number => Math.floor(ms / 1000);

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
    metadata: p.metadata,
  };
}

/** Where the QR image and the payer page of a payment are, under `base` (an origin or a path). */
export const qrImageUrl = (base: string, token: string): string => `${base}/sandbox/v1/qr/${token}`;
export const checkoutUrl = (base: string, token: string): string => `${base}/sandbox/pay/${token}`;

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

/** The body of a webhook for one event of a payment (sign_type and sign are added by the sender). */
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

export function eventView(e: PaymentEvent): Record<string, unknown> {
  return { type: e.type, from: e.from, to: e.to, at: unixSeconds(e.at), at_iso: new Date(e.at).toISOString(), reason: e.reason, actor: e.actor };
}
