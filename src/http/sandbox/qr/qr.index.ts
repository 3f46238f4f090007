/** GET /sandbox/v1/qr/{payment_token}, bound to its contract. */
import { Hono } from 'hono';
import type { AppEnv } from '../../context.js';
import { bindRoute } from '../../contract/route.js';
import * as handlers from './qr.handlers.js';
import * as routes from './qr.routes.js';

export function qrImageRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  bindRoute(app, routes.image, handlers.image);
  return app;
}
