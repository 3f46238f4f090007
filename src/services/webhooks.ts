/**
 * Webhooks (a sandbox extension; the interface documents no events): each state change of a
 * merchant with a webhook URL is POSTed as JSON, each attempt signed with the merchant's webhook
 * secret in Sandbox-Signature, retried with back-off, kept in a bounded delivery log and
 * replayable. Deliveries are written by the store with the change (an outbox); every instance
 * claims due ones under a lease and sends them, so a retry outlives the instance that started it.
 */
import { SandboxError } from '../domain/errors.js';
import { newDeliveryId, newEventId, newPaymentCode, newPaymentId, newPaymentToken } from '../domain/ids.js';
import { isRefusedTarget } from '../domain/private-addresses.js';
import { loggerOr } from '../logger.js';
import type { Logger } from '../logger.js';
import { eventTypeOf, isDuplicated, NO_WEBHOOK_FAULTS, sampleEvent, WEBHOOK_EVENT_TYPES } from '../domain/webhook-drills.js';
import type { WebhookFaults } from '../domain/webhook-drills.js';
import type { Merchant } from '../domain/merchant.js';
import type { Payment, PaymentEvent } from '../domain/payment.js';
import { withListener, withRotatedSecret, withWebhookSettings } from '../domain/webhook-secret.js';
import type { WebhookSettingsChange } from '../domain/webhook-secret.js';
import { LISTENER_ONLY } from '../store/delivery-log.js';
import type { Delivery, DeliveryAttempt, DeliveryLog } from '../store/delivery-log.js';
import type { MerchantService } from './merchants.js';
import type { SandboxMetrics } from './metrics.js';
import { ownAddresses } from './own-addresses.js';
import { refuseWrittenOutTarget, systemResolver } from './webhook-post.js';
import type { TargetGuard } from './webhook-post.js';
import { ListenerUpkeep } from './webhook-listener-upkeep.js';
import { DELIVERY_LEASE_MS, WebhookSender } from './webhook-sender.js';
import { WebhookListeners } from './webhook-stream.js';
import type { ListenerStream, StreamTiming } from './webhook-stream.js';

/** Writes the JSON body of one event; the HTTP layer owns the wire format. */
export type WebhookBodyWriter = (merchant: Merchant, payment: Payment, event: PaymentEvent, eventId: string) => Record<string, unknown>;
export type JsonWriter = (value: unknown) => string;

export type { Delivery, DeliveryAttempt };

/** With reorder, how far apart the events of one change are sent; a duplicate follows its original by this. */
const REORDER_GAP_MS = 100;
const DUPLICATE_GAP_MS = 50;

export class WebhookService {
  /** Checks every address connected to, when private targets are denied. */
  private readonly guard: TargetGuard | undefined;
  /** `payreq-sandbox listen` streams connected here: while a merchant has one, its deliveries go to it. */
  readonly listeners: WebhookListeners;
  private readonly upkeep: ListenerUpkeep;
  private readonly sender: WebhookSender;

  constructor(
    private readonly merchants: MerchantService,
    private readonly log: DeliveryLog,
    private readonly writeBody: WebhookBodyWriter,
    private readonly writeJson: JsonWriter,
    retryDelaysMs: readonly number[],
    /** The sandbox's seed: the duplicate drill draws from it. */
    private readonly seed: number,
    /** Deliver to loopback, private and link-local addresses (local use); a hosted sandbox denies them. */
    allowPrivateTargets = true,
    metrics?: SandboxMetrics,
    streamTiming?: StreamTiming,
    logger: Logger = loggerOr(undefined),
  ) {
    const relay = log.passAnswer && log.takeAnswers ? { pass: log.passAnswer.bind(log), take: log.takeAnswers.bind(log) } : undefined;
    this.listeners = new WebhookListeners(
      () => {
        this.upkeep.hold();
        this.kick();
      },
      streamTiming,
      relay,
    );
    this.upkeep = new ListenerUpkeep(() => this.listeners, log, merchants, logger);
    this.guard = allowPrivateTargets ? undefined : { refuses: (address) => isRefusedTarget(address, ownAddresses()), resolve: systemResolver };
    this.sender = new WebhookSender(merchants, log, this.listeners, retryDelaysMs, this.guard, metrics, logger);
  }

