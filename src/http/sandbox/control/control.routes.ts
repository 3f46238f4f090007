/** Contracts of the control routes that drive a payment through every status, list payments and show their history. */
import { z } from 'zod';
import { BODY_ANSWERS, KEYED_ANSWERS, answers, json, okBody, requestHeaders } from '../../contract/answers.js';
import { defineRoute } from '../../contract/route.js';
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
  tag,
  access: 'key',
  request: { query: listQuerySchema },
  responses: {
    200: json(
      'One page of payments.',
      okBody({ total: z.number().int().min(0), limit: z.number().int(), offset: z.number().int(), payments: z.array(sandboxPaymentSchema) }),
    ),
    400: answers.invalid,
    ...KEYED_ANSWERS,
  },
});

export const get = defineRoute({
  method: 'get',
  path: '/payments/{payment_id}',
  summary: 'A payment with sandbox-only fields (settled, token, qr_data)',
  tag,
  access: 'key',
  request: { params },
  responses: { 200: json('The payment.', okBody({ payment: sandboxPaymentSchema })), 404: answers.notFound, ...KEYED_ANSWERS },
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
