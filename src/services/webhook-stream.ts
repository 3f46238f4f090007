/**
 * Listeners of `payreq-sandbox listen` (SPEC 22) connected to this instance: each a Server-Sent
 * Events stream that its merchant's delivery attempts are written to, signed as a direct attempt
 * would be; the listener POSTs the local receiver's answer back, and that answer is the attempt's.
 * Bounded: a few streams per merchant, and a stream holds at most STREAM_QUEUE_BYTES its socket has
 * not taken (an attempt that does not fit fails and is retried; a stream stalled for long is closed).
 */
import { SandboxError } from '../domain/errors.js';
import type { Delivery } from '../store/delivery-log.js';

/** Streams one merchant may hold on one instance; the next is refused 429. */
export const MAX_LISTENERS_PER_MERCHANT = 2;
/** A comment line this often keeps a proxy's idle timeout from cutting a quiet stream. */
export const HEARTBEAT_MS = 15_000;
/** Bytes a stream may hold that its socket has not taken yet; past it, nothing more is queued. */
export const STREAM_QUEUE_BYTES = 64 * 1024;
/** A stream whose socket has taken nothing for this long, while full, is closed. */
export const STALLED_STREAM_MS = 30_000;
/** How often open streams look whether the instance drains (they end then, so a stop does not wait for them). */
const DRAIN_CHECK_MS = 250;
/** How often attempts waiting here look for their answers passed on by another instance. */
const RELAY_POLL_MS = 200;

/**
 * Answers that reach another instance than the stream's (behind a balancer), passed on through
 * the shared store (PostgreSQL); one process needs none.
 */
export interface AnswerRelay {
  pass(payeeId: string, deliveryId: string, attempt: number, answer: string, now: number): Promise<boolean>;
  take(attempts: readonly { readonly deliveryId: string; readonly attempt: number }[]): Promise<readonly { deliveryId: string; attempt: number; payeeId: string; answer: string }[]>;
}

export interface StreamTiming {
  readonly heartbeatMs: number;
  readonly stalledMs: number;
  readonly queueBytes: number;
}

export const STREAM_TIMING: StreamTiming = { heartbeatMs: HEARTBEAT_MS, stalledMs: STALLED_STREAM_MS, queueBytes: STREAM_QUEUE_BYTES };

/** One attempt as the listener gets it: what it POSTs to the local URL, as the sandbox computed it. */
export interface ListenerEvent {
  readonly delivery_id: string;
  /** The attempt's number, 1 for the first; the answer names it. */
  readonly attempt: number;
  readonly event_type: string;
  readonly payment_id: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The body's text, byte for byte as signed. */
  readonly body: string;
}

/** What the local receiver answered, as the listener reports it. */
export interface ListenerAnswer {
  readonly status: number | null;
  readonly error: string | null;
  readonly latencyMs: number;
}

/** How an attempt went: the receiver's status, or why there is none; `final` when no retry can help. */
export interface AttemptResult {
  readonly status: number | null;
  readonly error: string | null;
  readonly final?: boolean;
  /** The receiver's own time, when a listener reports it: the relay through the stream is not the receiver's. */
  readonly latencyMs?: number;
}

const encoder = new TextEncoder();

/** One connected listener: the bytes of its stream, written only while its socket keeps up. */
export class ListenerStream {
  readonly body: ReadableStream<Uint8Array>;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private closed = false;
  /** Real ms since the queue has been full, or null while it has room. */
  private fullSince: number | null = null;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    readonly payeeId: string,
    /** Event types it takes; null: every one. */
    readonly events: ReadonlySet<string> | null,
    private readonly timing: StreamTiming,
    private readonly onClose: (stream: ListenerStream) => void,
  ) {
    this.body = new ReadableStream<Uint8Array>(
      { start: (controller) => void (this.controller = controller), cancel: () => this.close() },
      { highWaterMark: timing.queueBytes, size: (chunk) => chunk.byteLength },
    );
    this.heartbeat = setInterval(() => this.beat(), timing.heartbeatMs);
    this.heartbeat.unref();
  }

  takes(eventType: string): boolean {
    return this.events === null || this.events.has(eventType);
  }

  /** Writes one event; false when the stream is closed or its socket has not taken what it holds. */
  send(name: string, data: unknown): boolean {
    return this.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    try {
      this.controller.close();
    } catch {
      // Cancelled by the client already.
    }
    this.onClose(this);
  }

  private write(text: string): boolean {
    if (this.closed) return false;
    if ((this.controller.desiredSize ?? 0) <= 0) {
      this.fullSince ??= Date.now();
      return false;
    }
    this.fullSince = null;
    this.controller.enqueue(encoder.encode(text));
    return true;
  }

  private beat(): void {
    if (this.write(': heartbeat\n\n')) return;
    if (this.fullSince !== null && Date.now() - this.fullSince >= this.timing.stalledMs) this.close();
  }
}

