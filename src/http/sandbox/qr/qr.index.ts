/** GET /sandbox/v1/qr/{payment_token}, bound to its contract. */
import { Hono } from 'hono';
import { etag } from 'hono/etag';
import type { AppEnv } from '../../context.js';
import { bindRoute } from '../../contract/route.js';
import * as handlers from './qr.handlers.js';
import * as routes from './qr.routes.js';

export function qrImageRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // Hono's etag answers If-None-Match (lists, W/ tags, *) with 304; the handler's own ETag is used as is, nothing is hashed.
  app.use('/qr/*', etag({ retainedHeaders: ['etag', 'cache-control'] }));
  bindRoute(app, routes.image, handlers.image);
  return app;
}
