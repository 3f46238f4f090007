/** Webhook settings, the delivery log and replays. */
import { Hono } from 'hono';
import type { Delivery } from '../../services/webhooks.js';
import { readJsonObject, validate, validateQuery } from '../body.js';
import type { AppEnv } from '../context.js';
import { ok } from '../envelope.js';
import { deliveriesQuerySchema, webhookSchema } from '../schemas.js';

function deliveryView(d: Delivery): Record<string, unknown> {
  return {
    id: d.id,
    event_id: d.eventId,
    event_type: d.eventType,
    payment_id: d.paymentId,
    url: d.url,
    state: d.state,
    created_at: new Date(d.createdAt).toISOString(),
    next_attempt_at: d.nextAttemptAt === null ? null : new Date(d.nextAttemptAt).toISOString(),
    attempts: d.attempts.map((a) => ({ at: new Date(a.at).toISOString(), status: a.status, error: a.error, latency_ms: a.latencyMs })),
    body: JSON.parse(d.body) as unknown,
  };
}

export function webhookRoutes(): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  routes.get('/webhook', async (c) => {
    const url = await c.get('services').webhooks.url(c.get('merchant'));
    return ok(c, url ? `State changes are POSTed to ${url}.` : 'No webhook URL is set: PUT /sandbox/v1/webhook {"url": "..."} sets one.', { url });
  });

  routes.put('/webhook', async (c) => {
    const { url } = validate(c, webhookSchema, await readJsonObject(c));
    await c.get('services').webhooks.setUrl(c.get('merchant'), url);
    return ok(c, url ? `Each state change will be POSTed to ${url}, signed like requests (sign_type SHA512, sign).` : 'Webhooks turned off.', { url });
  });

  routes.get('/webhook/deliveries', async (c) => {
    const { limit } = validateQuery(deliveriesQuerySchema, c.req.query());
    const deliveries = await c.get('services').webhooks.deliveries(c.get('merchant').payeeId, limit);
    return ok(c, `${deliveries.length} webhook deliver${deliveries.length === 1 ? 'y' : 'ies'}, newest first.`, { deliveries: deliveries.map(deliveryView) });
  });

  routes.post('/webhook/deliveries/:delivery_id/replay', async (c) => {
    const delivery = await c.get('services').webhooks.replay(c.get('merchant').payeeId, c.req.param('delivery_id'));
    return ok(c, `Delivery ${delivery.id} is being sent again to ${delivery.url}.`, { delivery: deliveryView(delivery) });
  });

  return routes;
}