  /** Sets the URL and drills (withWebhookSettings), under the merchant's lock. */
  configure(merchant: Merchant, changes: { readonly url?: string | null; readonly faults?: WebhookFaults }): Promise<WebhookSettingsChange> {
    if (changes.url && this.guard) refuseWrittenOutTarget(changes.url, this.guard.refuses);
    return this.merchants.update(merchant.payeeId, (current) => {
      const changed = withWebhookSettings(current, changes);
      return [changed.merchant, changed] as const;
    });
  }

  /** A new secret for the URL set (the old one signs nothing from now on); 402 without a URL. */
  async rotateSecret(merchant: Merchant): Promise<WebhookSettingsChange> {
    const rotated = await this.merchants.update(merchant.payeeId, (current) => {
      const changed = withRotatedSecret(current);
      return [changed?.merchant ?? null, changed] as const;
    });
    if (!rotated) throw SandboxError.refused('No webhook URL is set: PUT /sandbox/v1/webhook {"url": "https://..."} sets one and answers its secret.');
    return rotated;
  }

  /**
   * Connects a listener of the merchant (429 past the cap) and answers it with the listener secret
   * that signs what goes to listeners, making one the first time: not the URL's secret, which the
   * key never sees again. From now on the merchant's events are kept as deliveries for listeners, URL or not.
   */
  async listen(merchant: Merchant, events: ReadonlySet<string> | null, draining?: () => boolean): Promise<{ readonly stream: ListenerStream; readonly secret: string }> {
    const { secret, url } = await this.merchants.update(merchant.payeeId, (current) => {
      const { merchant: next, secret } = withListener(current);
      return [next === current ? null : next, { secret, url: next.webhookUrl ?? null }] as const;
    });
    const hello = { payee_id: merchant.payeeId, secret, events: events ? [...events] : null, url };
    return { stream: this.listeners.open(merchant.payeeId, events, hello, draining), secret };
  }

  /** The URL (null when off) and the drills in force (none when never set). */
  async settings(merchant: Merchant): Promise<{ url: string | null; faults: WebhookFaults }> {
    const current = await this.merchants.current(merchant);
    return { url: current.webhookUrl ?? null, faults: current.webhookFaults ?? NO_WEBHOOK_FAULTS };
  }

  /**
   * The outbox of a change: one delivery per event to the merchant's URL (each attempt signs it),
   * written by the store with the change itself, so a committed change is never without its deliveries.
   */
  readonly deliveriesFor = (merchant: Merchant, payment: Payment, events: readonly PaymentEvent[]): readonly Delivery[] => {
    // Without a URL, a merchant that has used a listener keeps its events for the next one.
    const url = merchant.webhookUrl || (merchant.listenerSecret ? LISTENER_ONLY : null);
    if (!url || this.sender.closed || events.length === 0) return [];
    const faults = merchant.webhookFaults ?? NO_WEBHOOK_FAULTS;
    const held = faults.delaySeconds > 0;
    // Held in sandbox seconds from the change (its latest event, on the merchant's clock), so a
    // change applied late by a clock advance is held from when it happened, and advanceHeld
    // releases what an advance goes past.
    const due = held ? Math.max(...events.map((e) => e.at)) - merchant.clockOffsetMs + faults.delaySeconds * 1000 : this.merchants.realNow();
    // With reorder, the newest event of the change goes first; each a little after the one before.
    const ordered = faults.reorder ? [...events].reverse() : events;
    const deliveries = ordered.flatMap((event, i) => {
      const gap = faults.reorder ? i * REORDER_GAP_MS : 0;
      const delivery = this.delivery(merchant, url, payment, event, due + gap, false, held ? gap : undefined);
      // Each event of a change added one version: the last event made the payment's version.
      const version = payment.version - (events.length - 1 - events.indexOf(event));
      const twice = isDuplicated(faults.duplicate, this.seed, { merchantRefNo: payment.merchantRefNo, version, type: event.type });
      // A duplicate is the same event (same event_id and body) sent again a moment later.
      if (!twice) return [delivery];
      const copy: Delivery = { ...delivery, id: newDeliveryId(), nextAttemptAt: delivery.nextAttemptAt! + DUPLICATE_GAP_MS };
      return [delivery, held ? { ...copy, heldGapMs: gap + DUPLICATE_GAP_MS } : copy];
    });
    // Those due now are looked for once the change is committed (onPaymentChange); the rest at their times.
    const now = this.merchants.realNow();
    this.wakeAt(now, deliveries.map((d) => d.nextAttemptAt!).filter((due) => due > now));
    return deliveries;
  };

