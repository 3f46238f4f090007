/** Webhook settings and drills, deliveries, replays and test events (/sandbox/v1/webhook), bound to their contracts. */
import { Hono } from 'hono';
import type { AppEnv } from '../../context.js';
import { bindRoute } from '../../contract/route.js';
import * as handlers from './webhook.handlers.js';
import * as routes from './webhook.routes.js';

export function webhookRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  bindRoute(app, routes.read, handlers.read);
  bindRoute(app, routes.set, handlers.set);
  bindRoute(app, routes.rotateSecret, handlers.rotateSecret);
  bindRoute(app, routes.sendTest, handlers.sendTest);
  bindRoute(app, routes.deliveries, handlers.deliveries);
  bindRoute(app, routes.replay, handlers.replay);
  return app;
}
