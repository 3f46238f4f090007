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

const force = <A extends string, S extends z.ZodObject>(action: A, summary: string, schema: S) =>
  defineRoute({
    method: 'post',
    path: `/payments/{payment_id}/${action}`,
    summary,
    tag,
    access: 'key',
    request: { params, headers: POST_HEADERS, body: { schema, required: false } },
    responses: { 200: paymentAnswer, 404: answers.notFound, ...POST_ANSWERS },
  });

export const pickup = force('pickup', 'Force pickup: P to W with a generated or given payer', pickupSchema);
export const pay = force('pay', 'Force payment: P or W to A', paySchema);
export const fail = force('fail', 'Force failure: P or W to F', failSchema);
export const expire = force('expire', 'Force expiry: P or W to E', emptySchema);
export const settle = force('settle', 'Settle a paid payment', emptySchema);

export const settleAll = defineRoute({
  method: 'post',
  path: '/settle',
  summary: 'Settle every paid, unsettled payment',
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
    'Filters by status, merchant_ref_no or a search. Pages with cursor: each page answers next_cursor, the page after it; a cursor stays right when payments are created meanwhile. offset still works for the first pages, but not together with cursor.',
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
  description: 'actions lists every action (pickup, pay, fail, expire, settle, cancel, void) with whether the state allows it and, when not, the 402 description it would answer.',
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
  tag,
  access: 'key',
  request: { headers: POST_HEADERS, body: { schema: emptySchema, required: false } },
  responses: { 200: json('How many payments were erased.', okBody({ erased: z.number().int().min(0) })), ...POST_ANSWERS },
});
