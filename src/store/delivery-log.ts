/**
 * Where webhook deliveries are kept: written with the payment change that causes them (an
 * outbox), claimed for sending under a lease, so that whichever instance is alive sends each
 * one and its retries, also after the instance that started them died.
 */
import { ByteTally, deliveryBytes } from './storage-quota.js';
import type { StorageRoom, TrimmablePart } from './storage-room.js';
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
  /** The signed JSON body, sent as is on every attempt. */
  readonly body: string;
  readonly state: DeliveryState;
  readonly attempts: readonly DeliveryAttempt[];
  /** Index of the next attempt in the retry schedule. */
  readonly attempt: number;
  /** Real ms of the next attempt; null once delivered or failed. */
  readonly nextAttemptAt: number | null;
  readonly createdAt: number;
  /**
   * Only on a delivery held by the delay drill: how long after the first delivery of its change
   * it goes (reorder, duplicate), a spacing kept when a clock advance releases it early.
   */
  readonly heldGapMs?: number;
}

/**
 * The url of a delivery made while no URL was set, for a `payreq-sandbox listen` listener
 * (SPEC 22): only an instance its merchant's listener is connected to claims it.
 */
export const LISTENER_ONLY = 'payreq-sandbox listen';

/** Deliveries kept per merchant; the oldest go first. */
export const DELIVERY_LOG_CAP = 200;

/** Held by the delay drill, not yet due by `now`, never attempted, and written by `writtenBy`. */
export function isHeld(d: Delivery, now: number, writtenBy: number): boolean {
  return d.heldGapMs !== undefined && d.state === 'pending' && d.attempt === 0 && d.nextAttemptAt !== null && d.nextAttemptAt > now && d.createdAt <= writtenBy;
}

/** A held delivery once its merchant's clock moved `ms` forward: due that much earlier, not before `now` plus its gap. */
export function released(d: Delivery, ms: number, now: number): Delivery {
  return { ...d, nextAttemptAt: Math.max(d.nextAttemptAt! - ms, now + (d.heldGapMs ?? 0)) };
}

/**
 * How many deliveries of each merchant a claim may hand out: `perMerchant` minus those of the
 * merchant the claiming instance is sending already (read when claimDue is called). The claim
 * goes round-robin from there: a merchant's k-th next delivery comes in turn `inFlight + k`.
 */
export interface MerchantPlaces {
  readonly perMerchant: number;
  readonly inFlight: ReadonlyMap<string, number>;
  /** Merchants whose listener is connected to the claiming instance: their deliveries go to it, URL or not. */
  readonly listening?: ReadonlySet<string>;
}

/**
 * Whether the claiming instance may send `d` (SPEC 22): its merchant's listener is connected here,
 * or it has a URL to go to. PostgreSQL also leaves a merchant whose listener is on another instance to that one.
 */
export function claimableHere(d: Delivery, places: MerchantPlaces): boolean {
  return places.listening?.has(d.payeeId) === true || d.url !== LISTENER_ONLY;
}

/** No limit per merchant: only claimDue's `max` bounds a claim. */
export const ANY_MERCHANT: MerchantPlaces = { perMerchant: Number.POSITIVE_INFINITY, inFlight: new Map() };

/** Places left to the merchant under `places`. */
export function placesLeft(places: MerchantPlaces, payeeId: string): number {
  return places.perMerchant - (places.inFlight.get(payeeId) ?? 0);
}

/**
 * The order of a claim in every store (PostgreSQL writes it in SQL): round-robin across merchants,
 * a merchant's k-th due delivery in turn its in-flight plus k, so one with a long backlog never
 * goes before another's next; each merchant's own in due order; none past its places; at most `max`.
 */
export function inTurn(due: readonly Delivery[], max: number, places: MerchantPlaces): Delivery[] {
  if (max <= 0) return [];
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
    const room = Math.min(placesLeft(places, payeeId), max, own.length);
    for (let k = 0; k < room; k++) turns.push({ delivery: own[k]!, turn: flying + k + 1 });
  }
  turns.sort((a, b) => a.turn - b.turn || a.delivery.nextAttemptAt! - b.delivery.nextAttemptAt!);
  return turns.slice(0, max).map((t) => t.delivery);
}

/** What comes after an attempt. */
export interface AttemptOutcome {
  readonly state: DeliveryState;
  readonly attempt: number;
  readonly nextAttemptAt: number | null;
}

