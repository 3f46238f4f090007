/** Contracts of the webhook settings and drills, the delivery log, replays and test events. */
import { z } from 'zod';
import { MAX_WEBHOOK_DELAY_SECONDS } from '../../../domain/webhook-drills.js';
import { BODY_ANSWERS, KEYED_ANSWERS, answers, json, okBody, requestHeaders } from '../../contract/answers.js';
import { defineRoute } from '../../contract/route.js';
import { deliveriesQuerySchema, webhookSchema, webhookTestSchema } from '../../schemas.js';

const tag = 'Sandbox control';
const url = z.string().nullable().meta({ description: 'Where state changes are POSTed; null is off' });

/** The schema of faultsView: the drills in force, every member present. */
const faultsViewSchema = z
  .object({
    duplicate: z.number().min(0).max(1).meta({ description: 'Probability that a delivery is sent twice, with the same event_id' }),
    reorder: z.boolean().meta({ description: 'Events of one payment that fall due together are sent newest first' }),
    delay_seconds: z.number().int().min(0).max(MAX_WEBHOOK_DELAY_SECONDS).meta({ description: 'Sandbox seconds each delivery is held' }),
  })
  .meta({ id: 'WebhookFaults', description: 'The webhook drills in force (0 and false when off)' });
const secret = z
  .string()
  .regex(/^whsec_[A-Za-z0-9_-]{32}$/)
  .meta({ description: 'The secret that signs deliveries (Sandbox-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>); shown only in the answer that made it' });
const settingsBody = okBody({ url, faults: faultsViewSchema });

/** The schema of deliveryView. */
const deliveryViewSchema = z.object({
  id: z.string(),
  event_id: z.string(),
  event_type: z.string(),
  payment_id: z.string(),
  url: z.string(),
  state: z.enum(['pending', 'delivered', 'failed']),
  created_at: z.string(),
  next_attempt_at: z.string().nullable(),
  attempts: z.array(z.object({ at: z.string(), status: z.number().int().nullable(), error: z.string().nullable(), latency_ms: z.number() })),
  body: z.unknown().meta({ description: 'The JSON body sent; each attempt signs its bytes in the Sandbox-Signature header' }),
}).meta({ id: 'WebhookDelivery' });

export const read = defineRoute({
  method: 'get',
  path: '/webhook',
  summary: 'The webhook URL',
  description: "The URL this merchant's webhook events are delivered to (null when webhooks are off) and its drills (duplicate, reorder, delay). The signing secret is not shown again.",
  tag,
  access: 'key',
  responses: { 200: json('The URL, or null, and the drills in force.', settingsBody), ...KEYED_ANSWERS },
});

export const set = defineRoute({
  method: 'put',
  path: '/webhook',
  summary: 'Set or clear (null) the webhook URL, and the webhook drills',
  description:
    'A URL other than the one set answers a new secret (secret), shown only in this answer; the same URL, faults alone or null keep the secret ' +
    'and do not show it. faults sets the drills: duplicate (each delivery sent twice with this probability, with the same event_id), reorder (events of one payment ' +
    'that fall due together sent newest first), delay_seconds (each delivery held this many sandbox seconds: POST /sandbox/v1/clock/advance ' +
    'releases it). What is left out keeps what was set before (url, faults, or both must be sent); faults null or {} turns the drills off. ' +
    'Anything out of bounds is a 400 and changes nothing.',
  tag,
  access: 'key',
  request: { body: { schema: webhookSchema, required: true } },
  responses: {
    200: json('The URL and the drills now in force, and the secret when this request made one.', settingsBody.extend({ secret: secret.optional() })),
    ...BODY_ANSWERS,
    ...KEYED_ANSWERS,
  },
});

export const rotateSecret = defineRoute({
  method: 'post',
  path: '/webhook/secret',
  summary: 'Make a new webhook secret',
  description:
    'Answers a new secret for the URL set, shown only in this answer; from now on every attempt (retries of earlier deliveries too) is signed ' +
    'with it, and the old one signs nothing. No URL set: 402.',
  tag,
  access: 'key',
  request: { headers: { 'Idempotency-Key': requestHeaders.idempotencyKey } },
  responses: {
    200: json('The URL and its new secret.', okBody({ url: z.string(), secret })),
    400: answers.invalid,
    402: answers.refused,
    413: answers.tooLarge,
    ...KEYED_ANSWERS,
  },
});

export const sendTest = defineRoute({
  method: 'post',
  path: '/webhook/test',
  summary: 'Send a sample event to the webhook URL',
  description:
    'Delivers a sample event of the type given (test: true in the body, a fresh event_id, signed like real ones) to the URL set by PUT /sandbox/v1/webhook, ' +
    'without touching a payment, once and at once whatever the drills, and answers the delivery after its first attempt; later attempts follow ' +
    'the retry schedule. No URL set: 402.',
  tag,
  access: 'key',
  request: { headers: { 'Idempotency-Key': requestHeaders.idempotencyKey }, body: { schema: webhookTestSchema, required: true } },
  responses: {
    200: json('The delivery, after its first attempt.', okBody({ delivery: deliveryViewSchema })),
    402: answers.refused,
    ...BODY_ANSWERS,
    ...KEYED_ANSWERS,
  },
});

export const deliveries = defineRoute({
  method: 'get',
  path: '/webhook/deliveries',
  summary: 'Webhook deliveries, newest first, with their attempts',
  description: "This merchant's webhook deliveries, newest first: the event, the target, the status and every attempt with its answer and time.",
  tag,
  access: 'key',
  request: { query: deliveriesQuerySchema },
  responses: { 200: json('The deliveries.', okBody({ deliveries: z.array(deliveryViewSchema) })), 400: answers.invalid, ...KEYED_ANSWERS },
});

export const replay = defineRoute({
  method: 'post',
  path: '/webhook/deliveries/{delivery_id}/replay',
  summary: 'Send a delivery again',
  description: "Sends a delivered or failed delivery again now, with a fresh series of retries. One still being sent answers 402; an unknown delivery id (or another merchant's) answers 404.",
  tag,
  access: 'key',
  request: { params: z.object({ delivery_id: z.string() }), headers: { 'Idempotency-Key': requestHeaders.idempotencyKey } },
  responses: {
    200: json('The delivery, being sent again.', okBody({ delivery: deliveryViewSchema })),
    400: answers.invalid,
    402: answers.refused,
    404: answers.notFound,
    413: answers.tooLarge,
    ...KEYED_ANSWERS,
  },
});
