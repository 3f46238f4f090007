// Claimed under a lease, so whichever instance is alive sends each delivery and its retries, also after the one that started them died.
import { MerchantLists } from './merchant-lists.js';
import { deliveryBytes } from './storage-quota.js';
import { deliveryRecords, type LogRecord, type LogSlot } from './file-records.js';
export interface DeliveryAttempt {
  readonly at: number;
  readonly status: number | null;
  readonly error: string | null;
  readonly latencyMs: number;
}

export type DeliveryState = 'pending' | 'delivered' | 'failed';

export interface Delivery {
  readonly id: string;
  readonly payeeId: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly paymentId: string;
  readonly url: string;
  /** Sent as is on every attempt, so its signature stays valid. */
  readonly body: string;
  readonly state: DeliveryState;
  readonly attempts: readonly DeliveryAttempt[];
  readonly attempt: number;
  /** Real ms; null once delivered or failed. */
  readonly nextAttemptAt: number | null;
  readonly createdAt: number;
  /** Held by the delay drill: a spacing kept when a clock advance releases it early. */
  readonly heldGapMs?: number;
}

/** No URL was set: only an instance its merchant's listener is connected to claims it (SPEC 22). */
export const LISTENER_ONLY = 'payreq-sandbox listen';

export const DELIVERY_LOG_CAP = 200;

/** Only those written before the clock moved: later ones are already timed on the new clock. */
export function isHeld(d: Delivery, now: number, writtenBy: number): boolean {
  return d.heldGapMs !== undefined && d.state === 'pending' && d.attempt === 0 && d.nextAttemptAt !== null && d.nextAttemptAt > now && d.createdAt <= writtenBy;
}

/** Never before `now` plus its gap, so a reorder or duplicate drill keeps its spacing. */
export function released(d: Delivery, ms: number, now: number): Delivery {
  return { ...d, nextAttemptAt: Math.max(d.nextAttemptAt! - ms, now + (d.heldGapMs ?? 0)) };
}

/** Per merchant, so one merchant's backlog never holds up another's webhooks. */
export interface MerchantPlaces {
  readonly perMerchant: number;
  readonly inFlight: ReadonlyMap<string, number>;
  /** Their deliveries go to the claiming instance, URL or not. */
  readonly listening?: ReadonlySet<string>;
}

/** SPEC 22; PostgreSQL also leaves a merchant whose listener is on another instance to that one. */
function claimableHere(d: Delivery, places: MerchantPlaces): boolean {
  return places.listening?.has(d.payeeId) === true || d.url !== LISTENER_ONLY;
}

/** Round-robin, so a long backlog never goes before another merchant's next (PostgreSQL writes the same order in SQL). */
export function inTurn(due: readonly Delivery[], max: number, places: MerchantPlaces): Delivery[] {
  const byMerchant = new Map<string, Delivery[]>();
  for (const d of due) {
    const own = byMerchant.get(d.payeeId);
    if (own) own.push(d);
    else byMerchant.set(d.payeeId, [d]);
  }
  const turns: { delivery: Delivery; turn: number }[] = [];
  for (const [payeeId, own] of byMerchant) {
    const flying = places.inFlight.get(payeeId) ?? 0;
    own.sort((a, b) => a.nextAttemptAt! - b.nextAttemptAt!);
    const room = Math.min(places.perMerchant - flying, max, own.length);
    for (let k = 0; k < room; k++) turns.push({ delivery: own[k]!, turn: flying + k + 1 });
  }
  turns.sort((a, b) => a.turn - b.turn || a.delivery.nextAttemptAt! - b.delivery.nextAttemptAt!);
  return turns.slice(0, max).map((t) => t.delivery);
}

export interface AttemptOutcome {
  readonly state: DeliveryState;
  readonly attempt: number;
  readonly nextAttemptAt: number | null;
}

export interface DeliveryLog {
  /** For deliveries no payment change causes (a test event). */
  record(deliveries: readonly Delivery[]): Promise<void>;
  list(payeeId: string, limit: number): Promise<readonly Delivery[]>;
  get(payeeId: string, id: string): Promise<Delivery | undefined>;
  /** Each held for `leaseMs`, so no other instance sends it meanwhile. */
  claimDue(now: number, leaseMs: number, max: number, places: MerchantPlaces): Promise<readonly Delivery[]>;
  /** So that other instances leave these merchants' deliveries to this one; one process needs none of it. */
  holdListeners?(payeeIds: readonly string[], now: number, until: number): Promise<void>;
  /** For the instance whose attempt waits for it; false when no such attempt is being sent now. */
  passAnswer?(payeeId: string, deliveryId: string, attempt: number, answer: string, now: number): Promise<boolean>;
  takeAnswers?(attempts: readonly { readonly deliveryId: string; readonly attempt: number }[]): Promise<readonly { deliveryId: string; attempt: number; payeeId: string; answer: string }[]>;
  /** Releases the lease. */
  recordAttempt(id: string, attempt: DeliveryAttempt, next: AttemptOutcome): Promise<void>;
  /** From the first attempt; 'pending' when it still is, undefined when unknown. */
  resend(payeeId: string, id: string, now: number): Promise<Delivery | 'pending' | undefined>;
  /** The drill holds in sandbox seconds, so a clock advance must release held deliveries early too. */
  advanceHeld(payeeId: string, ms: number, writtenBy: number, now: number): Promise<readonly number[]>;
}

