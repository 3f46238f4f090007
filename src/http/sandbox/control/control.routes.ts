/** Contracts of the control routes that drive a payment through every status, list payments and show their history. */
import { z } from 'zod';
import { BODY_ANSWERS, KEYED_ANSWERS, answers, json, okBody, requestHeaders } from '../../contract/answers.js';
import { defineRoute } from '../../contract/route.js';
import { PAYMENT_ACTION_NAMES } from './payment-actions.js';
import { emptySchema, failSchema, listQuerySchema, paySchema, pickupSchema } from '../../schemas.js';
import { eventViewSchema, paymentIdView, paymentStatusView, sandboxPaymentSchema } from '../../views.js';

const tag = 'Sandbox control';
const params = z.object({ payment_id: paymentIdView });
const POST_HEADERS = { 'Idempotency-Key': requestHeaders.idempotencyKey } as const;
/** A control POST: optional JSON body, idempotent by key, may be refused by the state. */
const POST_ANSWERS = { ...BODY_ANSWERS, ...KEYED_ANSWERS, 402: answers.refused } as const;

const paymentAnswer = json('The payment after the change, with the sandbox-only fields.', okBody({ payment: sandboxPaymentSchema }));

const force = <A extends string, S extends z.ZodObject>(action: A, summary: string, description: string, schema: S) =>
  defineRoute({
    method: 'post',
    path: `/payments/{payment_id}/${action}`,
    summary,
    description,
    tag,
    access: 'key',
    request: { params, headers: POST_HEADERS, body: { schema, required: false } },
    responses: { 200: paymentAnswer, 404: answers.notFound, ...POST_ANSWERS },
  });

export const pickup = force('pickup', 'Force pickup: P to W with a generated or given payer', "Plays the payer's wallet picking the payment up: P becomes W with the payer given, or one generated from the sandbox's seed.", pickupSchema);
export const pay = force('pay', 'Force payment: P or W to A', 'Plays the payer paying: status A with payment_date, payer (generated when none), source, fee and, with paid_currency_code, a converted paid amount.', paySchema);
export const fail = force('fail', 'Force failure: P or W to F', "Plays the payer's wallet declining: status F, with the reason given kept in the history.", failSchema);
export const expire = force('expire', 'Force expiry: P or W to E', 'Expires the payment now, as its time-to-live passing on the sandbox clock would: status E.', emptySchema);
export const settle = force('settle', 'Settle a paid payment', 'Settles one paid payment now, as the daily cut-off would: it stays A, is marked settled, and can no longer be voided.', emptySchema);

export const settleAll = defineRoute({
  method: 'post',
  path: '/settle',
  summary: 'Settle every paid, unsettled payment',
  description: 'Settles, at once, every payment of this merchant in status A that is not settled yet, as the daily cut-off would; settled payments can no longer be voided. Answers how many were settled.',
  tag,
  access: 'key',
  request: { headers: POST_HEADERS, body: { schema: emptySchema, required: false } },
  responses: { 200: json('How many were settled.', okBody({ settled: z.number().int().min(0) })), ...POST_ANSWERS },
});

export const list = defineRoute({
  method: 'get',
  path: '/payments',
  summary: 'List payments, newest first',
  description:
    "This merchant's payments, newest first, with the sandbox-only fields. Filters by status, merchant_ref_no or a search (payment_id, part of merchant_ref_no, payer). Pages with cursor: each page answers next_cursor, the page after it; a cursor stays right when payments are created meanwhile. offset still works for the first pages, but not together with cursor. total counts every payment the filters match.",
  tag,
  access: 'key',
  request: { query: listQuerySchema },
  responses: {
    200: json(
      'One page of payments.',
      okBody({
        total: z.number().int().min(0).meta({ description: 'Every payment that matches the filters, on all pages' }),
        limit: z.number().int(),
        offset: z.number().int(),
        next_cursor: z.string().nullable().meta({ description: 'Pass as cursor for the next page (older payments); null on the last page' }),
        payments: z.array(sandboxPaymentSchema),
      }),
    ),
    400: answers.invalid,
    ...KEYED_ANSWERS,
  },
});

export const get = defineRoute({
  method: 'get',
  path: '/payments/{payment_id}',
  summary: 'A payment with sandbox-only fields (settled, token, qr_data)',
  description:
    "One payment of this merchant with what the public status leaves out: whether it is settled, its payment_token and its qr_data. actions lists every action (pickup, pay, fail, expire, settle, cancel, void) with whether the state allows it and, when not, the 402 description it would answer. Another merchant's payment_id answers 404.",
  tag,
  access: 'key',
  request: { params },
  responses: {
    200: json(
      'The payment, and the actions its state allows.',
      okBody({
        payment: sandboxPaymentSchema,
        actions: z.array(
          z.object({
            action: z.enum(PAYMENT_ACTION_NAMES),
            allowed: z.boolean(),
            refusal: z.string().nullable().meta({ description: 'Why not (the description of the 402 it would answer); null when allowed' }),
          }),
        ),
      }),
    ),
    404: answers.notFound,
    ...KEYED_ANSWERS,
  },
});

export const events = defineRoute({
  method: 'get',
  path: '/payments/{payment_id}/events',
  summary: 'The history of a payment, oldest first',
  description: 'Every transition of the payment, oldest first, each as {type, from, to, at, reason, actor}, with its current status and whether it is settled.',
  tag,
  access: 'key',
  request: { params },
  responses: {
    200: json('The events.', okBody({ payment_id: paymentIdView, payment_status: paymentStatusView, settled: z.boolean(), events: z.array(eventViewSchema) })),
    404: answers.notFound,
    ...KEYED_ANSWERS,
  },
});

export const reset = defineRoute({
  method: 'post',
  path: '/reset',
  summary: "Erase this merchant's payments, journal and fault rules; reset its clock",
  description: 'Starts this merchant over without a restart: its payments, request journal, fault rules, webhook deliveries and idempotency keys are erased and its clock is reset. Its API key and settings stay; other merchants are untouched.',
  tag,
  access: 'key',
  request: { headers: POST_HEADERS, body: { schema: emptySchema, required: false } },
  responses: { 200: json('How many payments were erased.', okBody({ erased: z.number().int().min(0) })), ...POST_ANSWERS },
});
