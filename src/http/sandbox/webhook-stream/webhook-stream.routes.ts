/** Contracts of the `payreq-sandbox listen` stream (SPEC 22): the Server-Sent Events stream and the listener's answers. */
import { z } from 'zod';
import { BODY_ANSWERS, KEYED_ANSWERS, answers, json, okBody } from '../../contract/answers.js';
import { defineRoute } from '../../contract/route.js';
import { WEBHOOK_EVENT_TYPES } from '../../../domain/webhook-drills.js';
import { HEARTBEAT_MS, MAX_LISTENERS_PER_MERCHANT } from '../../../services/webhook-stream.js';

const tag = 'Sandbox control';

export const streamQuerySchema = z.object({
  events: z
    .string()
    .max(512)
    .refine((v) => v.split(',').every((t) => WEBHOOK_EVENT_TYPES.includes(t.trim())), {
      message: `events must be a comma-separated list of ${WEBHOOK_EVENT_TYPES.join(', ')}`,
    })
    .optional()
    .meta({ description: 'Event types this listener takes, comma-separated (default: every one)' }),
});

export const answerSchema = z.object({
  delivery_id: z.string().min(1).max(64).meta({ description: 'delivery_id of the delivery event answered' }),
  attempt: z.number().int().min(1).max(1000).meta({ description: 'attempt of the delivery event answered' }),
  status: z.number().int().min(100).max(599).nullable().meta({ description: "The local receiver's HTTP status; null when it gave none" }),
  latency_ms: z.number().min(0).max(3_600_000).meta({ description: 'How long the local receiver took' }),
  error: z.string().max(500).nullable().optional().meta({ description: 'Why there is no status (refused, timed out...)' }),
});

export const stream = defineRoute({
  method: 'get',
  path: '/webhook/stream',
  summary: "Stream the merchant's webhook deliveries to payreq-sandbox listen (Server-Sent Events)",
  description:
    'While a listener is connected, each delivery attempt of the merchant goes to it instead of the URL (set or not) and waits for its answer ' +
    '(POST /sandbox/v1/webhook/stream/answers) for the usual 5 s; without a listener deliveries go to the URL, or wait for the next listener when none is set. ' +
    'Events: first `hello` ({payee_id, secret, events, url}: the listener secret that signs what goes to listeners, made the first time; never the URL\'s secret), then one `delivery` per attempt ' +
    '({delivery_id, attempt, event_type, payment_id, headers, body}: the body as signed and the headers a direct delivery carries), and a comment line every ' +
    `${HEARTBEAT_MS / 1000} s. At most ${MAX_LISTENERS_PER_MERCHANT} listeners of a merchant per instance (429 past it); a stream whose reader takes nothing for 30 s is closed.`,
  tag,
  access: 'key',
  request: { query: streamQuerySchema },
  responses: {
    200: { description: 'The event stream, open until the listener leaves.', content: { 'text/event-stream': { type: 'string' } } },
    400: answers.invalid,
    ...KEYED_ANSWERS,
  },
});

export const answer = defineRoute({
  method: 'post',
  path: '/webhook/stream/answers',
  summary: "A listener reports the local receiver's answer to a delivery attempt",
  description:
    'The answer is the attempt\'s: a 2xx delivers it, anything else (or no answer within 5 s of the attempt) is retried with back-off as for a URL. ' +
    'Any instance takes it (on PostgreSQL one the stream is not on passes it to the one that sent the attempt); 404 when no attempt of this ' +
      'merchant waits for it (answered already, or past its 5 s).',
  tag,
  access: 'key',
  request: { body: { schema: answerSchema, required: true } },
  responses: {
    200: json('The answer is the attempt\'s.', okBody({ delivery_id: z.string(), attempt: z.number().int() })),
    404: answers.notFound,
    ...BODY_ANSWERS,
    ...KEYED_ANSWERS,
  },
});
