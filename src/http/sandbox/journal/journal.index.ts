/** The request journal (/sandbox/v1/requests), bound to its contracts. */
import { Hono } from 'hono';
import type { AppEnv } from '../../context.js';
import { bindRoute } from '../../contract/route.js';
import * as handlers from './journal.handlers.js';
import * as routes from './journal.routes.js';

export function journalRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  bindRoute(app, routes.list, handlers.list);
  bindRoute(app, routes.clear, handlers.clear);
  return app;
}
