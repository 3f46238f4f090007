/** Wires the services of one sandbox instance. */
import { DAY_MS } from '../domain/transitions.js';
import type { Merchant } from '../domain/merchant.js';
import type { IdempotencyKeys } from '../store/idempotency-keys.js';
import type { Store } from '../store/store.js';
import { StoreUnavailableError } from '../store/unavailable.js';
import { SandboxClock } from './clock.js';
import type { Clock } from './clock.js';
import type { SandboxConfig } from './config.js';
import { BodyBudget } from './body-budget.js';
import { CostlyWorkBudget } from './costly-work.js';
import { STREAM_TIMING } from './webhook-stream.js';
import { FaultRuleService } from './fault-rules.js';
import { HeldRequests } from './held-requests.js';
import { RequestJournal } from './journal.js';
import { ReadinessEvidence } from './readiness.js';
import { MerchantService } from './merchants.js';
import { WebhookService } from './webhooks.js';
import type { JsonWriter, WebhookBodyWriter } from './webhooks.js';
import { PaymentService } from './payments.js';
import { PeopleGenerator } from './people.js';
import { DrainState } from './drain-state.js';
import { QrImageCache } from './qr-images.js';
import type { SandboxMetrics } from './metrics.js';
import { errorFields, loggerOr } from '../logger.js';
import type { Logger } from '../logger.js';

/** Everything one sandbox instance runs on; the HTTP layer reaches it through the context. */
export interface Services {
  readonly config: SandboxConfig;
  /** One JSON line per request; undefined writes none (the library's default, SANDBOX_LOG=off). */
  readonly log: Logger | undefined;
  /** What an operator should see (failures, outages, repairs): `log` when given, else JSON lines on stderr (loggerOr). */
  readonly logger: Logger;
  /** Undefined when SANDBOX_METRICS=off. */
  readonly metrics: SandboxMetrics | undefined;
  readonly store: Store;
  readonly merchants: MerchantService;
  readonly payments: PaymentService;
  readonly qr: QrImageCache;
  readonly faultRules: FaultRuleService;
  /** Requests held by latency and timeout faults, per merchant on this instance (capped). */
  readonly held: HeldRequests;
  /** Bytes of request bodies per merchant per second on this instance (capped). */
  readonly bodyBudget: BodyBudget;
  /** The instance's CPU budget for costly work (signature hints, did-you-mean suggestions), shared fairly by merchants. */
  readonly costlyWork: CostlyWorkBudget;
  readonly journal: RequestJournal;
  readonly webhooks: WebhookService;
  /** Idempotency keys: the store's (a reset erases them with the rest). */
  readonly idempotency: IdempotencyKeys;
  /** Records the readiness report's evidence as requests are answered (the journal middleware calls it). */
  readonly readiness: ReadinessEvidence;
  /** Whether this instance drains (GET /readyz answers 503 then); the server's stop starts it. */
  readonly drain: DrainState;
  /** Moves the merchant's clock forward and applies what falls due; answers the merchant and how many payments had work due by the new time. */
  advanceClock(merchant: Merchant, seconds: number): Promise<{ merchant: Merchant; changed: number }>;
  /** Erases a merchant's payments, journal, fault rules and deliveries and resets its clock; its key and settings stay. Answers how many payments went. */
  resetMerchant(merchant: Merchant): Promise<number>;
}

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

/** What a sandbox reports through: its logger and metrics (both optional). */
export interface Observability {
  /** Request lines and every event an operator should see; without it, the events alone go to stderr. */
  readonly log?: Logger | undefined;
  readonly metrics?: SandboxMetrics | undefined;
}

export function createServices(store: Store, config: SandboxConfig, clock?: Clock, wire: WireFormat = PLAIN_WIRE, observe: Observability = {}): Services {
  const { log, metrics } = observe;
  const logger = loggerOr(log);
  const sandboxClock = new SandboxClock(clock);
  // Names and payers drawn from this sandbox's own generator: another sandbox's calls do not move its sequence.
  const people = new PeopleGenerator(config.seed);
  const merchants = new MerchantService(store, sandboxClock, config, people);
  const webhooks = new WebhookService(merchants, store.deliveries, wire.webhookBody, wire.json, config.webhookRetryDelaysMs, config.seed, config.webhookPrivateTargets, metrics, {
    ...STREAM_TIMING,
    heartbeatMs: config.streamHeartbeatMs,
  }, logger);
  // One per instance, hints and suggestions alike; on real time whatever the sandbox's clock, as CPU is spent in real time.
  const costlyWork = new CostlyWorkBudget(() => performance.now());
  const payments = new PaymentService(store, merchants, config, people, webhooks.deliveriesFor, metrics, costlyWork);
  payments.onChange(webhooks.onPaymentChange);
  if (metrics) payments.onChange((_merchant, _payment, events) => metrics.countEvents(events));
  const faultRules = new FaultRuleService(merchants, sandboxClock, config.seed);
  const journal = new RequestJournal(store.journal, config.journal);
  const idempotency = store.idempotency;
  return {
    config,
    log,
    logger,
    metrics,
    store,
    merchants,
    payments,
    qr: new QrImageCache(),
    faultRules,
    held: new HeldRequests(() => sandboxClock.real()),
    bodyBudget: new BodyBudget(config.bodyBytesPerSecond, () => sandboxClock.real()),
    costlyWork,
    journal,
    webhooks,
    idempotency,
    readiness: new ReadinessEvidence(store.readiness),
    drain: new DrainState(),
    async advanceClock(merchant, seconds) {
      // Counted before the clock moves: the background scheduler (of any instance) may apply some
      // of this work before runDue below does, and the answer must not depend on who was first.
      const current = await merchants.current(merchant);
      const due = await store.countDue(current.payeeId, merchants.now(current) + seconds * 1000, current.settings.autoSettle);
      const writtenBy = sandboxClock.real();
      const advanced = await merchants.advanceClock(merchant, seconds);
      await webhooks.clockAdvanced(advanced, seconds, writtenBy);
      await payments.runDue(advanced);
      return { merchant: advanced, changed: due };
    },
    resetMerchant(merchant) {
      return store.resetMerchant(merchant.payeeId);
    },
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

/** Runs expiries, delayed payers and settlement cut-offs while nobody calls the API; prunes and deletes idle merchants hourly. */
export function startScheduler(services: Services, everyMs = 1000): () => void {
  let running = false;
  let prunedAt = 0;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      if (services.merchants.realNow() - prunedAt >= HOUR_MS) {
        prunedAt = services.merchants.realNow();
        await pruneOldPayments(services);
        const idle = await services.merchants.deleteIdle();
        if (idle.length > 0) services.logger.info({ payee_ids: idle }, `deleted ${idle.length} merchant(s) idle for ${services.config.merchantIdleDays} days`);
      }
      for (const payeeId of await services.store.merchantsWithDueWork(services.merchants.realNow())) {
        const merchant = await services.store.merchant(payeeId);
        if (merchant) await services.payments.runDue(merchant);
      }
    } catch (err) {
      // The store says once when its database goes away and comes back; a tick need not repeat it.
      if (!(err instanceof StoreUnavailableError)) services.logger.error(errorFields(err), 'scheduler tick failed');
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
