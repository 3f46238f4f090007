/** GET /openapi.json, /docs and its assets, bound to their contracts. */
import { Hono } from 'hono';
import type { RouterRoute } from 'hono/types';
import type { AppEnv } from '../context.js';
import { bindRoute } from '../contract/route.js';
import * as handlers from './reference.handlers.js';
import * as routes from './reference.routes.js';

/** `served` gives the routes the document describes: the app's, read when first asked. */
export function referenceRoutes(served: () => readonly RouterRoute[]): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  bindRoute(app, routes.document, handlers.documentHandler(served));
  bindRoute(app, routes.page, handlers.page);
  bindRoute(app, routes.asset, handlers.asset);
  return app;
}