export interface DeliveryLog {
  /** Stores deliveries that no payment change causes (a test event). */
  record(deliveries: readonly Delivery[]): Promise<void>;
  /** Newest first, at most `limit`. */
  list(payeeId: string, limit: number): Promise<readonly Delivery[]>;
  get(payeeId: string, id: string): Promise<Delivery | undefined>;
  /**
   * Pending deliveries due by `now` that nobody holds, in turn (see inTurn): at most `max` and at
   * most the places left to each merchant (the others stay pending, queued), each now held for
   * `leaseMs`: no other instance claims it until the lease ends or the attempt is recorded.
   */
  claimDue(now: number, leaseMs: number, max: number, places?: MerchantPlaces): Promise<readonly Delivery[]>;
  /**
   * Records that this instance holds listeners of `payeeIds` (and no other merchant's) until
   * `until`, so that other instances leave their deliveries to it. One process needs none of it.
   */
  holdListeners?(payeeIds: readonly string[], now: number, until: number): Promise<void>;
  /**
   * Keeps a listener's answer for the instance whose attempt waits for it (another instance);
   * false when no attempt of `payeeId` is being sent as `attempt` (1 for the first) now.
   */
  passAnswer?(payeeId: string, deliveryId: string, attempt: number, answer: string, now: number): Promise<boolean>;
  /** Takes (removes) the answers kept for these attempts, as passAnswer kept them. */
  takeAnswers?(attempts: readonly { readonly deliveryId: string; readonly attempt: number }[]): Promise<readonly { deliveryId: string; attempt: number; payeeId: string; answer: string }[]>;
  /** Records an attempt of a claimed delivery and what comes next; releases the lease. */
  recordAttempt(id: string, attempt: DeliveryAttempt, next: AttemptOutcome): Promise<void>;
  /** Makes a delivered or failed delivery pending again from the first attempt; answers it, or undefined when unknown, or 'pending' when it still is. */
  resend(payeeId: string, id: string, now: number): Promise<Delivery | 'pending' | undefined>;
  /**
   * The merchant's clock moved `ms` forward: its deliveries held by the delay drill (held in
   * sandbox seconds) that were written by `writtenBy` (real ms, before the clock moved) come due
   * `ms` earlier (see released). Answers when each one moved is now due.
   */
  advanceHeld(payeeId: string, ms: number, writtenBy: number, now: number): Promise<readonly number[]>;
  /** Erases the merchant's deliveries, pending ones included. */
  clear(payeeId: string): Promise<void>;
}

/** The deliveries of one process: the memory store's, and the file store's in front of its files (file-parts.ts). */
export class MemoryDeliveryLog implements DeliveryLog, TrimmablePart {
  private readonly byMerchant = new Map<string, Delivery[]>();
  /** The stored bytes of the deliveries kept, per merchant (storage quota). */
  readonly bytes = new ByteTally();
  private readonly pending = new Map<string, { delivery: Delivery; leaseUntil: number }>();
  private room: StorageRoom | undefined;

  keepWithin(room: StorageRoom): void {
    this.room = room;
  }

  /** The merchant's oldest deliveries go, pending ones too, until `bytes` went (storage-room.ts). */
  trimOldest(payeeId: string, bytes: number): number {
    const log = this.byMerchant.get(payeeId);
    let freed = 0;
    while (log && log.length > 0 && freed < bytes) {
      const trimmed = log.pop()!;
      this.pending.delete(trimmed.id);
      freed += deliveryBytes(trimmed);
    }
    this.bytes.add(payeeId, -freed);
    return freed;
  }

  /** Called by the store once the change that caused them is stored. */
  add(deliveries: readonly Delivery[]): void {
    for (const d of deliveries) {
      let log = this.byMerchant.get(d.payeeId);
      if (!log) this.byMerchant.set(d.payeeId, (log = []));
      log.unshift(d);
      this.bytes.add(d.payeeId, deliveryBytes(d));
      if (d.state === 'pending') this.pending.set(d.id, { delivery: d, leaseUntil: 0 });
      // Trimmed deliveries are gone, pending ones included: work stays bounded too.
      while (log.length > DELIVERY_LOG_CAP) {
        const trimmed = log.pop()!;
        this.pending.delete(trimmed.id);
        this.bytes.add(d.payeeId, -deliveryBytes(trimmed));
      }
      this.room?.kept(d.payeeId);
    }
  }

  async record(deliveries: readonly Delivery[]): Promise<void> {
    this.add(deliveries);
  }

  /** Stores a delivery read back from a file: replaces the one with its id, or adds it as the newest. */
  put(d: Delivery): void {
    if (!this.replace(d)) return this.add([d]);
    if (d.state === 'pending') this.pending.set(d.id, { delivery: d, leaseUntil: 0 });
    else this.pending.delete(d.id);
  }

