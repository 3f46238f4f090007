/** The go-live readiness report (/sandbox/v1/readiness), bound to its contract. */
import { Hono } from 'hono';
import type { AppEnv } from '../../context.js';
import { bindRoute } from '../../contract/route.js';
import * as handlers from './readiness.handlers.js';
import * as routes from './readiness.routes.js';

export function readinessRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  bindRoute(app, routes.report, handlers.report);
  bindRoute(app, routes.junit, handlers.junit);
  return app;
}
