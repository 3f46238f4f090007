/** The merchant's requests-per-second limit, over any second (a sliding window): over it, 429 with Retry-After. */
import type { Context } from 'hono';
import { SandboxError } from '../../domain/errors.js';
import type { Merchant } from '../../domain/merchant.js';
import type { AppEnv } from '../context.js';

/** Takes the request's place in the merchant's window (`limit` > 0), or throws the 429. */
export async function limitRate(c: Context<AppEnv>, merchant: Merchant, limit: number): Promise<void> {
  const { store, merchants } = c.get('services');
  const wait = await store.rateWindows.take(`merchant:${merchant.payeeId}`, limit, 1000, merchants.realNow());
  if (wait > 0) {
    throw SandboxError.rateLimited(`Rate limit exceeded: this key may send ${limit} request${limit === 1 ? '' : 's'} per second; retry after ${wait} s (see Retry-After).`, wait);
  }
}