  /** Every delivery, oldest first per merchant: adding them in this order rebuilds the log. */
  *all(): Generator<Delivery> {
    for (const log of this.byMerchant.values()) for (let i = log.length - 1; i >= 0; i--) yield log[i]!;
  }

  get size(): number {
    let n = 0;
    for (const log of this.byMerchant.values()) n += log.length;
    return n;
  }

  async list(payeeId: string, limit: number): Promise<readonly Delivery[]> {
    return (this.byMerchant.get(payeeId) ?? []).slice(0, limit);
  }

  async get(payeeId: string, id: string): Promise<Delivery | undefined> {
    return this.find(payeeId, id);
  }

  async claimDue(now: number, leaseMs: number, max: number, places: MerchantPlaces = ANY_MERCHANT): Promise<readonly Delivery[]> {
    const due: Delivery[] = [];
    for (const held of this.pending.values()) {
      const { delivery } = held;
      if (held.leaseUntil <= now && delivery.nextAttemptAt !== null && delivery.nextAttemptAt <= now && claimableHere(delivery, places)) due.push(delivery);
    }
    const claimed = inTurn(due, max, places);
    for (const d of claimed) this.pending.get(d.id)!.leaseUntil = now + leaseMs;
    return claimed;
  }

  async recordAttempt(id: string, attempt: DeliveryAttempt, next: AttemptOutcome): Promise<void> {
    this.attempted(id, attempt, next);
  }

  /** Records an attempt; answers the delivery as it now is, or undefined when it is no longer pending here. */
  attempted(id: string, attempt: DeliveryAttempt, next: AttemptOutcome): Delivery | undefined {
    const held = this.pending.get(id);
    if (!held) return undefined; // erased by a reset, or trimmed, while it was being sent
    const updated: Delivery = { ...held.delivery, attempts: [...held.delivery.attempts, attempt], ...next };
    this.replace(updated);
    if (updated.state === 'pending') this.pending.set(id, { delivery: updated, leaseUntil: 0 });
    else this.pending.delete(id);
    return updated;
  }

  async resend(payeeId: string, id: string, now: number): Promise<Delivery | 'pending' | undefined> {
    const again = this.resendable(payeeId, id, now);
    if (typeof again === 'object') this.put(again);
    return again;
  }

  /** The delivery made pending again from the first attempt (not stored yet), or why not: see resend. */
  resendable(payeeId: string, id: string, now: number): Delivery | 'pending' | undefined {
    const current = this.find(payeeId, id);
    if (!current) return undefined;
    if (current.state === 'pending') return 'pending';
    return { ...current, state: 'pending', attempt: 0, nextAttemptAt: now };
  }

  async advanceHeld(payeeId: string, ms: number, writtenBy: number, now: number): Promise<readonly number[]> {
    const moved = this.advancedHeld(payeeId, ms, writtenBy, now);
    this.putPending(moved);
    return moved.map((d) => d.nextAttemptAt!);
  }

  /** The merchant's held deliveries as they are once its clock moved (not stored yet): see advanceHeld. */
  advancedHeld(payeeId: string, ms: number, writtenBy: number, now: number): Delivery[] {
    return (this.byMerchant.get(payeeId) ?? []).filter((d) => isHeld(d, now, writtenBy)).map((d) => released(d, ms, now));
  }

  /** Stores deliveries still waiting for their first attempt here (not erased, trimmed, claimed or sent meanwhile). */
  putPending(deliveries: readonly Delivery[]): void {
    for (const d of deliveries) {
      const held = this.pending.get(d.id);
      if (held && held.leaseUntil === 0 && held.delivery.attempt === 0) this.put(d);
    }
  }

  async clear(payeeId: string): Promise<void> {
    for (const d of this.byMerchant.get(payeeId) ?? []) this.pending.delete(d.id);
    this.byMerchant.delete(payeeId);
    this.bytes.clear(payeeId);
  }

  find(payeeId: string, id: string): Delivery | undefined {
    return this.byMerchant.get(payeeId)?.find((d) => d.id === id);
  }

  /** Replaces the delivery with `d`'s id; false when there is none. */
  private replace(d: Delivery): boolean {
    const log = this.byMerchant.get(d.payeeId);
    const at = log?.findIndex((x) => x.id === d.id) ?? -1;
    if (at < 0) return false;
    this.bytes.add(d.payeeId, deliveryBytes(d) - deliveryBytes(log![at]!));
    log![at] = d;
    return true;
  }
}
