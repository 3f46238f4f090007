/** Service-Api-Key authentication: the key decides the merchant, and so everything it can see. */
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { SandboxError } from '../../domain/errors.js';
import type { AppEnv } from '../context.js';

/** Whether the request's method and path name a route the app serves. */
export type RouteCheck = (c: Context<AppEnv>) => boolean;

/**
 * Authenticates requests to routes that exist. A request without a valid key to an unknown
 * route or with a wrong method passes on unauthenticated, so it answers 404 or 405 rather than
 * 401, and the keyed middleware after this one (journal, rate limit, faults) leaves it alone.
 * The route is looked up only when the key fails, so a valid request pays nothing for it.
 */
export function requireApiKey(isRouted: RouteCheck) {
  return createMiddleware<AppEnv>(async (c, next) => {
    try {
      c.set('merchant', await c.get('services').merchants.authenticate(c.req.header('service-api-key')));
    } catch (err) {
      if (err instanceof SandboxError && !isRouted(c)) return next();
      throw err;
    }
    await next();
  });
}
