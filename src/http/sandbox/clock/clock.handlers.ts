/** The clock's handlers: read it, move it forward (running whatever falls due). */
import type { Context } from 'hono';
import type { Merchant } from '../../../domain/merchant.js';
import type { AppEnv } from '../../context.js';
import { bodyOf } from '../../contract/input.js';
import type { RouteHandler } from '../../contract/route.js';
import { ok } from '../../envelope.js';
import { unixSeconds } from '../../views.js';
import * as routes from './clock.routes.js';

function clockFields(c: Context<AppEnv>, merchant: Merchant): Record<string, unknown> {
  const now = c.get('services').merchants.now(merchant);
  return { now: unixSeconds(now), now_iso: new Date(now).toISOString(), offset_seconds: Math.round(merchant.clockOffsetMs / 1000) };
}

export const read: RouteHandler<typeof routes.read, AppEnv> = (c) => {
  const fields = clockFields(c, c.get('merchant'));
  return ok(c, `Sandbox time of this merchant is ${fields.now_iso as string}.`, fields);
};

export const advance: RouteHandler<typeof routes.advance, AppEnv> = async (c) => {
  const { seconds } = await bodyOf(c, routes.advance);
  const { merchant, changed } = await c.get('services').advanceClock(c.get('merchant'), seconds);
  c.set('merchant', merchant);
  const fields = clockFields(c, merchant);
  return ok(c, `Clock moved forward ${seconds} s to ${fields.now_iso as string}; ${changed} payment${changed === 1 ? '' : 's'} changed.`, { ...fields, changed });
};
