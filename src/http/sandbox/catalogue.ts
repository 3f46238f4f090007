/** Catalogues (codes, magic values), the signature tool and the QR images. */
import { Hono } from 'hono';
import { CODE_CATALOGUE } from '../../domain/codes.js';
import { MAGIC_AMOUNTS, MAGIC_PAYERS } from '../../domain/magic.js';
import { formatMinorUnits } from '../../domain/money.js';
import { maskedStringToSign, signBody } from '../../domain/signature.js';
import { ApiError } from '../../domain/codes.js';
import { readJsonObject } from '../body.js';
import type { AppEnv } from '../context.js';
import { ok } from '../envelope.js';
import { emvPayloadOf } from '../../services/qr-images.js';
import { PAYMENT_TOKEN_PATTERN } from '../../domain/ids.js';

/** Routes that need no key: static catalogues and QR images reachable by their token. */
export function openCatalogueRoutes(): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  routes.get('/codes', (c) => ok(c, `The ${CODE_CATALOGUE.length} codes the sandbox answers.`, { codes: CODE_CATALOGUE }));

  routes.get('/magic', (c) =>
    ok(c, 'Magic values: data that steers the outcome without a control call.', {
      payers: Object.entries(MAGIC_PAYERS).map(([value, effect]) => ({ field: 'payer', value, effect })),
      amounts: Object.entries(MAGIC_AMOUNTS).map(([minor, m]) => ({ field: 'amount', value: formatMinorUnits(Number(minor)), fault: m.fault, effect: m.effect })),
    }),
  );

  routes.get('/qr/:token', async (c) => {
    const token = c.req.param('token');
    const format = c.req.query('format') ?? 'png';
    if (format !== 'png' && format !== 'svg') throw ApiError.invalid(`format must be png or svg, got ${JSON.stringify(format.slice(0, 16))}.`);
    const { store, qr } = c.get('services');
    const payment = PAYMENT_TOKEN_PATTERN.test(token) ? await store.paymentByToken(token) : undefined;
    if (!payment) throw ApiError.notFound('No payment has this payment_token: use the image_url returned by create.');
    const image = await qr.image(token, format, async () => {
      const merchant = await store.merchant(payment.payeeId);
      if (!merchant) throw ApiError.notFound('No payment has this payment_token: use the image_url returned by create.');
      return emvPayloadOf(payment, merchant);
    });
    const headers = { 'Content-Type': image.contentType, ETag: image.etag, 'Cache-Control': 'private, max-age=86400, immutable' };
    if (c.req.header('if-none-match') === image.etag) return new Response(null, { status: 304, headers });
    return new Response(image.body, { status: 200, headers });
  });

  return routes;
}

export function keyedCatalogueRoutes(): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.post('/tools/sign', async (c) => {
    const body = await readJsonObject(c);
    const merchant = c.get('merchant');
    return ok(c, 'Signature of this body with your signing salt; send sign_type "SHA512" and this sign with it.', {
      sign_type: 'SHA512',
      sign: signBody(body, merchant.signingSalt),
      string_to_sign: maskedStringToSign(body),
    });
  });
  return routes;
}
