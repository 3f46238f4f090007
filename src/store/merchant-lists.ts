// The evidence, the deliveries and the idempotency keys each keep a capped, byte-counted list per merchant: one class, so their bounds cannot drift.
import { ByteTally } from './storage-quota.js';
import type { StorageRoom, TrimmablePart } from './storage-room.js';

interface ListBounds<K, V> {
  readonly cap: number;
  /** Of the record as kept, so a record's bytes when it goes are those it counted when it came. */
  readonly bytesOf: (value: V, key: K) => number;
  /** A second bound, on a measure of its own (an idempotency answer's characters). */
  readonly weight?: { readonly of: (value: V) => number; readonly max: number };
  /** Told of each record that goes, removed, trimmed or over a bound (a delivery is then no longer pending). */
  readonly dropped?: (value: V) => void;
}

/** A Map keeps insertion order, so the oldest go first and a replaced record keeps its place. */
interface MerchantList<K, V> {
  readonly values: Map<K, V>;
  weight: number;
  /** Kept across drops: a fresh iterator would step over every hole the drops left (~100 ns at 500 records). */
  oldest?: Iterator<K>;
}

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
    if (!list) this.byMerchant.set(payeeId, (list = { values: new Map(), weight: 0 }));
    const { bytesOf, weight } = this.bounds;
    const before = list.values.get(key);
    list.values.set(key, value);
    let bytes = bytesOf(value, key) - (before === undefined ? 0 : bytesOf(before, key));
    if (weight) list.weight += weight.of(value) - (before === undefined ? 0 : weight.of(before));
    while (list.values.size > this.bounds.cap || (weight && list.weight > weight.max)) bytes -= this.drop(list, oldest(list));
    this.bytes.add(payeeId, bytes);
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

  remove(payeeId: string, key: K): void {
    const list = this.byMerchant.get(payeeId);
    if (list?.values.has(key)) this.bytes.add(payeeId, -this.drop(list, key));
  }

  /** Oldest records go first, so a merchant keeps its newest. */
  trimOldest(payeeId: string, bytes: number): number {
    const list = this.byMerchant.get(payeeId);
    let freed = 0;
    while (list && list.values.size > 0 && freed < bytes) freed += this.drop(list, oldest(list));
    this.bytes.add(payeeId, -freed);
    return freed;
  }

  /** Answers how many records went. */
  clear(payeeId: string): number {
    const size = this.byMerchant.get(payeeId)?.values.size ?? 0;
    this.byMerchant.delete(payeeId);
    this.bytes.clear(payeeId);
    return size;
  }

  /** Answers its bytes, for the caller to take off the tally. */
  private drop(list: MerchantList<K, V>, key: K): number {
    const value = list.values.get(key) as V;
    list.values.delete(key);
    if (this.bounds.weight) list.weight -= this.bounds.weight.of(value);
    this.bounds.dropped?.(value);
    return this.bounds.bytesOf(value, key);
  }
}

/** Only to drop it: the iterator moves past it. */
function oldest<K>(list: MerchantList<K, unknown>): K {
  let next = list.oldest?.next();
  if (!next || next.done) next = (list.oldest = list.values.keys()).next();
  return next.value as K;
}
