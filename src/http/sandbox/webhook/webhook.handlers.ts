/** The webhook's handlers: settings and drills, the delivery log, replays and test events. */
import type { z } from 'zod';
import { NO_WEBHOOK_FAULTS } from '../../../domain/webhook-drills.js';
import type { WebhookFaults } from '../../../domain/webhook-drills.js';
import type { Delivery } from '../../../services/webhooks.js';
import type { AppEnv } from '../../context.js';
import { bodyOf, queryOf } from '../../contract/input.js';
import type { RouteHandler } from '../../contract/route.js';
import { ok } from '../../envelope.js';
import { RawJson } from '../../json-text.js';
import type { webhookSchema } from '../../schemas.js';
import * as routes from './webhook.routes.js';

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
    // The text as sent, embedded as is: parsed and written again, 100.00 would read 100.
    body: new RawJson(d.body),
  };
}

function faultsView(f: WebhookFaults): Record<string, unknown> {
  return { duplicate: f.duplicate, reorder: f.reorder, delay_seconds: f.delaySeconds };
}

/** The drills in force, as a sentence, or '' when none is. */
function drillsSentence(f: WebhookFaults): string {
  const drills = [
    f.duplicate > 0 ? `each delivery sent twice with probability ${f.duplicate} (same event_id)` : '',
    f.reorder ? 'events of one change sent newest first' : '',
    f.delaySeconds > 0 ? `deliveries held ${f.delaySeconds} sandbox seconds (POST /sandbox/v1/clock/advance releases them)` : '',
  ].filter(Boolean);
  return drills.length > 0 ? ` Drills: ${drills.join('; ')}.` : '';
}

type FaultsInput = NonNullable<z.output<typeof webhookSchema>['faults']>;

/** Absent keeps the drills set before (undefined); null or {} turns them off: a member left out is 0 or false. */
function faultsOf(input: FaultsInput | null | undefined): WebhookFaults | undefined {
  if (input === undefined) return undefined;
  return {
    duplicate: input?.duplicate ?? NO_WEBHOOK_FAULTS.duplicate,
    reorder: input?.reorder ?? NO_WEBHOOK_FAULTS.reorder,
    delaySeconds: input?.delay_seconds ?? NO_WEBHOOK_FAULTS.delaySeconds,
  };
}

const SECRET_SHOWN_ONCE = 'the new secret answered here (shown only now: keep it, your receiver checks each delivery with it)';

function attemptSentence(d: Delivery): string {
  const last = d.attempts.at(-1);
  if (d.state === 'delivered') return `the receiver answered ${last?.status}`;
  const outcome = last === undefined ? 'not sent yet' : last.status === null ? `not delivered (${last.error})` : `the receiver answered ${last.status}`;
  return d.state === 'failed' ? `${outcome}; no retry is left` : `${outcome}; it is retried with back-off (GET /sandbox/v1/webhook/deliveries shows each attempt)`;
}

export const read: RouteHandler<typeof routes.read, AppEnv> = async (c) => {
  const { url, faults } = await c.get('services').webhooks.settings(c.get('merchant'));
  const said = url ? `State changes are POSTed to ${url}.${drillsSentence(faults)}` : 'No webhook URL is set: PUT /sandbox/v1/webhook {"url": "..."} sets one.';
  return ok(c, said, { url, faults: faultsView(faults) });
};

export const set: RouteHandler<typeof routes.set, AppEnv> = async (c) => {
  const input = await bodyOf(c, routes.set);
  const { merchant, secret } = await c.get('services').webhooks.configure(c.get('merchant'), { url: input.url, faults: faultsOf(input.faults) });
  const url = merchant.webhookUrl ?? null;
  const faults = merchant.webhookFaults ?? NO_WEBHOOK_FAULTS;
  const said = url
    ? `Each state change will be POSTed to ${url}, signed in the Sandbox-Signature header with ${secret ? SECRET_SHOWN_ONCE : 'the secret this URL already has (POST /sandbox/v1/webhook/secret makes a new one)'}.${drillsSentence(faults)}`
    : `Webhooks are off: nothing is sent${drillsSentence(faults) ? ' (the drills apply once a URL is set)' : ''}.`;
  return ok(c, said, { url, faults: faultsView(faults), ...(secret ? { secret } : {}) });
};

export const rotateSecret: RouteHandler<typeof routes.rotateSecret, AppEnv> = async (c) => {
  const { merchant, secret } = await c.get('services').webhooks.rotateSecret(c.get('merchant'));
  return ok(c, `Deliveries to ${merchant.webhookUrl} are signed from now on with ${SECRET_SHOWN_ONCE}; the old secret signs nothing.`, {
    url: merchant.webhookUrl,
    secret,
  });
};

export const sendTest: RouteHandler<typeof routes.sendTest, AppEnv> = async (c) => {
  const { type } = await bodyOf(c, routes.sendTest);
  const delivery = await c.get('services').webhooks.sendTest(c.get('merchant'), type);
  return ok(c, `Sample ${delivery.eventType} event ${delivery.eventId} (test: true) sent to ${delivery.url}: ${attemptSentence(delivery)}.`, {
    delivery: deliveryView(delivery),
  });
};

export const deliveries: RouteHandler<typeof routes.deliveries, AppEnv> = async (c) => {
  const { limit } = queryOf(c, routes.deliveries);
  const deliveries = await c.get('services').webhooks.deliveries(c.get('merchant').payeeId, limit);
  return ok(c, `${deliveries.length} webhook deliver${deliveries.length === 1 ? 'y' : 'ies'}, newest first.`, { deliveries: deliveries.map(deliveryView) });
};

export const replay: RouteHandler<typeof routes.replay, AppEnv> = async (c) => {
  const delivery = await c.get('services').webhooks.replay(c.get('merchant').payeeId, c.req.param('delivery_id'));
  return ok(c, `Delivery ${delivery.id} is being sent again to ${delivery.url}.`, { delivery: deliveryView(delivery) });
};
