/** The public API of the interface, bound to its contracts. Served under /openapi/v1 and /v1. */
import { Hono } from 'hono';
import type { AppEnv } from '../../context.js';
import { bindRoute } from '../../contract/route.js';
import { paymentHandlers } from './payments.handlers.js';
import { paymentRoutes } from './payments.routes.js';
import { StatusTexts } from './status-texts.js';

export function publicApi(productTypes: readonly string[]): Hono<AppEnv> {
  const api = new Hono<AppEnv>();
  const routes = paymentRoutes(productTypes);
  const handlers = paymentHandlers(routes, new StatusTexts());
  bindRoute(api, routes.create, handlers.create);
  bindRoute(api, routes.assign, handlers.assign);
  bindRoute(api, routes.cancel, handlers.cancel);
  bindRoute(api, routes.void, handlers.void);
  bindRoute(api, routes.status, handlers.status);
  return api;
}

const STATUS_PATH = /^\/(?:openapi\/)?v1\/payments\/payment\/([^/%]+)$/;

/** The payment id a request reads the status of (GET or HEAD of a public status path), else undefined: auth reads it with the key. */
export function statusReadOf(method: string, path: string): string | undefined {
  return method === 'GET' || method === 'HEAD' ? STATUS_PATH.exec(path)?.[1] : undefined;
}
