/** Service-Api-Key authentication: the key decides the merchant, and so everything it can see. */
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../context.js';

export type RouteCheck = (method: string, path: string) => boolean;

/**
 * Authenticates requests to routes that exist. An unknown route or a wrong method passes on
 * unauthenticated, so it answers 404 or 405 rather than 401, and the keyed middleware after
 * this one (journal, rate limit, faults) leaves it alone.
 */
export function requireApiKey(isRouted: RouteCheck) {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (!isRouted(c.req.method, c.req.path)) return next();
    const merchant = await c.get('services').merchants.authenticate(c.req.header('service-api-key'));
    c.set('merchant', merchant);
    await next();
  });
}
