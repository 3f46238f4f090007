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
  tag,
  access: 'open',
  responses: { 200: html('The dashboard.'), 500: answers.internal },
});

export const asset = defineRoute({
  method: 'get',
  path: '/assets/{file}',
  summary: "The dashboard's browser modules (JavaScript), as the build compiled them",
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
  tag,
  access: 'open',
  request: { params },
  responses: { 200: html('The payer page.'), 404: html('No payment has this token: a page that says so.'), ...STORE_ANSWERS },
});

const payerAction = <A extends string>(action: A, summary: string) =>
  defineRoute({
    method: 'post',
    path: `/pay/{payment_token}/${action}`,
    summary,
    tag,
    access: 'open',
    request: { params },
    responses: {
      303: { description: 'Done: back to the payer page.', headers: { Location: location } },
      402: html('The payment is no longer payable (paid, expired, failed or voided): the page shows why.'),
      404: html('No payment has this token: a page that says so.'),
      ...STORE_ANSWERS,
    },
  });

export const pay = payerAction('pay', 'Payer page: pay (form post, redirects)');
export const decline = payerAction('decline', 'Payer page: decline (form post, redirects)');
