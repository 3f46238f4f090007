/**
 * Who is asking: the socket's address, or, behind n proxies (SANDBOX_TRUST_PROXY=<n>), the n-th
 * X-Forwarded-For entry counted from the right. Each proxy appends the address it was reached
 * from (HAProxy's `option forwardfor`, nginx's `$proxy_add_x_forwarded_for`), so what a client
 * wrote itself stays on the left and is never counted.
 */
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import type { AppEnv } from './context.js';

/** `trustProxy`: how many proxies stand in front (true is one, false none). */
export function clientAddress(c: Context<AppEnv>, trustProxy: number | boolean): string {
  const proxies = Number(trustProxy);
  if (proxies > 0) {
    const forwarded = forwardedClient(c.req.header('x-forwarded-for'), proxies);
    if (forwarded !== undefined) return forwarded;
  }
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    // No socket: an in-process request (sandbox.fetch, app.request).
    return 'in-process';
  }
}

/**
 * The n-th entry from the right of an X-Forwarded-For value (several headers arrive joined by
 * commas). With fewer entries than proxies, the request passed fewer of them: the left-most
 * entry was still written by one of ours, and is nearer the client than the socket (a proxy).
 */
export function forwardedClient(header: string | undefined, proxies: number): string | undefined {
  if (!header) return undefined;
  const entries = header.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  if (entries.length === 0) return undefined;
  return entries[Math.max(0, entries.length - proxies)];
}