export class MemoryDeliveryLog implements DeliveryLog {
  private readonly pending = new Map<string, { delivery: Delivery; leaseUntil: number }>();
  /** Trimmed deliveries are gone, pending ones included: work stays bounded too. */
  readonly kept = new MerchantLists<string, Delivery>({ cap: DELIVERY_LOG_CAP, bytesOf: deliveryBytes, keyed: true, dropped: (_payeeId, d) => void this.pending.delete(d.id) });

  constructor(private readonly slot: LogSlot) {}

  async record(deliveries: readonly Delivery[]): Promise<void> {
    this.slot.log?.write(...deliveryRecords(deliveries));
    for (const d of deliveries) this.put(d);
  }

  /** Only once its change is stored, so none is sent for a change that failed; it may replace one by id (an attempt, a resend). */
  put(d: Delivery): void {
    if (d.state === 'pending') this.pending.set(d.id, { delivery: d, leaseUntil: 0 });
    else this.pending.delete(d.id);
    this.kept.put(d.payeeId, d.id, d);
  }

  /** Oldest first: adding them in this order rebuilds the log. */
  *records(): Generator<LogRecord> {
    for (const payeeId of this.kept.merchants()) for (const [, v] of this.kept.oldestFirst(payeeId)) yield { t: 'delivery', v };
  }

  async list(payeeId: string, limit: number): Promise<readonly Delivery[]> {
    return this.kept.newestFirst(payeeId, limit);
  }

  async get(payeeId: string, id: string): Promise<Delivery | undefined> {
    return this.kept.get(payeeId, id);
  }

  async claimDue(now: number, leaseMs: number, max: number, places: MerchantPlaces): Promise<readonly Delivery[]> {
    const due: Delivery[] = [];
    for (const held of this.pending.values()) {
      const { delivery } = held;
      if (held.leaseUntil <= now && delivery.nextAttemptAt !== null && delivery.nextAttemptAt <= now && claimableHere(delivery, places)) due.push(delivery);
    }
    const claimed = inTurn(due, max, places);
    for (const d of claimed) this.pending.get(d.id)!.leaseUntil = now + leaseMs;
    return claimed;
  }

  /** Not waited for: an attempt lost to a restart is only made again. */
  async recordAttempt(id: string, attempt: DeliveryAttempt, next: AttemptOutcome): Promise<void> {
    const held = this.pending.get(id);
    if (!held) return; // erased or trimmed while it was being sent
    const updated: Delivery = { ...held.delivery, attempts: [...held.delivery.attempts, attempt], ...next };
    this.put(updated);
    this.slot.log?.record({ t: 'delivery', v: updated });
  }

  async resend(payeeId: string, id: string, now: number): Promise<Delivery | 'pending' | undefined> {
    const current = this.kept.get(payeeId, id);
    if (!current) return undefined;
    if (current.state === 'pending') return 'pending';
    const again: Delivery = { ...current, state: 'pending', attempt: 0, nextAttemptAt: now };
    this.slot.log?.write({ t: 'delivery', v: again });
    this.put(again);
    return again;
  }

  async advanceHeld(payeeId: string, ms: number, writtenBy: number, now: number): Promise<readonly number[]> {
    const moved = this.kept.newestFirst(payeeId, Number.POSITIVE_INFINITY, (d) => isHeld(d, now, writtenBy)).map((d) => released(d, ms, now));
    if (moved.length > 0) this.slot.log?.write(...deliveryRecords(moved));
    for (const d of moved) {
      const held = this.pending.get(d.id);
      // Not one erased, trimmed or claimed since: a claimed one's attempt decides what comes next.
      if (held && held.leaseUntil === 0 && held.delivery.attempt === 0) this.put(d);
    }
    return moved.map((d) => d.nextAttemptAt!);
  }

  /** Pending ones too, so none is sent after a reset; answers how many went. */
  erase(payeeId: string): number {
    for (const [id] of this.kept.oldestFirst(payeeId)) this.pending.delete(id);
    return this.kept.clear(payeeId);
  }
}
