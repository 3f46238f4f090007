/** Wires the services of one sandbox instance. */
import { DAY_MS } from '../domain/transitions.js';
import type { Merchant } from '../domain/merchant.js';
import type { Services } from '../http/context.js';
import type { Store } from '../store/store.js';
import { SandboxClock } from './clock.js';
import type { Clock } from './clock.js';
import type { SandboxConfig } from './config.js';
import { FaultRuleService } from './fault-rules.js';
import { RequestJournal } from './journal.js';
import { MerchantService } from './merchants.js';
import { RateLimiter } from './rate-limiter.js';
import { WebhookService } from './webhooks.js';
import type { JsonWriter, WebhookBodyWriter } from './webhooks.js';
import { PaymentService } from './payments.js';
import { QrImageCache } from './qr-images.js';

/** How webhook bodies are written: the HTTP layer's wire format, passed in so services do not import HTTP. */
export interface WireFormat {
  readonly webhookBody: WebhookBodyWriter;
  readonly json: JsonWriter;
}

/** Without the HTTP layer's format (tools and benchmarks), webhooks carry the event alone. */
const PLAIN_WIRE: WireFormat = {
  webhookBody: (_merchant, payment, event, eventId) => ({ event_id: eventId, type: `payment.${event.type}`, payment_id: payment.id, from: event.from, to: event.to }),
  json: (value) => JSON.stringify(value),
};

export function createServices(store: Store, config: SandboxConfig, clock?: Clock, wire: WireFormat = PLAIN_WIRE): Services {
  const sandboxClock = new SandboxClock(clock);
  const merchants = new MerchantService(store, sandboxClock, config);
  const payments = new PaymentService(store, merchants, config);
  const webhooks = new WebhookService(merchants, wire.webhookBody, wire.json, config.webhookRetryDelaysMs, config.webhookPrivateTargets);
  payments.onChange(webhooks.onPaymentChange);
  return {
    config,
    store,
    merchants,
    payments,
    qr: new QrImageCache(),
    faultRules: new FaultRuleService(merchants, sandboxClock, config.seed),
    journal: new RequestJournal(config.journal),
    rateLimiter: new RateLimiter(),
    webhooks,
  };
}

const HOUR_MS = 3_600_000;

/** Deletes final payments created more than `retentionDays` ago on their merchant's clock; answers how many. */
export async function pruneOldPayments(services: Services): Promise<number> {
  const days = services.config.retentionDays;
  if (days <= 0) return 0;
  let pruned = 0;
  for (const payeeId of await services.store.merchantIds()) {
    const merchant = await services.store.merchant(payeeId);
    if (merchant) pruned += await services.store.prunePayments(payeeId, services.merchants.now(merchant) - days * DAY_MS);
  }
  return pruned;
}

/** Runs expiries, delayed payers and settlement cut-offs while nobody calls the API; prunes hourly. */
export function startScheduler(services: Services, everyMs = 1000): () => void {
  let running = false;
  let prunedAt = 0;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      if (Date.now() - prunedAt >= HOUR_MS) {
        prunedAt = Date.now();
        await pruneOldPayments(services);
      }
      for (const payeeId of await services.store.merchantIds()) {
        const merchant = await services.store.merchant(payeeId);
        if (merchant) await services.payments.runDue(merchant);
      }
    } catch (err) {
      console.error('scheduler tick failed:', err instanceof Error ? err.message : err);
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** Moves the merchant's clock forward and applies what falls due; answers the merchant and how many payments changed. */
export async function advanceClock(services: Services, merchant: Merchant, seconds: number): Promise<{ merchant: Merchant; changed: number }> {
  const advanced = await services.merchants.advanceClock(merchant, seconds);
  return { merchant: advanced, changed: await services.payments.runDue(advanced) };
}

/** Erases a merchant's payments, journal and fault rules and resets its clock; its key and settings stay. */
export async function resetMerchant(services: Services, merchant: Merchant): Promise<number> {
  const erased = await services.store.countPayments(merchant.payeeId);
  await services.store.resetMerchant(merchant.payeeId);
  await services.faultRules.remove(merchant);
  services.journal.clear(merchant.payeeId);
  services.webhooks.clear(merchant.payeeId);
  await services.merchants.resetClock(merchant);
  return erased;
}
