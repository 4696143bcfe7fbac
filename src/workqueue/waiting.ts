import { Heap, type HeapNode } from "../core/index.ts";

/** Items due at the same time (to the resolution), in arrival order. */
interface Bucket<T> {
  readonly at: number;
  items: T[];
}

/** Where a waiting item is: its bucket, and its place in the bucket's `items`. */
interface Slot<T> {
  readonly bucket: Bucket<T>;
  readonly index: number;
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
 * and hands a whole bucket out with one heap operation.
 *
 * An item that moves to an earlier bucket, or leaves, is not searched for in its old bucket: it
 * stays there as a stale entry, skipped when the bucket comes out.
 *
 * Invariants: `#where` maps each waiting item to its slot: the bucket it is due in and its index
 * there (any other entry of the item in a bucket is stale); `#byAt` maps the `at` of every bucket in `#heap` to its node; `#entries` counts the entries
 * of all buckets, live or stale; there are never more than `COMPACT_MIN` stale entries beyond the
 * live ones, so memory stays proportional to the waiting items.
 */
export class WaitingItems<T> {
  readonly #heap = new Heap<Bucket<T>>(earlier);
  readonly #byAt = new Map<number, HeapNode<Bucket<T>>>();
  readonly #where = new Map<T, Slot<T>>();
  #entries = 0;

  /** Items waiting. */
  get size(): number {
    return this.#where.size;
  }

  /** The due time of the earliest bucket (which may hold only stale entries), if any. */
  nextAt(): number | undefined {
    return this.#heap.peek()?.at;
  }

  /**
   * Makes `item` due at `readyAt` (rounded up to the resolution), unless it is already due
   * no later. Returns {@link ADDED}, {@link MOVED_EARLIER} or {@link UNCHANGED}.
   */
  add(item: T, readyAt: number): number {
    const at = Math.ceil(readyAt * BUCKETS_PER_MS) / BUCKETS_PER_MS;
    const current = this.#where.get(item);
    if (current !== undefined && current.bucket.at <= at) return UNCHANGED;
    let node = this.#byAt.get(at);
    if (node === undefined) {
      node = this.#heap.push({ at, items: [] });
      this.#byAt.set(at, node);
    }
    const bucket = node.value;
    this.#where.set(item, { bucket, index: bucket.items.push(item) - 1 });
    this.#entries++;
    if (current !== undefined) this.#compactIfStale();
    return current === undefined ? ADDED : MOVED_EARLIER;
  }

  /** Stops `item` waiting. Returns false if it was not waiting. */
  remove(item: T): boolean {
    if (!this.#where.delete(item)) return false;
    this.#compactIfStale();
    return true;
  }

  /** Removes every item due at or before `now` and passes it to `fire`, earliest first. */
  takeDue(now: number, fire: (item: T) => void): void {
    for (let top = this.#heap.peek(); top !== undefined && top.at <= now; top = this.#heap.peek()) {
      this.#heap.pop();
      this.#byAt.delete(top.at);
      this.#entries -= top.items.length;
      const items = top.items;
      for (let i = 0; i < items.length; i++) {
        const item = items[i]!;
        const slot = this.#where.get(item);
        if (slot === undefined || slot.bucket !== top || slot.index !== i) continue;
        this.#where.delete(item);
        fire(item);
      }
    }
  }

  /** The waiting items with their due times, earliest first. */
  entries(): { item: T; at: number }[] {
    return [...this.#where]
      .map(([item, slot]) => ({ item, at: slot.bucket.at, index: slot.index }))
      .sort((a, b) => a.at - b.at || a.index - b.index)
      .map(({ item, at }) => ({ item, at }));
  }

  /** The waiting items, in no particular order. */
  items(): IterableIterator<T> {
    return this.#where.keys();
  }

  clear(): void {
    this.#heap.clear();
    this.#byAt.clear();
    this.#where.clear();
    this.#entries = 0;
  }

  #compactIfStale(): void {
    if (this.#entries - this.#where.size <= this.#where.size + COMPACT_MIN) return;
    for (const [at, node] of this.#byAt) {
      const bucket = node.value;
      const live: T[] = [];
      bucket.items.forEach((item, i) => {
        const slot = this.#where.get(item);
        if (slot === undefined || slot.bucket !== bucket || slot.index !== i) return;
        this.#where.set(item, { bucket, index: live.push(item) - 1 });
      });
      bucket.items = live;
      if (live.length > 0) continue;
      this.#heap.remove(node);
      this.#byAt.delete(at);
    }
    this.#entries = this.#where.size;
  }
}
