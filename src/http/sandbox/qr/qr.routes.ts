/** The contract of a payment's QR image: PNG or SVG, by its token alone, cached with an ETag. */
import { z } from 'zod';
import { STORE_ANSWERS, answers, fieldError, json, problemBody } from '../../contract/answers.js';
import type { HeaderContract } from '../../contract/route.js';
import { defineRoute } from '../../contract/route.js';
import { paymentTokenView } from '../../views.js';

const etag: HeaderContract = { description: 'The image is a pure function of the payload: send it back in If-None-Match.', required: true, schema: { type: 'string' } };
const cacheControl: HeaderContract = { description: 'private, max-age=86400, immutable', required: true, schema: { type: 'string' } };

export const image = defineRoute({
  method: 'get',
  path: '/qr/{payment_token}',
  summary: 'The QR image of a payment: PNG, or SVG with ?format=svg',
  description: 'Reachable by the payment token alone (no key), as image_url in qr_data.',
  tag: 'Sandbox tools',
  access: 'open',
  request: {
    params: z.object({ payment_token: paymentTokenView.meta({ description: 'payment_token of create' }) }),
    query: z.object({
      format: z
        .enum(['png', 'svg'], { error: (issue) => `format must be png or svg, got ${JSON.stringify(String(issue.input).slice(0, 16))}` })
        .optional()
        .meta({ description: 'png (default) or svg' }),
    }),
    headers: { 'If-None-Match': { description: 'The ETag of an image you hold: 304 when it still is this image.', required: false, schema: { type: 'string' } } },
  },
  responses: {
    200: {
      description: 'The image: image/png, or image/svg+xml with format=svg.',
      content: { 'image/png': { type: 'string', contentMediaType: 'image/png' }, 'image/svg+xml': { type: 'string' } },
      headers: { ETag: etag, 'Cache-Control': cacheControl },
    },
    304: { description: 'Not modified: If-None-Match matched the ETag.', headers: { ETag: etag, 'Cache-Control': cacheControl } },
    400: json('format is neither png nor svg (named in errors).', problemBody(400, { errors: z.array(fieldError).optional() })),
    404: answers.notFound,
    ...STORE_ANSWERS,
  },
});
