import type { Context } from 'hono';
import type { AppEnv } from './context.js';

/** Origins of the request URLs seen (one per Host a client uses), so a URL is parsed once. */
const origins = new Map<string, string>();
const ORIGINS_KEPT = 64;

/** PUBLIC_BASE_URL when set (behind a proxy), else the origin the request came to. */
export function baseUrlOf(c: Context<AppEnv>): string {
  const configured = c.get('services').config.publicBaseUrl;
  if (configured !== undefined) return configured;
  const url = c.req.url;
  // The origin is everything before the path: up to the first "/" after "scheme://".
  const head = url.slice(0, url.indexOf('/', url.indexOf('//') + 2) >>> 0);
  let origin = origins.get(head);
  if (origin === undefined) {
    origin = new URL(url).origin;
    if (origins.size >= ORIGINS_KEPT) origins.clear();
    origins.set(head, origin);
  }
  return origin;
}
