/** Control routes of payments (/sandbox/v1), bound to their contracts. */
import { Hono } from 'hono';
import type { AppEnv } from '../../context.js';
import { bindRoute } from '../../contract/route.js';
import * as handlers from './control.handlers.js';
import * as routes from './control.routes.js';

export function controlRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  bindRoute(app, routes.pickup, handlers.pickup);
  bindRoute(app, routes.pay, handlers.pay);
  bindRoute(app, routes.fail, handlers.fail);
  bindRoute(app, routes.expire, handlers.expire);
  bindRoute(app, routes.settle, handlers.settle);
  bindRoute(app, routes.settleAll, handlers.settleAll);
  bindRoute(app, routes.list, handlers.list);
  bindRoute(app, routes.get, handlers.get);
  bindRoute(app, routes.events, handlers.events);
  bindRoute(app, routes.reset, handlers.reset);
  return app;
}
