/** Service-Api-Key authentication: the key decides the merchant, and so everything it can see. */
import type { Context } from 'hono';
import { SandboxError } from '../../domain/errors.js';
import type { Merchant } from '../../domain/merchant.js';
import type { Payment } from '../../domain/payment.js';
import type { AppEnv } from '../context.js';

/** A request the keyed layer let in: its merchant, and a status read's payment read with the key. */
export interface KeyedRequest {
  readonly merchant: Merchant;
  readonly read: { readonly id: string; readonly payment: Payment | undefined } | undefined;
}

/** Set by this module alone, read by the status handler and the record. */
export interface KeyedVariables {
  keyed: KeyedRequest | undefined;
}

/** The merchant the key named (and any payment read with it), or undefined for a request no key let in. */
export function keyedOf(c: Context<AppEnv>): KeyedRequest | undefined {
  return c.get('keyed');
}

/** Whether the request's method and path name a route the app serves. */
export type RouteCheck = (c: Context<AppEnv>) => boolean;

/** Which payment a request reads by its status route, if it is one (read with the key in one store call). */
export type StatusReadOf = (method: string, path: string) => string | undefined;

/**
 * The merchant of the request's key, set on the context. A request without a valid key to an
 * unknown route or with a wrong method is let through unauthenticated (undefined), so it answers
 * 404 or 405 rather than 401, and nothing keyed (journal, rate limit, faults) touches it. The
 * route is looked up only when the key fails, so a valid request pays nothing for it.
 */
export async function authenticate(c: Context<AppEnv>, isRouted: RouteCheck, readOf: StatusReadOf | undefined): Promise<Merchant | undefined> {
  const { merchants } = c.get('services');
  const key = c.req.header('service-api-key');
  try {
    // A status read reads its payment with the key: one store call, one round trip on PostgreSQL.
    const id = readOf?.(c.req.method, c.req.path);
    if (id === undefined) {
      const merchant = await merchants.authenticate(key);
      c.set('merchant', merchant);
      c.set('keyed', { merchant, read: undefined });
      return merchant;
    }
    const { merchant, payment } = await merchants.authenticateRead(key, id);
    c.set('merchant', merchant);
    c.set('keyed', { merchant, read: { id, payment } });
    return merchant;
  } catch (err) {
    if (err instanceof SandboxError && !isRouted(c)) return undefined;
    throw err;
  }
}
