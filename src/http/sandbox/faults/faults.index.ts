/** Fault rules (/sandbox/v1/faults), bound to their contracts. */
import { Hono } from 'hono';
import type { AppEnv } from '../../context.js';
import { bindRoute } from '../../contract/route.js';
import * as handlers from './faults.handlers.js';
import * as routes from './faults.routes.js';

export function faultRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  bindRoute(app, routes.list, handlers.list);
  bindRoute(app, routes.add, handlers.add);
  bindRoute(app, routes.removeAll, handlers.removeAll);
  bindRoute(app, routes.remove, handlers.remove);
  return app;
}
