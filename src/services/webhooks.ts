/**
 * Webhooks (a sandbox extension; the interface documents no events): each state change of a
 * merchant with a webhook URL is POSTed as JSON, signed like requests, retried with back-off,
 * kept in a bounded delivery log and replayable.
 */
import { lookup } from 'node:dns/promises';
import { BlockList } from 'node:net';
import { ApiError } from '../domain/codes.js';
import { newDeliveryId, newEventId } from '../domain/ids.js';
import type { Merchant } from '../domain/merchant.js';
import type { Payment, PaymentEvent } from '../domain/payment.js';
import { signBody } from '../domain/signature.js';
import type { MerchantService } from './merchants.js';

/** Writes the JSON body of one event (without sign); the HTTP layer owns the wire format. */
export type WebhookBodyWriter = (merchant: Merchant, payment: Payment, event: PaymentEvent, eventId: string) => Record<string, unknown>;
export type JsonWriter = (value: unknown) => string;

export interface DeliveryAttempt {
  readonly at: number;
  readonly status: number | null;
  readonly error: string | null;
  readonly latencyMs: number;
}

export interface Delivery {
  readonly id: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly paymentId: string;
  readonly url: string;
  readonly body: string;
  state: 'pending' | 'delivered' | 'failed';
  readonly attempts: DeliveryAttempt[];
  nextAttemptAt: number | null;
  readonly createdAt: number;
}

export const DELIVERY_LOG_CAP = 200;
export const WEBHOOK_TIMEOUT_MS = 5000;

const PRIVATE_RANGES = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.168.0.0', 16], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) PRIVATE_RANGES.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) PRIVATE_RANGES.addSubnet(network, prefix, 'ipv6');

export function isPrivateAddress(address: string, family: number): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return PRIVATE_RANGES.check(mapped[1]!, 'ipv4');
  return PRIVATE_RANGES.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/** Throws when the URL's host is, or resolves to, a loopback, private or link-local address. */
async function refusePrivateTarget(url: string): Promise<void> {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  const addresses = await lookup(host, { all: true });
  const blocked = addresses.find((a) => isPrivateAddress(a.address, a.family));
  if (blocked) throw new Error(`refused: ${host} is ${blocked.address}, a private address; this sandbox delivers webhooks to public addresses only (SANDBOX_WEBHOOK_PRIVATE=deny)`);
}

export class WebhookService {
  private readonly logs = new Map<string, Delivery[]>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly merchants: MerchantService,
    private readonly writeBody: WebhookBodyWriter,
    private readonly writeJson: JsonWriter,
    private readonly retryDelaysMs: readonly number[],
    /** Deliver to loopback, private and link-local addresses (local use); a hosted sandbox denies them. */
    private readonly allowPrivateTargets = true,
  ) {}

  setUrl(merchant: Merchant, url: string | null): Promise<Merchant> {
    return this.merchants.update(merchant.payeeId, (current) => {
      const next = { ...current, webhookUrl: url };
      return [next, next] as const;
    });
  }

  async url(merchant: Merchant): Promise<string | null> {
    return (await this.merchants.current(merchant)).webhookUrl ?? null;
  }

  /** The payment listener: one delivery per event, to the URL set when the change committed. */
  readonly onPaymentChange = (merchant: Merchant, payment: Payment, events: readonly PaymentEvent[]): void => {
    if (this.closed) return;
    void this.merchants
      .current(merchant)
      .then((current) => {
        const url = current.webhookUrl;
        if (url) for (const event of events) this.enqueue(current, url, payment, event);
      })
      .catch((err: unknown) => console.error('webhook enqueue failed:', err instanceof Error ? err.message : err));
  };

  deliveries(payeeId: string, limit: number): readonly Delivery[] {
    return (this.logs.get(payeeId) ?? []).slice(0, limit);
  }

  /** Sends a delivery again now, with a fresh series of retries. */
  replay(payeeId: string, deliveryId: string): Delivery {
    const delivery = this.logs.get(payeeId)?.find((d) => d.id === deliveryId);
    if (!delivery) throw ApiError.notFound(`No webhook delivery ${JSON.stringify(deliveryId.slice(0, 64))} for this merchant: GET /sandbox/v1/webhook/deliveries lists them.`);
    if (delivery.state === 'pending') throw ApiError.refused(`Delivery ${delivery.id} is still being sent (next attempt at ${new Date(delivery.nextAttemptAt ?? Date.now()).toISOString()}); replay it once it is delivered or failed.`);
    delivery.state = 'pending';
    this.schedule(delivery, 0, 0);
    return delivery;
  }

  clear(payeeId: string): void {
    for (const delivery of this.logs.get(payeeId) ?? []) {
      if (delivery.state === 'pending') delivery.state = 'failed';
      delivery.nextAttemptAt = null;
    }
    this.logs.delete(payeeId);
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private enqueue(merchant: Merchant, url: string, payment: Payment, event: PaymentEvent): void {
    const eventId = newEventId();
    const unsigned = this.writeBody(merchant, payment, event, eventId);
    // Sign what the receiver will parse (amounts as numbers), so it can check with the same function.
    const parsed = JSON.parse(this.writeJson(unsigned)) as Record<string, unknown>;
    const signed = { ...unsigned, sign_type: 'SHA512', sign: signBody(parsed, merchant.signingSalt) };
    const delivery: Delivery = {
      id: newDeliveryId(),
      eventId,
      eventType: String(unsigned.type),
      paymentId: payment.id,
      url,
      body: this.writeJson(signed),
      state: 'pending',
      attempts: [],
      nextAttemptAt: null,
      createdAt: Date.now(),
    };
    let log = this.logs.get(merchant.payeeId);
    if (!log) this.logs.set(merchant.payeeId, (log = []));
    log.unshift(delivery);
    if (log.length > DELIVERY_LOG_CAP) log.length = DELIVERY_LOG_CAP;
    this.schedule(delivery, 0, 0);
  }

  private schedule(delivery: Delivery, attempt: number, delayMs: number): void {
    if (this.closed) return;
    delivery.nextAttemptAt = Date.now() + delayMs;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.attempt(delivery, attempt);
    }, delayMs);
    timer.unref();
    this.timers.add(timer);
  }

  private async attempt(delivery: Delivery, attempt: number): Promise<void> {
    if (delivery.state !== 'pending') return;
    const started = performance.now();
    let status: number | null = null;
    let error: string | null = null;
    try {
      if (!this.allowPrivateTargets) await refusePrivateTarget(delivery.url);
      const res = await fetch(delivery.url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Sandbox-Event-Id': delivery.eventId, 'User-Agent': 'payreq-sandbox-webhooks' },
        body: delivery.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
      });
      status = res.status;
      await res.body?.cancel();
    } catch (err) {
      error = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
    }
    delivery.attempts.push({ at: Date.now(), status, error, latencyMs: Math.round(performance.now() - started) });
    if (status !== null && status >= 200 && status < 300) {
      delivery.state = 'delivered';
      delivery.nextAttemptAt = null;
      return;
    }
    const next = this.retryDelaysMs[attempt + 1];
    if (next === undefined) {
      delivery.state = 'failed';
      delivery.nextAttemptAt = null;
      return;
    }
    this.schedule(delivery, attempt + 1, next);
  }
}
