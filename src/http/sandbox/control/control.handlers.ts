/** Control handlers: each drives one payment through the transition table, or reads payments. */
import type { Context } from 'hono';
import { SandboxError } from '../../../domain/errors.js';
import type { Payment } from '../../../domain/payment.js';
import { STATUS_MEANINGS } from '../../../domain/payment.js';
import { baseUrlOf } from '../../base-url.js';
import type { AppEnv } from '../../context.js';
import { bodyOf, queryOf } from '../../contract/input.js';
import type { RouteHandler } from '../../contract/route.js';
import { ok } from '../../envelope.js';
import { eventView, sandboxPaymentView } from '../../views.js';
import * as routes from './control.routes.js';
import { actionsOf } from './payment-actions.js';
import { cursorGone, decodeCursor, encodeCursor } from './payment-cursor.js';

function answer(c: Context<AppEnv>, what: string, p: Payment): Response {
  const settled = p.status === 'A' && p.settled ? ', settled' : '';
  return ok(c, `${what}: payment ${p.id} is now ${p.status} (${STATUS_MEANINGS[p.status]}${settled}).`, {
    payment: sandboxPaymentView(p, c.get('merchant'), baseUrlOf(c)),
  });
}

type Handler<R extends keyof typeof routes> = RouteHandler<(typeof routes)[R], AppEnv>;

export const pickup: Handler<'pickup'> = async (c) => {
  const { payer } = await bodyOf(c, routes.pickup);
  const p = await c.get('services').payments.pickup(c.get('merchant'), c.req.param('payment_id'), payer ?? undefined);
  return answer(c, `Picked up by ${p.payer?.id}`, p);
};

export const pay: Handler<'pay'> = async (c) => {
  const input = await bodyOf(c, routes.pay);
  const p = await c.get('services').payments.pay(c.get('merchant'), c.req.param('payment_id'), {
    payer: input.payer ?? undefined,
    paidCurrency: input.paid_currency_code ?? undefined,
  });
  return answer(c, `Paid by ${p.payer?.id}`, p);
};

export const fail: Handler<'fail'> = async (c) => {
  const { reason } = await bodyOf(c, routes.fail);
  const p = await c.get('services').payments.fail(c.get('merchant'), c.req.param('payment_id'), reason ?? undefined);
  return answer(c, 'Failed', p);
};

export const expire: Handler<'expire'> = async (c) => {
  await bodyOf(c, routes.expire);
  const p = await c.get('services').payments.expire(c.get('merchant'), c.req.param('payment_id'));
  return answer(c, 'Expired', p);
};

export const settle: Handler<'settle'> = async (c) => {
  await bodyOf(c, routes.settle);
  const p = await c.get('services').payments.settle(c.get('merchant'), c.req.param('payment_id'));
  return answer(c, 'Settled', p);
};

export const settleAll: Handler<'settleAll'> = async (c) => {
  await bodyOf(c, routes.settleAll);
  const settled = await c.get('services').payments.settleAll(c.get('merchant'));
  return ok(c, `Settled ${settled} paid payment${settled === 1 ? '' : 's'}.`, { settled });
};

export const list: Handler<'list'> = async (c) => {
  const query = queryOf(c, routes.list);
  const merchant = c.get('merchant');
  const { payments } = c.get('services');
  if (query.cursor !== undefined && query.offset > 0) {
    throw SandboxError.invalid('Use cursor or offset, not both: cursor already says where the page starts.', [{ field: 'offset', message: 'not with cursor' }]);
  }
  const after = query.cursor === undefined ? undefined : decodeCursor(merchant.payeeId, query.cursor);
  if (after !== undefined && !(await payments.exists(merchant, after))) throw cursorGone();
  await payments.runDue(merchant);
  // One more than asked says whether there is a next page.
  const page = await payments.list(merchant, {
    limit: query.limit + 1,
    offset: query.offset,
    ...(query.status ? { status: query.status } : {}),
    ...(query.merchant_ref_no ? { merchantRefNo: query.merchant_ref_no } : {}),
    ...(query.search ? { search: query.search } : {}),
    ...(after !== undefined ? { after } : {}),
  });
  const items = page.items.slice(0, query.limit);
  const last = items.at(-1);
  const base = baseUrlOf(c);
  return ok(c, `${page.total} payment${page.total === 1 ? '' : 's'} match; newest first.`, {
    total: page.total,
    limit: query.limit,
    offset: query.offset,
    next_cursor: page.items.length > query.limit && last ? encodeCursor(merchant.payeeId, last.id) : null,
    payments: items.map((p) => sandboxPaymentView(p, merchant, base)),
  });
};

export const get: Handler<'get'> = async (c) => {
  const p = await c.get('services').payments.get(c.get('merchant'), c.req.param('payment_id'));
  return ok(c, `Payment ${p.id} is ${p.status} (${STATUS_MEANINGS[p.status]}).`, {
    payment: sandboxPaymentView(p, c.get('merchant'), baseUrlOf(c)),
    actions: actionsOf(p),
  });
};

export const events: Handler<'events'> = async (c) => {
  const p = await c.get('services').payments.get(c.get('merchant'), c.req.param('payment_id'));
  return ok(c, `${p.history.length} event${p.history.length === 1 ? '' : 's'} of payment ${p.id}, oldest first.`, {
    payment_id: p.id,
    payment_status: p.status,
    settled: p.settled,
    events: p.history.map(eventView),
  });
};

export const reset: Handler<'reset'> = async (c) => {
  await bodyOf(c, routes.reset);
  const erased = await c.get('services').resetMerchant(c.get('merchant'));
  const parts = 'the request journal, the webhook deliveries, the idempotency keys, the readiness evidence and the fault rules';
  const stay = 'the API key, the settings and the webhook URL with its secret stay';
  return ok(c, `Erased ${erased} payment${erased === 1 ? '' : 's'}, ${parts}, and reset the sandbox clock; ${stay}.`, { erased });
};
