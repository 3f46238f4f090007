/** Service-Api-Key authentication: the key decides the merchant, and so everything it can see. */
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../context.js';

export const requireApiKey = createMiddleware<AppEnv>(async (c, next) => {
  const merchant = await c.get('services').merchants.authenticate(c.req.header('service-api-key'));
  c.set('merchant', merchant);
  await next();
});
