/** The merchant's sandbox clock: read it, move it forward (running whatever falls due). */
import { Hono } from 'hono';
import type { Context } from 'hono';
import type { Merchant } from '../../domain/merchant.js';
import { readJsonObject, validate } from '../body.js';
import type { AppEnv } from '../context.js';
import { advanceClockSchema } from '../schemas.js';
import { ok } from '../envelope.js';
import { unixSeconds } from '../views.js';

function clockFields(c: Context<AppEnv>, merchant: Merchant): Record<string, unknown> {
  const now = c.get('services').merchants.now(merchant);
  return { now: unixSeconds(now), now_iso: new Date(now).toISOString(), offset_seconds: Math.round(merchant.clockOffsetMs / 1000) };
}

export function clockRoutes(): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  routes.get('/clock', (c) => {
    const merchant = c.get('merchant');
    const fields = clockFields(c, merchant);
    return ok(c, `Sandbox time of this merchant is ${fields.now_iso as string}.`, fields);
  });

  routes.post('/clock/advance', async (c) => {
    const { seconds } = validate(c, advanceClockSchema, await readJsonObject(c));
    const { merchant, changed } = await c.get('services').advanceClock(c.get('merchant'), seconds);
    c.set('merchant', merchant);
    const fields = clockFields(c, merchant);
    return ok(c, `Clock moved forward ${seconds} s to ${fields.now_iso as string}; ${changed} payment${changed === 1 ? '' : 's'} changed.`, { ...fields, changed });
  });

  return routes;
}
