import type { Context } from 'hono';
import type { AppEnv } from './context.js';

/** PUBLIC_BASE_URL when set (behind a proxy), else the origin the request came to. */
export function baseUrlOf(c: Context<AppEnv>): string {
  return c.get('services').config.publicBaseUrl ?? new URL(c.req.url).origin;
}