interface Waiting {
  readonly payeeId: string;
  readonly deliveryId: string;
  readonly attempt: number;
  readonly resolve: (answer: ListenerAnswer | null) => void;
}

/** The listeners connected to this instance, and the attempts waiting for their answers. */
export class WebhookListeners {
  private readonly byMerchant = new Map<string, ListenerStream[]>();
  private readonly waiting = new Map<string, Waiting>();
  private turn = 0;
  private drainWatch: NodeJS.Timeout | undefined;
  private relayPoll: NodeJS.Timeout | undefined;

  constructor(
    /** Called when the set of merchants with a listener here changes. */
    private readonly onChange: () => void,
    private readonly timing: StreamTiming = STREAM_TIMING,
    private readonly relay?: AnswerRelay,
  ) {}

  /**
   * Opens a stream for the merchant, `hello` its first event (before any delivery); 429 past
   * MAX_LISTENERS_PER_MERCHANT. Every stream ends once `draining` says so: the listener then
   * reconnects (to another instance, behind a balancer).
   */
  open(payeeId: string, events: ReadonlySet<string> | null, hello: unknown, draining: () => boolean = () => false): ListenerStream {
    const own = this.byMerchant.get(payeeId) ?? [];
    if (own.length >= MAX_LISTENERS_PER_MERCHANT) {
      throw SandboxError.rateLimited(
        `This merchant already has ${own.length} listeners connected to this instance, the most it may hold (${MAX_LISTENERS_PER_MERCHANT}): ` +
          'stop one (Ctrl-C in its terminal) before starting another.',
        5,
      );
    }
    const stream = new ListenerStream(payeeId, events, this.timing, (closed) => this.closed(closed));
    stream.send('hello', hello);
    this.byMerchant.set(payeeId, [...own, stream]);
    if (own.length === 0) this.onChange();
    this.drainWatch ??= setInterval(() => {
      if (draining()) this.closeAll();
    }, DRAIN_CHECK_MS).unref();
    return stream;
  }

  /** Merchants with a listener connected here. */
  merchants(): ReadonlySet<string> {
    return new Set(this.byMerchant.keys());
  }

  has(payeeId: string): boolean {
    return this.byMerchant.has(payeeId);
  }

  /** Streams of the merchant open here. */
  count(payeeId: string): number {
    return this.byMerchant.get(payeeId)?.length ?? 0;
  }

  /** The merchant's listeners taking `eventType`, in turn; [] when none does. */
  private takers(payeeId: string, eventType: string): ListenerStream[] {
    const own = (this.byMerchant.get(payeeId) ?? []).filter((s) => s.takes(eventType));
    const start = own.length > 0 ? this.turn++ % own.length : 0;
    return [...own.slice(start), ...own.slice(0, start)];
  }

  /** Sends an attempt of `delivery` to a listener of its merchant (connected here) and answers how it went. */
  async deliver(delivery: Delivery, headers: Readonly<Record<string, string>>, timeoutMs: number): Promise<AttemptResult> {
    const { eventType, payeeId } = delivery;
    if (!this.has(payeeId)) return { status: null, error: 'the listener left before the attempt was sent' };
    if (this.takers(payeeId, eventType).length === 0) {
      return { status: null, error: `not forwarded: the listener connected does not take ${eventType} (payreq-sandbox listen --events)`, final: true };
    }
    const event = { delivery_id: delivery.id, attempt: delivery.attempt + 1, event_type: eventType, payment_id: delivery.paymentId, headers, body: delivery.body };
    const { answer, sent } = await this.forward(event, payeeId, timeoutMs);
    if (!sent) return { status: null, error: 'the listener is not reading its stream (what it was sent before is still queued)' };
    if (!answer) return { status: null, error: `the listener gave no answer within ${timeoutMs / 1000} s` };
    return { status: answer.status, error: answer.error, latencyMs: answer.latencyMs };
  }

