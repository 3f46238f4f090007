// The journal, the evidence, the deliveries and the idempotency keys each keep a capped, byte-counted list per merchant: one class, so their bounds cannot drift.
import { ByteTally } from './storage-quota.js';
import type { StorageRoom, TrimmablePart } from './storage-room.js';

interface ListBounds<K, V> {
  readonly cap: number;
  readonly bytesOf: (value: V, key: K) => number;
  /** Records found, replaced or removed by key; without it a list is only appended to (the journal, on every request, pays no Map). */
  readonly keyed?: boolean;
  /** A second bound, on a measure of its own (an idempotency answer's characters). */
  readonly weight?: { readonly of: (value: V) => number; readonly max: number };
  /** A trim leaves this many of the newest. */
  readonly keepsNewest?: number;
  /** Told of each record that goes; answers any bytes it held beside its own (a kept answer text). */
  readonly dropped?: (payeeId: string, value: V) => number | void;
}

/** Oldest first from `head`, in parallel arrays (no object per record); a record that goes leaves a hole until the next compaction. */
interface MerchantList<K, V> {
  keys: (K | undefined)[];
  values: (V | undefined)[];
  sizes: number[];
  head: number;
  count: number;
  weight: number;
  /** The slot of each key, when keyed. */
  readonly at: Map<K, number> | undefined;
}

export class MerchantLists<K, V> implements TrimmablePart {
  private readonly byMerchant = new Map<string, MerchantList<K, V>>();
  readonly bytes = new ByteTally();
  private room: StorageRoom | undefined;

  constructor(private readonly bounds: ListBounds<K, V>) {}

  keepWithin(room: StorageRoom): void {
    this.room = room;
  }

  /** A replaced record keeps its place, and only a new one is checked against the merchant's room. */
  put(payeeId: string, key: K, value: V): void {
    const list = this.byMerchant.get(payeeId) ?? this.fresh(payeeId);
    const { bytesOf, weight } = this.bounds;
    const size = bytesOf(value, key);
    const at = list.at?.get(key);
    let bytes = size;
    if (at === undefined) {
      if (list.keys.length - list.count > Math.max(64, list.count)) compact(list);
      list.at?.set(key, list.keys.length);
      list.keys.push(key);
      list.values.push(value);
      list.sizes.push(size);
      list.count++;
      if (weight) list.weight += weight.of(value);
    } else {
      bytes -= list.sizes[at]!;
      if (weight) list.weight += weight.of(value) - weight.of(list.values[at]!);
      list.values[at] = value;
      list.sizes[at] = size;
    }
    while (list.count > this.bounds.cap || (weight && list.weight > weight.max)) bytes -= this.drop(payeeId, list, oldest(list));
    this.bytes.add(payeeId, bytes);
    if (at === undefined) this.room?.kept(payeeId);
  }

  get(payeeId: string, key: K): V | undefined {
    const list = this.byMerchant.get(payeeId);
    const at = list?.at?.get(key);
    return at === undefined ? undefined : list!.values[at];
  }

  /** Removing the record just yielded is safe: only a put compacts. */
  *oldestFirst(payeeId: string): Generator<[K, V]> {
    const list = this.byMerchant.get(payeeId);
    for (let i = list?.head ?? 0; list && i < list.keys.length; i++) if (list.values[i] !== undefined) yield [list.keys[i]!, list.values[i]!];
  }

  /** At most `limit` of those `matches` keeps: a short page reads no further than it needs. */
  newestFirst(payeeId: string, limit: number, matches: (value: V) => boolean = () => true): V[] {
    const list = this.byMerchant.get(payeeId);
    const out: V[] = [];
    for (let i = (list?.keys.length ?? 0) - 1; list && i >= list.head && out.length < limit; i--) {
      const value = list.values[i];
      if (value !== undefined && matches(value)) out.push(value);
    }
    return out;
  }

  merchants(): IterableIterator<string> {
    return this.byMerchant.keys();
  }

  remove(payeeId: string, key: K): void {
    const list = this.byMerchant.get(payeeId);
    const at = list?.at?.get(key);
    if (at !== undefined) this.bytes.add(payeeId, -this.drop(payeeId, list!, at));
  }

  /** Oldest records go first, so a merchant keeps its newest. */
  trimOldest(payeeId: string, bytes: number): number {
    const list = this.byMerchant.get(payeeId);
    let freed = 0;
    while (list && list.count > (this.bounds.keepsNewest ?? 0) && freed < bytes) freed += this.drop(payeeId, list, oldest(list));
    this.bytes.add(payeeId, -freed);
    return freed;
  }

  /** Answers how many records went. */
  clear(payeeId: string): number {
    const count = this.byMerchant.get(payeeId)?.count ?? 0;
    this.byMerchant.delete(payeeId);
    this.bytes.clear(payeeId);
    return count;
  }

  private fresh(payeeId: string): MerchantList<K, V> {
    const list = { keys: [], values: [], sizes: [], head: 0, count: 0, weight: 0, at: this.bounds.keyed ? new Map<K, number>() : undefined };
    this.byMerchant.set(payeeId, list);
    return list;
  }

  /** Answers the bytes that went with it, for the caller to take off the tally. */
  private drop(payeeId: string, list: MerchantList<K, V>, at: number): number {
    const value = list.values[at]!;
    list.at?.delete(list.keys[at]!);
    list.keys[at] = list.values[at] = undefined;
    list.count--;
    if (this.bounds.weight) list.weight -= this.bounds.weight.of(value);
    return list.sizes[at]! + (this.bounds.dropped?.(payeeId, value) ?? 0);
  }
}

/** The slot of the oldest record; the list holds at least one. */
function oldest(list: MerchantList<unknown, unknown>): number {
  while (list.values[list.head] === undefined) list.head++;
  return list.head;
}

/** Once holes outnumber the records: each record moves about once per record dropped. */
function compact<K, V>(list: MerchantList<K, V>): void {
  const keep: number[] = [];
  for (let i = list.head; i < list.keys.length; i++) if (list.values[i] !== undefined) keep.push(i);
  list.keys = keep.map((i) => list.keys[i]);
  list.values = keep.map((i) => list.values[i]);
  list.sizes = keep.map((i) => list.sizes[i]!);
  list.head = 0;
  list.at?.clear();
  list.keys.forEach((key, i) => list.at?.set(key!, i));
}
