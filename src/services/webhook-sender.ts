/** How webhook attempts leave one instance: claimed in turn across merchants into bounded places, so no merchant's hanging receiver holds up another's. */
import { errorFields } from '../logger.js';
import type { Logger } from '../logger.js';
import { WEBHOOK_SIGNATURE_HEADER, webhookSignature, withListener, withWebhookSecret } from '../domain/webhook-secret.js';
import { LISTENER_ONLY } from '../store/delivery-log.js';
import type { Delivery, DeliveryAttempt, DeliveryLog } from '../store/delivery-log.js';
import { StoreUnavailableError } from '../store/unavailable.js';
import type { MerchantService } from './merchants.js';
import type { SandboxMetrics } from './metrics.js';
import { postWebhook } from './webhook-post.js';
import type { TargetGuard } from './webhook-post.js';
import type { AttemptResult, WebhookListeners } from './webhook-stream.js';

export const WEBHOOK_TIMEOUT_MS = 5000;
/** How long a claimed delivery is held by the instance sending it; past it, another instance may send it. */
export const DELIVERY_LEASE_MS = 30_000;
/** Places one instance shares among the merchants already sending: however many receivers hang, at most this many attempts queue behind them. */
export const SHARED_PLACES = 12;
/** Deliveries of one merchant one instance sends at once: a receiver that hangs holds at most 4 places. */
export const MAX_DELIVERIES_PER_MERCHANT = 4;
/** Places of their own for merchants with nothing in flight here: a newcomer's first attempt never waits behind receivers that hang (5 s each). */
export const OWN_PLACES = 244;
/** Deliveries one instance sends at once (its sockets to receivers); the rest wait for a place. */
export const MAX_DELIVERIES_IN_FLIGHT = SHARED_PLACES + OWN_PLACES;
/** How often an instance looks for deliveries due (other instances' retries, ended leases). */
const POLL_MS = 500;

/** A shared place, or the place of its own a merchant with nothing in flight gets. */
type Place = 'shared' | 'own';

export class WebhookSender {
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Deliveries this instance is sending now, by the kind of place they hold. */
  private readonly inFlight: Record<Place, number> = { shared: 0, own: 0 };
  /** Per merchant, deliveries this instance is sending now. */
  private readonly inFlightByMerchant = new Map<string, number>();
  private pumping: Promise<void> | null = null;
  private pumpAgain = false;
  private stopped = false;
  private readonly poller: NodeJS.Timeout;

  constructor(
    private readonly merchants: MerchantService,
    private readonly log: DeliveryLog,
    private readonly listeners: WebhookListeners,
    private readonly retryDelaysMs: readonly number[],
    /** Checks every address connected to, when private targets are denied. */
    private readonly guard: TargetGuard | undefined,
    private readonly metrics: SandboxMetrics | undefined,
    private readonly logger: Logger,
  ) {
    this.poller = setInterval(() => this.kick(), POLL_MS);
    this.poller.unref();
  }

  /** Closed with the webhooks: nothing more is sent, and no change gets deliveries. */
  get closed(): boolean {
    return this.stopped;
  }

