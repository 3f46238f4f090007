/**
 * Contracts of the webhook settings, the delivery log and replays. The handlers are in
 * webhook.ts, given these contracts by webhookRoutesDescribed (the webhook drills are landing there).
 */
import { z } from 'zod';
import type { Hono } from 'hono';
import { BODY_ANSWERS, KEYED_ANSWERS, answers, json, okBody, requestHeaders } from '../contract/answers.js';
import { defineRoute, describeRegistered } from '../contract/route.js';
import type { AppEnv } from '../context.js';
import { deliveriesQuerySchema, webhookSchema } from '../schemas.js';
import { webhookRoutes } from './webhook.js';

const tag = 'Sandbox control';
const url = z.string().nullable().meta({ description: 'Where state changes are POSTed; null is off' });

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
  body: z.unknown().meta({ description: 'The JSON body sent (signed with sign_type and sign)' }),
}).meta({ id: 'WebhookDelivery' });

export const read = defineRoute({
  method: 'get',
  path: '/webhook',
  summary: 'The webhook URL',
  tag,
  access: 'key',
  responses: { 200: json('The URL, or null.', okBody({ url })), ...KEYED_ANSWERS },
});

export const set = defineRoute({
  method: 'put',
  path: '/webhook',
  summary: 'Set or clear (null) the webhook URL',
  tag,
  access: 'key',
  request: { body: { schema: webhookSchema, required: true } },
  responses: { 200: json('The URL now in force.', okBody({ url })), ...BODY_ANSWERS, ...KEYED_ANSWERS },
});

export const deliveries = defineRoute({
  method: 'get',
  path: '/webhook/deliveries',
  summary: 'Webhook deliveries, newest first, with their attempts',
  tag,
  access: 'key',
  request: { query: deliveriesQuerySchema },
  responses: { 200: json('The deliveries.', okBody({ deliveries: z.array(deliveryViewSchema) })), 400: answers.invalid, ...KEYED_ANSWERS },
});

export const replay = defineRoute({
  method: 'post',
  path: '/webhook/deliveries/{delivery_id}/replay',
  summary: 'Send a delivery again',
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

export function webhookRoutesDescribed(): Hono<AppEnv> {
  const app = webhookRoutes();
  for (const route of [read, set, deliveries, replay]) describeRegistered(app, route);
  return app;
}
