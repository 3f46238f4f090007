/** The QR image of a payment, rendered once per payload (services/qr-images.ts) and served with its ETag. */
import { SandboxError } from '../../../domain/errors.js';
import { PAYMENT_TOKEN_PATTERN } from '../../../domain/ids.js';
import { emvPayloadOf } from '../../../services/qr-images.js';
import type { AppEnv } from '../../context.js';
import { queryOf } from '../../contract/input.js';
import type { RouteHandler } from '../../contract/route.js';
import * as routes from './qr.routes.js';

export const image: RouteHandler<typeof routes.image, AppEnv> = async (c) => {
  const token = c.req.param('payment_token');
  const { format = 'png' } = queryOf(c, routes.image);
  const { store, qr } = c.get('services');
  const payment = PAYMENT_TOKEN_PATTERN.test(token) ? await store.paymentByToken(token) : undefined;
  if (!payment) throw SandboxError.notFound('No payment has this payment_token: use the image_url returned by create.');
  const picture = await qr.image(token, format, async () => {
    const merchant = await store.merchant(payment.payeeId);
    if (!merchant) throw SandboxError.notFound('No payment has this payment_token: use the image_url returned by create.');
    return emvPayloadOf(payment, merchant);
  });
  const headers = { 'Content-Type': picture.contentType, ETag: picture.etag, 'Cache-Control': 'private, max-age=86400, immutable' };
  return new Response(picture.body, { status: 200, headers });
};
