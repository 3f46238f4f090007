/** The `payreq-sandbox listen` stream (/sandbox/v1/webhook/stream), bound to its contracts. */
import { Hono } from 'hono';
import type { AppEnv } from '../../context.js';
import { bindRoute } from '../../contract/route.js';
import * as handlers from './webhook-stream.handlers.js';
import * as routes from './webhook-stream.routes.js';

export function webhookStreamRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  bindRoute(app, routes.stream, handlers.stream);
  bindRoute(app, routes.answer, handlers.answer);
  return app;
}
