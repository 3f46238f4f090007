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
export function requireApiKey(isRouted: RouteCheck, readOf?: (method: string, path: string) => string | undefined) {
  return createMiddleware<AppEnv>(async (c, next) => {
    try {
      const { merchants } = c.get('services');
      const key = c.req.header('service-api-key');
      // A status read reads its payment with the key: one store call, one round trip on PostgreSQL.
      const id = readOf?.(c.req.method, c.req.path);
      if (id === undefined) c.set('merchant', await merchants.authenticate(key));
      else {
        const { merchant, payment } = await merchants.authenticateRead(key, id);
        c.set('merchant', merchant);
        c.set('keyedRead', { id, payment });
      }
    } catch (err) {
      if (err instanceof SandboxError && !isRouted(c)) return next();
      throw err;
    }
    await next();
  });
}
