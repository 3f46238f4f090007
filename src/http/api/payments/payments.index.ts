/** The public API of the interface, bound to its contracts. Served under /openapi/v1 and /v1. */
import { Hono } from 'hono';
import type { AppEnv } from '../../context.js';
import { bindRoute } from '../../contract/route.js';
import { paymentHandlers } from './payments.handlers.js';
import { paymentRoutes } from './payments.routes.js';

export function publicApi(productTypes: readonly string[]): Hono<AppEnv> {
  const api = new Hono<AppEnv>();
  const routes = paymentRoutes(productTypes);
  const handlers = paymentHandlers(routes);
  bindRoute(api, routes.create, handlers.create);
  bindRoute(api, routes.assign, handlers.assign);
  bindRoute(api, routes.cancel, handlers.cancel);
  bindRoute(api, routes.void, handlers.void);
  bindRoute(api, routes.status, handlers.status);
  return api;
}