  /**
   * Writes the attempt to a listener of its merchant taking its type and waits for the answer;
   * null when no listener took it or none answered within `timeoutMs`.
   */
  async forward(event: ListenerEvent, payeeId: string, timeoutMs: number): Promise<{ readonly answer: ListenerAnswer | null; readonly sent: boolean }> {
    const key = waitingKey(event.delivery_id, event.attempt);
    const answered = new Promise<ListenerAnswer | null>((resolve) => this.waiting.set(key, { payeeId, deliveryId: event.delivery_id, attempt: event.attempt, resolve }));
    const sent = this.takers(payeeId, event.event_type).some((stream) => stream.send('delivery', event));
    if (!sent) {
      this.waiting.delete(key);
      return { answer: null, sent };
    }
    const timer = setTimeout(() => this.settle(key, null), timeoutMs);
    this.pollRelay();
    try {
      return { answer: await answered, sent };
    } finally {
      clearTimeout(timer);
    }
  }

  /** The listener's answer to an attempt of its merchant; false when none of that merchant waits for it here. */
  answer(payeeId: string, deliveryId: string, attempt: number, answer: ListenerAnswer): boolean {
    const key = waitingKey(deliveryId, attempt);
    if (this.waiting.get(key)?.payeeId !== payeeId) return false;
    this.settle(key, answer);
    return true;
  }

  /**
   * The answer taken here, or passed on to the instance whose attempt waits for it ('passed');
   * false when no attempt of the merchant waits for it anywhere.
   */
  async take(payeeId: string, deliveryId: string, attempt: number, answer: ListenerAnswer, now: number): Promise<'here' | 'passed' | false> {
    if (this.answer(payeeId, deliveryId, attempt, answer)) return 'here';
    if (!this.relay) return false;
    return (await this.relay.pass(payeeId, deliveryId, attempt, JSON.stringify(answer), now)) ? 'passed' : false;
  }

  /** While attempts wait here, looks for their answers passed on by other instances. */
  private pollRelay(): void {
    if (!this.relay || this.relayPoll) return;
    const relay = this.relay;
    this.relayPoll = setInterval(() => {
      const attempts = [...this.waiting.values()].map(({ deliveryId, attempt }) => ({ deliveryId, attempt }));
      if (attempts.length === 0) {
        clearInterval(this.relayPoll);
        this.relayPoll = undefined;
        return;
      }
      relay.take(attempts).then(
        (answers) => {
          for (const a of answers) this.answer(a.payeeId, a.deliveryId, a.attempt, JSON.parse(a.answer) as ListenerAnswer);
        },
        () => undefined, // the store away: the attempts time out as with no answer
      );
    }, RELAY_POLL_MS).unref();
  }

  closeMerchant(payeeId: string): void {
    for (const stream of this.byMerchant.get(payeeId) ?? []) stream.close();
  }

  closeAll(): void {
    for (const own of [...this.byMerchant.values()]) for (const stream of own) stream.close();
    for (const key of [...this.waiting.keys()]) this.settle(key, null);
    clearInterval(this.relayPoll);
    this.relayPoll = undefined;
  }

  private settle(key: string, answer: ListenerAnswer | null): void {
    const waiting = this.waiting.get(key);
    this.waiting.delete(key);
    waiting?.resolve(answer);
  }

  private closed(stream: ListenerStream): void {
    const own = (this.byMerchant.get(stream.payeeId) ?? []).filter((s) => s !== stream);
    if (own.length > 0) return void this.byMerchant.set(stream.payeeId, own);
    this.byMerchant.delete(stream.payeeId);
    if (this.byMerchant.size === 0) {
      clearInterval(this.drainWatch);
      this.drainWatch = undefined;
    }
    this.onChange();
  }
}

function waitingKey(deliveryId: string, attempt: number): string {
  return `${deliveryId}#${attempt}`;
}
