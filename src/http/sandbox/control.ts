/** Control routes that drive a payment through every status, list payments and show their history. */
import { Hono } from 'hono';
import type { Context } from 'hono';
import type { Payment } from '../../domain/payment.js';
import { STATUS_MEANINGS } from '../../domain/payment.js';
import { baseUrlOf } from '../base-url.js';
import { readJsonObject, validate, validateQuery } from '../body.js';
import type { AppEnv } from '../context.js';
import { ok } from '../envelope.js';
import { emptySchema, failSchema, listQuerySchema, paySchema, pickupSchema } from '../schemas.js';
import { eventView, sandboxPaymentView } from '../views.js';

function answer(c: Context<AppEnv>, what: string, p: Payment): Response {
  const settled = p.status === 'A' && p.settled ? ', settled' : '';
  return ok(c, `${what}: payment ${p.id} is now ${p.status} (${STATUS_MEANINGS[p.status]}${settled}).`, {
    payment: sandboxPaymentView(p, c.get('merchant'), baseUrlOf(c)),
  });
}

export function controlRoutes(): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  routes.post('/payments/:payment_id/pickup', async (c) => {
    const { payer } = validate(c, pickupSchema, await readJsonObject(c, true));
    const p = await c.get('services').payments.pickup(c.get('merchant'), c.req.param('payment_id'), payer ?? undefined);
    return answer(c, `Picked up by ${p.payer?.id}`, p);
  });

  routes.post('/payments/:payment_id/pay', async (c) => {
    const input = validate(c, paySchema, await readJsonObject(c, true));
    const p = await c.get('services').payments.pay(c.get('merchant'), c.req.param('payment_id'), {
      payer: input.payer ?? undefined,
      paidCurrency: input.paid_currency_code ?? undefined,
    });
    return answer(c, `Paid by ${p.payer?.id}`, p);
  });

  routes.post('/payments/:payment_id/fail', async (c) => {
    const { reason } = validate(c, failSchema, await readJsonObject(c, true));
    const p = await c.get('services').payments.fail(c.get('merchant'), c.req.param('payment_id'), reason ?? undefined);
    return answer(c, 'Failed', p);
  });

  routes.post('/payments/:payment_id/expire', async (c) => {
    validate(c, emptySchema, await readJsonObject(c, true));
    const p = await c.get('services').payments.expire(c.get('merchant'), c.req.param('payment_id'));
    return answer(c, 'Expired', p);
  });

  routes.post('/payments/:payment_id/settle', async (c) => {
    validate(c, emptySchema, await readJsonObject(c, true));
    const p = await c.get('services').payments.settle(c.get('merchant'), c.req.param('payment_id'));
    return answer(c, 'Settled', p);
  });

  routes.post('/settle', async (c) => {
    validate(c, emptySchema, await readJsonObject(c, true));
    const settled = await c.get('services').payments.settleAll(c.get('merchant'));
    return ok(c, `Settled ${settled} paid payment${settled === 1 ? '' : 's'}.`, { settled });
  });

  routes.get('/payments', async (c) => {
    const query = validateQuery(listQuerySchema, c.req.query());
    const merchant = c.get('merchant');
    const { payments } = c.get('services');
    await payments.runDue(merchant);
    const page = await payments.list(merchant, {
      limit: query.limit,
      offset: query.offset,
      ...(query.status ? { status: query.status } : {}),
      ...(query.merchant_ref_no ? { merchantRefNo: query.merchant_ref_no } : {}),
    });
    const base = baseUrlOf(c);
    return ok(c, `${page.total} payment${page.total === 1 ? '' : 's'} match; newest first.`, {
      total: page.total,
      limit: query.limit,
      offset: query.offset,
      payments: page.items.map((p) => sandboxPaymentView(p, merchant, base)),
    });
  });

  routes.get('/payments/:payment_id', async (c) => {
    const p = await c.get('services').payments.get(c.get('merchant'), c.req.param('payment_id'));
    return ok(c, `Payment ${p.id} is ${p.status} (${STATUS_MEANINGS[p.status]}).`, { payment: sandboxPaymentView(p, c.get('merchant'), baseUrlOf(c)) });
  });

  routes.get('/payments/:payment_id/events', async (c) => {
    const p = await c.get('services').payments.get(c.get('merchant'), c.req.param('payment_id'));
    return ok(c, `${p.history.length} event${p.history.length === 1 ? '' : 's'} of payment ${p.id}, oldest first.`, {
      payment_id: p.id,
      payment_status: p.status,
      settled: p.settled,
      events: p.history.map(eventView),
    });
  });

  routes.post('/reset', async (c) => {
    validate(c, emptySchema, await readJsonObject(c, true));
    const erased = await c.get('services').resetMerchant(c.get('merchant'));
    return ok(c, `Erased ${erased} payment${erased === 1 ? '' : 's'}, the request journal and the fault rules, and reset the sandbox clock; the API key and settings stay.`, {
      erased,
    });
  });

  return routes;
}
