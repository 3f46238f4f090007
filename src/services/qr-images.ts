/** QR images of EMV payloads. The image is a pure function of the payload, so it is cached. */
import { createHash } from 'node:crypto';
import { findCurrency } from '../domain/currencies.js';
import { initiationOf, toEmvPayload } from '../domain/emv.js';
import type { Merchant } from '../domain/merchant.js';
import { formatMinorUnits } from '../domain/money.js';
import type { Payment } from '../domain/payment.js';

export type QrFormat = 'png' | 'svg';

export interface QrImage {
  readonly body: Uint8Array | string;
  readonly contentType: string;
  readonly etag: string;
}

export function emvPayloadOf(payment: Payment, merchant: Merchant): string {
  return toEmvPayload({
    payeeId: merchant.payeeId,
    mcc: merchant.mcc,
    currencyNumeric: findCurrency(payment.currency)?.numeric ?? '000',
    amount: formatMinorUnits(payment.amountMinor),
    countryCode: merchant.countryCode,
    merchantName: merchant.name,
    merchantCity: merchant.city,
    paymentCode: payment.code,
    initiation: initiationOf(payment.productType),
  });
}

const CACHE_LIMIT = 1000;

export class QrImageCache {
  private readonly images = new Map<string, Promise<QrImage>>();

  /**
   * The image of a payment's payload, cached under the payment token: the payload is a pure
   * function of the payment's fixed fields, so a hit needs neither the payment nor the payload.
   */
  image(token: string, format: QrFormat, payloadOf: () => string | Promise<string>): Promise<QrImage> {
    const key = `${format}:${token}`;
    const cached = this.images.get(key);
    if (cached) {
      // Refresh its place: a Map iterates in insertion order, so the oldest is evicted first.
      this.images.delete(key);
      this.images.set(key, cached);
      return cached;
    }
    const rendered = Promise.resolve(payloadOf()).then((payload) => render(payload, format));
    this.images.set(key, rendered);
    rendered.catch(() => this.images.delete(key));
    if (this.images.size > CACHE_LIMIT) this.images.delete(this.images.keys().next().value!);
    return rendered;
  }

  async dataUrl(token: string, payload: string): Promise<string> {
    const png = await this.image(token, 'png', () => payload);
    return `data:image/png;base64,${Buffer.from(png.body as Uint8Array).toString('base64')}`;
  }
}

/** qrcode costs ~50 ms to load: loaded on the first image, not at start-up. */
let qrcodeModule: Promise<typeof import('qrcode')> | undefined;

async function render(payload: string, format: QrFormat): Promise<QrImage> {
  const QRCode = await (qrcodeModule ??= import('qrcode'));
  // The QR standard asks for a quiet zone of 4 modules; scanners miss codes drawn with less.
  const options = { errorCorrectionLevel: 'M' as const, margin: 4 };
  // The drawing options are part of the ETag: images cached before a change of margin go stale.
  const etag = `"${createHash('sha256').update(`${format}:m${options.margin}:${payload}`).digest('base64url').slice(0, 22)}"`;
  if (format === 'svg') {
    return { body: await QRCode.toString(payload, { ...options, type: 'svg' }), contentType: 'image/svg+xml', etag };
  }
  return { body: await QRCode.toBuffer(payload, { ...options, type: 'png', scale: 6 }), contentType: 'image/png', etag };
}
