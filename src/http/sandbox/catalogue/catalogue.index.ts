/** Catalogues (codes, magic values, the QR images), open to anyone, and the keyed signature tool. */
import { Hono } from 'hono';
import type { AppEnv } from '../../context.js';
import { bindRoute } from '../../contract/route.js';
import { qrImageRoutes } from '../qr/qr.index.js';
import * as handlers from './catalogue.handlers.js';
import * as routes from './catalogue.routes.js';

/** Routes that need no key: static catalogues and QR images reachable by their token. */
export function openCatalogueRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  bindRoute(app, routes.codes, handlers.codes);
  bindRoute(app, routes.magic, handlers.magic);
  app.route('/', qrImageRoutes());
  return app;
}

export function keyedCatalogueRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  bindRoute(app, routes.sign, handlers.sign);
  return app;
}
