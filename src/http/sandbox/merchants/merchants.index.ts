/** Enrolment and the key's own merchant (/sandbox/v1/merchants, /sandbox/v1/merchant), bound to their contracts. */
import { Hono } from 'hono';
import type { AppEnv } from '../../context.js';
import { bindRoute } from '../../contract/route.js';
import * as handlers from './merchants.handlers.js';
import * as routes from './merchants.routes.js';

/** Mounted before the keyed middleware: enrolment needs no key, and a deletion journaled by it would write an entry for the merchant just deleted. */
export function merchantRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  bindRoute(app, routes.enroll, handlers.enroll);
  bindRoute(app, routes.deleteOwnMerchant, handlers.deleteOwnMerchant);
  return app;
}

/** Behind the keyed middleware. */
export function ownMerchantRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  bindRoute(app, routes.ownMerchant, handlers.ownMerchant);
  return app;
}
