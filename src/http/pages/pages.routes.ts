/** Contracts of the HTML pages: the merchant dashboard and the payer page behind checkout_url. */
import { z } from 'zod';
import { STORE_ANSWERS, answers, html } from '../contract/answers.js';
import type { HeaderContract } from '../contract/route.js';
import { defineRoute } from '../contract/route.js';
import { paymentTokenView } from '../views.js';

const tag = 'Pages';
const params = z.object({ payment_token: paymentTokenView.meta({ description: 'From checkout_url: the page is reachable by this token alone' }) });
const location: HeaderContract = { description: 'The payer page again (Post/Redirect/Get).', required: true, schema: { type: 'string' } };

export const dashboard = defineRoute({
  method: 'get',
  path: '/',
  summary: 'The merchant dashboard (enter the key once; it stays in the tab)',
  description: 'An HTML page that drives the control API in a browser: payments, clock, faults, journal, webhooks and readiness. The key is typed once and kept in the tab only.',
  tag,
  access: 'open',
  responses: { 200: html('The dashboard.'), 500: answers.internal },
});

export const asset = defineRoute({
  method: 'get',
  path: '/assets/{file}',
  summary: "The dashboard's browser modules (JavaScript), as the build compiled them",
  description: 'The ES modules the dashboard page loads, served from memory as the build wrote them; a name the build did not write answers 404.',
  tag,
  access: 'open',
  request: { params: z.object({ file: z.string().meta({ description: 'A module file name such as dashboard.js' }) }) },
  responses: {
    200: { description: 'The module.', content: { 'text/javascript': { type: 'string' } } },
    404: answers.notFound,
  },
});

export const payerPage = defineRoute({
  method: 'get',
  path: '/pay/{payment_token}',
  summary: 'The payer page: merchant, amount, Pay and Decline',
  description: 'The page checkout_url points to: what the payer sees (merchant, amount, QR) with Pay and Decline buttons. Reachable by the payment token alone, without a key.',
  tag,
  access: 'open',
  request: { params },
  responses: { 200: html('The payer page.'), 404: html('No payment has this token: a page that says so.'), ...STORE_ANSWERS },
});

const payerAction = <A extends string>(action: A, summary: string, description: string) =>
  defineRoute({
    method: 'post',
    path: `/pay/{payment_token}/${action}`,
    summary,
    description,
    tag,
    access: 'open',
    request: { params },
    responses: {
      303: { description: 'Done: back to the payer page.', headers: { Location: location } },
      ...STORE_ANSWERS,
      // 402 and 404 as the default answer: a form post answers 303, and linters want a 2XX or a default.
      default: html('Nothing was done, and the payer page says why: 402 when the payment is no longer payable (paid, expired, failed or voided), 404 when no payment has this token.'),
    },
  });

export const pay = payerAction('pay', 'Payer page: pay (form post, redirects)', "What the Pay button posts: the payment is paid as by the payer's wallet, then the browser is sent back to the payer page (303).");
export const decline = payerAction('decline', 'Payer page: decline (form post, redirects)', "What the Decline button posts: the payment fails (F) as declined by the payer's wallet, then the browser is sent back to the payer page (303).");
