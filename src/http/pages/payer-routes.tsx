/** GET /sandbox/pay/{token} and its Pay / Decline forms: reachable by the unguessable token alone. */
import { Hono } from 'hono';
import type { Context } from 'hono';
import { SandboxError } from '../../domain/errors.js';
import { PAYMENT_TOKEN_PATTERN } from '../../domain/ids.js';
import type { Merchant } from '../../domain/merchant.js';
import type { Payment } from '../../domain/payment.js';
import type { AppEnv } from '../context.js';
import { bindRoute } from '../contract/route.js';
import { codeOf } from '../errors.js';
import { checkoutUrl, qrImageUrl } from '../views.js';
import { baseUrlOf } from '../base-url.js';
import { basePathOf, sendPage } from './layout.js';
import { NotFoundDocument, PayerDocument } from './payer-page.js';
import type { PageNotice } from './payer-page.js';
import * as routes from './pages.routes.js';

type Found = { payment: Payment; merchant: Merchant };

async function findByToken(c: Context<AppEnv>): Promise<Found | undefined> {
  const token = c.req.param('payment_token') ?? '';
  // A malformed token never reaches the store.
  if (!PAYMENT_TOKEN_PATTERN.test(token)) return undefined;
  return c.get('services').payments.byToken(token);
}

const pagePathOf = (c: Context<AppEnv>, token: string): string => checkoutUrl(basePathOf(c), token);

function renderPayer(c: Context<AppEnv>, found: Found, status = 200, notice?: PageNotice): Promise<Response> {
  const { payment, merchant } = found;
  const now = c.get('services').merchants.now(merchant);
  const imageUrl = qrImageUrl(baseUrlOf(c), payment.token);
  const pagePath = pagePathOf(c, payment.token);
  return sendPage(c, (nonce) => <PayerDocument nonce={nonce} payment={payment} merchant={merchant} now={now} pagePath={pagePath} imageUrl={imageUrl} notice={notice} />, status);
}

const renderNotFound = (c: Context<AppEnv>): Promise<Response> => sendPage(c, (nonce) => <NotFoundDocument nonce={nonce} />, 404);

/** The payer's action through the one transition function; a refusal is shown on the page with its code. */
async function act(c: Context<AppEnv>, action: 'pay' | 'decline'): Promise<Response> {
  const found = await findByToken(c);
  if (!found) return renderNotFound(c);
  const { payments } = c.get('services');
  const { payment, merchant } = found;
  try {
    if (action === 'pay') await payments.pay(merchant, payment.id, {}, 'payer');
    else await payments.fail(merchant, payment.id, 'declined by the payer on the payer page', 'payer');
  } catch (err) {
    if (!(err instanceof SandboxError)) throw err;
    if (err.kind === 'not_found') return renderNotFound(c);
    const current = await payments.byToken(payment.token);
    if (!current) return renderNotFound(c);
    const code = codeOf(err);
    return renderPayer(c, current, code, { code, description: err.description });
  }
  // Post/Redirect/Get: a reload shows the page, it does not pay twice.
  return c.redirect(pagePathOf(c, payment.token), 303);
}

export function payerRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  bindRoute(app, routes.payerPage, async (c) => {
    const found = await findByToken(c);
    return found ? renderPayer(c, found) : renderNotFound(c);
  });
  bindRoute(app, routes.pay, (c) => act(c, 'pay'));
  bindRoute(app, routes.decline, (c) => act(c, 'decline'));

  return app;
}