  close(): void {
    this.stopped = true;
    clearInterval(this.poller);
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  /** Looks for due deliveries soon (once per turn, however often it is asked). */
  kick(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = this.pump()
      .catch((err: unknown) => {
        if (!(err instanceof StoreUnavailableError)) this.logger.error(errorFields(err), 'webhook delivery pass failed');
      })
      .finally(() => {
        this.pumping = null;
        if (this.pumpAgain) {
          this.pumpAgain = false;
          this.kick();
        }
      });
  }

  /**
   * Claims what is due in turn across merchants and sends each: first into the shared places, then
   * each merchant with nothing in flight here its next into a place of its own.
   */
  private async pump(): Promise<void> {
    const claim = async (max: number, perMerchant: number, place: Place): Promise<number> => {
      const claimed = await this.log.claimDue(this.merchants.realNow(), DELIVERY_LEASE_MS, max, {
        perMerchant,
        inFlight: this.inFlightByMerchant,
        listening: this.listeners.merchants(),
      });
      for (const delivery of claimed) {
        this.sending(delivery.payeeId, place, +1);
        void this.attempt(delivery)
          .catch((err: unknown) => this.logger.error({ delivery_id: delivery.id, payee_id: delivery.payeeId, ...errorFields(err) }, 'webhook delivery not recorded'))
          .finally(() => {
            this.sending(delivery.payeeId, place, -1);
            this.kick();
          });
      }
      return claimed.length;
    };
    while (!this.stopped) {
      const free = SHARED_PLACES - this.inFlight.shared;
      const shared = free > 0 ? await claim(free, MAX_DELIVERIES_PER_MERCHANT, 'shared') : 0;
      // Fewer than the free shared places: nothing else is due now.
      if (free > 0 && shared < free) return;
      if (this.stopped || this.inFlight.own >= OWN_PLACES) return;
      // One place each (1 - n <= 0 for a merchant with n in flight): only merchants with nothing in flight get one.
      const firsts = await claim(OWN_PLACES - this.inFlight.own, 1, 'own');
      if (shared === 0 && firsts === 0) return;
    }
  }

  /** Counts a delivery of the merchant starting (+1) or ending (-1) here, in a place of that kind. */
  private sending(payeeId: string, place: Place, change: 1 | -1): void {
    this.inFlight[place] += change;
    const n = (this.inFlightByMerchant.get(payeeId) ?? 0) + change;
    if (n > 0) this.inFlightByMerchant.set(payeeId, n);
    else this.inFlightByMerchant.delete(payeeId);
  }

  /** Makes the delivery's next attempt now and records its outcome. */
  async attempt(delivery: Delivery): Promise<void> {
    const started = performance.now();
    let result: AttemptResult;
    try {
      // Decided once: a listener leaving now makes this attempt fail (and be retried), not go to the URL with the listener's secret.
      const listening = this.listeners.has(delivery.payeeId);
      const signature = webhookSignature(await this.secretFor(delivery.payeeId, listening), Math.floor(this.merchants.realNow() / 1000), delivery.body);
      const headers = {
        'Content-Type': 'application/json',
        'Sandbox-Event-Id': delivery.eventId,
        [WEBHOOK_SIGNATURE_HEADER]: signature,
        'User-Agent': 'payreq-sandbox-webhooks',
      };
      result = await this.send(delivery, headers, listening);
    } catch (err) {
      if (err instanceof StoreUnavailableError) throw err;
      result = { status: null, error: err instanceof Error ? err.message : String(err) };
    }
    const { status, error } = result;
    const now = this.merchants.realNow();
    // A listener's own time, but never more than the sandbox waited for it: the log stays true whatever it reports.
    const waited = performance.now() - started;
    const record: DeliveryAttempt = { at: now, status, error, latencyMs: Math.round(Math.min(result.latencyMs ?? waited, waited)) };
    if (status !== null && status >= 200 && status < 300) {
      this.metrics?.deliveries.inc({ outcome: 'delivered' });
      await this.log.recordAttempt(delivery.id, record, { state: 'delivered', attempt: delivery.attempt + 1, nextAttemptAt: null });
      return;
    }
    const delay = result.final ? undefined : this.retryDelaysMs[delivery.attempt + 1];
    if (delay === undefined) {
      this.metrics?.deliveries.inc({ outcome: 'failed' });
      await this.log.recordAttempt(delivery.id, record, { state: 'failed', attempt: delivery.attempt + 1, nextAttemptAt: null });
      return;
    }
    this.metrics?.deliveries.inc({ outcome: 'retry' });
    await this.log.recordAttempt(delivery.id, record, { state: 'pending', attempt: delivery.attempt + 1, nextAttemptAt: now + delay });
    this.wakeAfter(delay);
  }

  /** Sends one attempt: to the merchant's listener while one is connected here (SPEC 22), else to its URL. */
  private async send(delivery: Delivery, headers: Readonly<Record<string, string>>, listening: boolean): Promise<AttemptResult> {
    if (listening) return this.listeners.deliver(delivery, headers, WEBHOOK_TIMEOUT_MS);
    if (delivery.url === LISTENER_ONLY) return { status: null, error: 'no listener is connected (payreq-sandbox listen) and no URL is set' };
    return { status: await postWebhook({ url: delivery.url, headers, body: delivery.body, timeoutMs: WEBHOOK_TIMEOUT_MS }, this.guard), error: null };
  }

  /** A retry due sooner than the next poll is looked for at its time. */
  wakeAfter(delayMs: number): void {
    if (this.stopped || delayMs >= POLL_MS) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.kick();
    }, delayMs);
    timer.unref();
    this.timers.add(timer);
  }

  /**
   * The secret that signs the merchant's deliveries to its URL, or to its listener. A merchant
   * stored before secrets existed gets one here, at its first attempt, stored under the merchant's
   * lock (an instance that races another keeps the one stored first); it learns it by rotating.
   */
  private async secretFor(payeeId: string, listener: boolean): Promise<string> {
    const merchant = await this.merchants.byId(payeeId);
    if (!merchant) throw new Error('not sent: its merchant no longer exists');
    const own = listener ? merchant.listenerSecret : merchant.webhookSecret;
    if (own) return own;
    return this.merchants.update(payeeId, (current) => {
      const { merchant: next, secret } = listener ? withListener(current) : withWebhookSecret(current);
      return [next === current ? null : next, secret] as const;
    });
  }
}