  /**
   * The merchant's clock moved `seconds` forward: deliveries held by the delay drill and written
   * by `writtenBy` (real ms, read before the clock moved) come due that much earlier.
   */
  async clockAdvanced(merchant: Merchant, seconds: number, writtenBy: number): Promise<void> {
    const now = this.merchants.realNow();
    const dues = await this.log.advanceHeld(merchant.payeeId, seconds * 1000, writtenBy, now);
    this.wakeAt(now, dues);
  }

  /** Looks for deliveries due soon at their times (the poll would claim several at once, and send them together). */
  private wakeAt(now: number, dues: readonly number[]): void {
    for (const due of new Set(dues)) this.sender.wakeAfter(Math.max(0, due - now));
  }

  /**
   * Sends a sample event of `type` (payment.created, payment.paid...) to the merchant's URL now,
   * signed like real ones, without touching a payment; answers the delivery after its first
   * attempt (later attempts follow the retry schedule).
   */
  async sendTest(merchant: Merchant, type: string): Promise<Delivery> {
    const current = await this.merchants.current(merchant);
    const url = current.webhookUrl || (this.listeners.has(current.payeeId) ? LISTENER_ONLY : null);
    if (!url) throw SandboxError.refused('No webhook URL is set: PUT /sandbox/v1/webhook {"url": "https://..."} (or connect payreq-sandbox listen) first, then send a test event.');
    const eventType = eventTypeOf(type);
    if (!eventType) throw SandboxError.invalid(`type ${JSON.stringify(type.slice(0, 64))} is not an event the sandbox sends: use one of ${WEBHOOK_EVENT_TYPES.join(', ')}.`);
    const now = this.merchants.realNow();
    const { payment, event } = sampleEvent(eventType, { id: newPaymentId(), token: newPaymentToken(), code: newPaymentCode() }, current, this.merchants.now(current));
    // Held past the pump's reach until this call has made its own attempt.
    const delivery = this.delivery(current, url, payment, event, now + DELIVERY_LEASE_MS, true);
    await this.log.record([delivery]);
    await this.sender.attempt(delivery);
    return (await this.log.get(current.payeeId, delivery.id)) ?? delivery;
  }

  private delivery(merchant: Merchant, url: string, payment: Payment, event: PaymentEvent, nextAttemptAt: number, test: boolean, heldGapMs?: number): Delivery {
    const eventId = newEventId();
    // Not signed here: each attempt signs these bytes with its own timestamp (webhook-sender.ts).
    const body: Record<string, unknown> = { ...this.writeBody(merchant, payment, event, eventId), ...(test ? { test: true } : {}) };
    return {
      id: newDeliveryId(),
      payeeId: merchant.payeeId,
      eventId,
      eventType: String(body.type),
      paymentId: payment.id,
      url,
      body: this.writeJson(body),
      state: 'pending',
      attempts: [],
      attempt: 0,
      nextAttemptAt,
      createdAt: this.merchants.realNow(),
      ...(heldGapMs === undefined ? {} : { heldGapMs }),
    };
  }

  /** The payment listener: a change was committed, its deliveries may be due now (a change that stored none wakes nothing). */
  readonly onPaymentChange = (_merchant: Merchant, _payment: Payment, _events: readonly PaymentEvent[], outbox: readonly Delivery[]): void => {
    if (outbox.length > 0) this.kick();
  };

  deliveries(payeeId: string, limit: number): Promise<readonly Delivery[]> {
    return this.log.list(payeeId, limit);
  }

  /** Sends a delivered or failed delivery again now, with a fresh series of retries. */
  async replay(payeeId: string, deliveryId: string): Promise<Delivery> {
    const shown = JSON.stringify(deliveryId.slice(0, 64));
    const again = await this.log.resend(payeeId, deliveryId, this.merchants.realNow());
    if (!again) throw SandboxError.notFound(`No webhook delivery ${shown} for this merchant: GET /sandbox/v1/webhook/deliveries lists them.`);
    if (again === 'pending') throw SandboxError.refused(`Delivery ${shown} is still being sent; replay it once it is delivered or failed (GET /sandbox/v1/webhook/deliveries shows its state).`);
    this.kick();
    return again;
  }

  close(): void {
    this.sender.close();
    this.upkeep.close();
    this.listeners.closeAll();
  }

  /** Looks for due deliveries soon (once per turn, however often it is asked). */
  kick(): void {
    this.sender.kick();
  }
}
