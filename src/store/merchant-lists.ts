// The journal, the evidence, the deliveries and the idempotency keys each keep a capped, byte-counted list per merchant: one class, so their bounds cannot drift.
import { ByteTally } from './storage-quota.js';
import type { StorageRoom, TrimmablePart } from './storage-room.js';

export interface ListBounds<K, V> {
  readonly cap: number;
  readonly bytesOf: (value: V, key: K) => number;
  /** A second bound, on a measure of its own (an idempotency answer's characters). */
  readonly weight?: { readonly of: (value: V) => number; readonly max: number };
  /** A trim leaves this many of the newest. */
  readonly keepsNewest?: number;
  /** For what a record shares with others (a kept answer text): answers the bytes that went with it. */
  readonly dropped?: (payeeId: string, value: V) => number | undefined;
}

/** A Map keeps insertion order, so the oldest go first and a replaced record keeps its place. */
type MerchantList<K, V> = { readonly values: Map<K, V>; readonly sizes: Map<K, number>; weight: number };

export class MerchantLists<K, V> implements TrimmablePart {
  private readonly byMerchant = new Map<string, MerchantList<K, V>>();
  readonly bytes = new ByteTally();
  private room: StorageRoom | undefined;

  constructor(private readonly bounds: ListBounds<K, V>) {}

  keepWithin(room: StorageRoom): void {
    this.room = room;
  }

  /** Only a new record is checked against the merchant's room: a replaced one is when the next arrives. */
  put(payeeId: string, key: K, value: V): void {
    let list = this.byMerchant.get(payeeId);
    if (!list) this.byMerchant.set(payeeId, (list = { values: new Map(), sizes: new Map(), weight: 0 }));
    const size = this.bounds.bytesOf(value, key);
    const before = list.sizes.get(key);
    const weight = this.bounds.weight;
    if (weight) list.weight += weight.of(value) - (before === undefined ? 0 : weight.of(list.values.get(key) as V));
    list.values.set(key, value);
    list.sizes.set(key, size);
    this.bytes.add(payeeId, size - (before ?? 0));
    while (list.values.size > this.bounds.cap || (weight && list.weight > weight.max)) this.remove(payeeId, oldest(list));
    if (before === undefined) this.room?.kept(payeeId);
  }

  get(payeeId: string, key: K): V | undefined {
    return this.byMerchant.get(payeeId)?.values.get(key);
  }

  oldestFirst(payeeId: string): IterableIterator<[K, V]> {
    return (this.byMerchant.get(payeeId)?.values ?? new Map<K, V>()).entries();
  }

  newestFirst(payeeId: string): V[] {
    return [...(this.byMerchant.get(payeeId)?.values.values() ?? [])].reverse();
  }

  merchants(): IterableIterator<string> {
    return this.byMerchant.keys();
  }

  /** Answers the bytes that went with it. */
  remove(payeeId: string, key: K): number {
    const list = this.byMerchant.get(payeeId);
    const size = list?.sizes.get(key);
    if (!list || size === undefined) return 0;
    const value = list.values.get(key) as V;
    if (this.bounds.weight) list.weight -= this.bounds.weight.of(value);
    list.values.delete(key);
    list.sizes.delete(key);
    const freed = size + (this.bounds.dropped?.(payeeId, value) ?? 0);
    this.bytes.add(payeeId, -freed);
    return freed;
  }

  /** Oldest records go first, so a merchant keeps its newest. */
  trimOldest(payeeId: string, bytes: number): number {
    const list = this.byMerchant.get(payeeId);
    let freed = 0;
    while (list && list.values.size > (this.bounds.keepsNewest ?? 0) && freed < bytes) freed += this.remove(payeeId, oldest(list));
    return freed;
  }

  /** Answers how many records went. */
  clear(payeeId: string): number {
    const size = this.byMerchant.get(payeeId)?.values.size ?? 0;
    this.byMerchant.delete(payeeId);
    this.bytes.clear(payeeId);
    return size;
  }
}

function oldest<K>(list: MerchantList<K, unknown>): K {
  return list.values.keys().next().value!;
}
