/** The merchant's sandbox clock (/sandbox/v1/clock), bound to its contracts. */
import { Hono } from 'hono';
import type { AppEnv } from '../../context.js';
import { bindRoute } from '../../contract/route.js';
import * as handlers from './clock.handlers.js';
import * as routes from './clock.routes.js';

export function clockRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  bindRoute(app, routes.read, handlers.read);
  bindRoute(app, routes.advance, handlers.advance);
  return app;
}
