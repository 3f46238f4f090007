/** The `payreq-sandbox listen` stream's handlers: open the stream, take the listener's answers. */
import { SandboxError } from '../../../domain/errors.js';
import type { AppEnv } from '../../context.js';
import { bodyOf, queryOf } from '../../contract/input.js';
import type { RouteHandler } from '../../contract/route.js';
import { ok } from '../../envelope.js';
import * as routes from './webhook-stream.routes.js';

// No buffering by a proxy in between: each event is wanted at once.
const STREAM_HEADERS = { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-transform', 'X-Accel-Buffering': 'no' };

export const stream: RouteHandler<typeof routes.stream, AppEnv> = async (c) => {
  const { events } = queryOf(c, routes.stream);
  // HEAD asks for the headers alone: no listener is connected by it.
  if (c.req.method === 'HEAD') return new Response(null, { status: 200, headers: STREAM_HEADERS });
  const types = events === undefined ? null : new Set(events.split(',').map((t) => t.trim()));
  const { webhooks, drain } = c.get('services');
  // A stopping instance ends its streams rather than hold its stop for them.
  const { stream } = await webhooks.listen(c.get('merchant'), types, () => drain.reason !== undefined);
  return new Response(stream.body, { status: 200, headers: STREAM_HEADERS });
};

export const answer: RouteHandler<typeof routes.answer, AppEnv> = async (c) => {
  const input = await bodyOf(c, routes.answer);
  const { delivery_id: id, attempt, status } = input;
  const { webhooks, merchants } = c.get('services');
  const answer = { status, error: input.error ?? null, latencyMs: input.latency_ms };
  const taken = await webhooks.listeners.take(c.get('merchant').payeeId, id, attempt, answer, merchants.realNow());
  const shown = JSON.stringify(id);
  if (!taken) {
    throw SandboxError.notFound(
      `No attempt ${attempt} of delivery ${shown} waits for an answer: it was answered already, or its 5 s passed (it counts as a timeout and is retried).`,
    );
  }
  const outcome = status === null ? `not answered (${input.error ?? 'no status'})` : `answered ${status}`;
  const where = taken === 'passed' ? ', passed on to the instance that sent it' : '';
  return ok(c, `Attempt ${attempt} of delivery ${shown} is recorded as ${outcome}${where}.`, { delivery_id: id, attempt });
};
