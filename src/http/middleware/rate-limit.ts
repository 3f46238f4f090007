/** The merchant's requests-per-second limit, over any second (a sliding window): over it, 429 with Retry-After. */
import { createMiddleware } from 'hono/factory';
import { SandboxError } from '../../domain/errors.js';
import type { AppEnv } from '../context.js';

export const limitRate = createMiddleware<AppEnv>(async (c, next) => {
  const merchant = c.get('merchant');
  const limit = merchant?.settings.rateLimitPerSecond ?? 0;
  if (limit > 0) {
    const { store, merchants } = c.get('services');
    const wait = await store.rateWindows.take(`merchant:${merchant.payeeId}`, limit, 1000, merchants.realNow());
    if (wait > 0) {
      throw SandboxError.rateLimited(`Rate limit exceeded: this key may send ${limit} request${limit === 1 ? '' : 's'} per second; retry after ${wait} s (see Retry-After).`, wait);
    }
  }
  await next();
});
