import { Heap, type HeapNode } from "../core/internal.ts";

/**
 * Items due at the same time (to the resolution), in arrival order. `stale` counts, per item, the
 * entries of `items` it left behind (by moving earlier or leaving); present only once one did.
 */
interface Bucket<T> {
  readonly at: number;
  items: T[];
  stale: Map<T, number> | undefined;
}

const earlier = <T>(a: Bucket<T>, b: Bucket<T>) => a.at < b.at;

/** {@link WaitingItems.add} result: the item already waited, to no later time. */
export const UNCHANGED = 0;
/** {@link WaitingItems.add} result: the item already waited, and now waits less. */
export const MOVED_EARLIER = 1;
/** {@link WaitingItems.add} result: the item was not waiting. */
export const ADDED = 2;

/** Buckets per millisecond: ready times are rounded up to 1/8 ms (a power of two, so exact). */
const BUCKETS_PER_MS = 8;

/** Above this many stale bucket entries (beyond the live ones), the buckets are rebuilt. */
const COMPACT_MIN = 1024;

/**
 * The items of a delaying queue waiting for their ready time, at a resolution of 1/8 ms: an item
 * is due at the first multiple of 1/8 ms at or after the time it asked for (never earlier; with a
 * clock of whole milliseconds, simply at its time), and items due at the same time come out in the
 * order they arrived at it. A heap of buckets, one per distinct due time, keeps `add` O(log b) for
 * b distinct due times — O(1) when the time already has a bucket, the common case under load —
 * and hands a whole bucket out with one heap operation. A waiting item costs a map entry and an
 * array slot: no object of its own, so that many waiting items do not burden the garbage collector.
 *
 * An item that moves to an earlier bucket, or leaves, is not searched for in its old bucket: it
 * stays there as a stale entry, counted in the bucket's `stale` and skipped when the bucket comes
 * out (the count tells an old entry from a new one when the item came back to the same bucket).
 *
 * Invariants: `#where` maps each waiting item to the bucket it is due in, whose `items` hold it
 * once more than its `stale` count says; `#byAt` maps the `at` of every bucket in `#heap` to its
 * node; `#stale` is the sum of the `stale` counts; it never exceeds the live entries by more than
 * `COMPACT_MIN`, so memory stays proportional to the waiting items.
 */
export class WaitingItems<T> {
  readonly #heap = new Heap<Bucket<T>>(earlier);
  readonly #byAt = new Map<number, HeapNode<Bucket<T>>>();
  readonly #where = new Map<T, Bucket<T>>();
  #stale = 0;

  /** Items waiting. */
  get size(): number {
    return this.#where.size;
  }

  /** The due time of the earliest bucket (which may hold only stale entries), if any. */
  nextAt(): number | undefined {
    return this.#heap.peek()?.at;
  }

  /**
   * Makes `item` due at `readyAt` (rounded up to the resolution), unless it is already due no
   * later. Returns {@link ADDED}, {@link MOVED_EARLIER} or {@link UNCHANGED}.
   */
  add(item: T, readyAt: number): number {
    const at = Math.ceil(readyAt * BUCKETS_PER_MS) / BUCKETS_PER_MS;
    const current = this.#where.get(item);
    if (current !== undefined && current.at <= at) return UNCHANGED;
    let node = this.#byAt.get(at);
    if (node === undefined) {
      node = this.#heap.push({ at, items: [], stale: undefined });
      this.#byAt.set(at, node);
    }
    node.value.items.push(item);
    this.#where.set(item, node.value);
    if (current === undefined) return ADDED;
    this.#leave(current, item);
    return MOVED_EARLIER;
  }

  /** Stops `item` waiting. Returns false if it was not waiting. */
  remove(item: T): boolean {
    const bucket = this.#where.get(item);
    if (bucket === undefined) return false;
    this.#where.delete(item);
    this.#leave(bucket, item);
    return true;
  }

  /** Removes every item due at or before `now` and passes it to `fire`, earliest first. */
  takeDue(now: number, fire: (item: T) => void): void {
    for (let top = this.#heap.peek(); top !== undefined && top.at <= now; top = this.#heap.peek()) {
      this.#heap.pop();
      this.#byAt.delete(top.at);
      const stale = top.stale;
      for (const item of top.items) {
        if (stale !== undefined && this.#consumeStale(stale, item)) continue;
        this.#where.delete(item);
        fire(item);
      }
    }
  }

  /** The waiting items with their due times, earliest first (arrival order within a time). */
  entries(): { item: T; at: number }[] {
    const out: { item: T; at: number }[] = [];
    const buckets = [...this.#heap.values()].sort((a, b) => a.at - b.at);
    for (const bucket of buckets) {
      const stale = bucket.stale === undefined ? undefined : new Map(bucket.stale);
      for (const item of bucket.items) {
        if (stale !== undefined && this.#consumeStale(stale, item, false)) continue;
        out.push({ item, at: bucket.at });
      }
    }
    return out;
  }

  /** The waiting items, in no particular order. */
  items(): IterableIterator<T> {
    return this.#where.keys();
  }

  clear(): void {
    this.#heap.clear();
    this.#byAt.clear();
    this.#where.clear();
    this.#stale = 0;
  }

  /** `item` no longer waits in `bucket`: its entry there turns stale. */
  #leave(bucket: Bucket<T>, item: T): void {
    bucket.stale ??= new Map();
    bucket.stale.set(item, (bucket.stale.get(item) ?? 0) + 1);
    this.#stale++;
    if (this.#stale > this.#where.size + COMPACT_MIN) this.#compact();
  }

  /** If `item` has stale entries left in `stale`, uses one up and returns true. */
  #consumeStale(stale: Map<T, number>, item: T, counted = true): boolean {
    const n = stale.get(item);
    if (n === undefined) return false;
    if (n === 1) stale.delete(item);
    else stale.set(item, n - 1);
    if (counted) this.#stale--;
    return true;
  }

  /** Rebuilds every bucket without its stale entries, keeping the order of the live ones. */
  #compact(): void {
    for (const [at, node] of this.#byAt) {
      const bucket = node.value;
      const stale = bucket.stale;
      if (stale !== undefined) {
        bucket.items = bucket.items.filter((item) => !this.#consumeStale(stale, item, false));
        bucket.stale = undefined;
      }
      if (bucket.items.length > 0) continue;
      this.#heap.remove(node);
      this.#byAt.delete(at);
    }
    this.#stale = 0;
  }
}
