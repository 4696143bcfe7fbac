import { RingBuffer } from "../core/internal.ts";
import type { QueueStrategy } from "./strategy.ts";

/** Dirty and held by the storage (ready to be handed out). */
export const QUEUED = 0;
/** Handed out, `done` not called yet, not added since. */
export const IN_FLIGHT = 1;
/** Handed out and added again since: `done` queues it again. */
export const IN_FLIGHT_DIRTY = 2;
/** Finished: the entry waits for the next sweep and counts as absent. */
export const GONE = 3;

/**
 * What the queue knows about one item. For an in-flight entry, `since` is the hand-out time (ms
 * after the queue's epoch, which keeps it a small integer) and `slot` its place in `InFlight`.
 */
export interface Entry<T> {
  readonly item: T;
  state: number;
  since: number;
  slot: number;
}

/**
 * The queue's entries, by item. A finished entry is not deleted at once but marked `GONE` and
 * swept in batches: deleting from a large `Map` costs a cache miss per item (the dominant cost of
 * draining a big queue), while a sweep copies only the live entries into a fresh map.
 *
 * Invariants: `live` counts the entries that are not `GONE`, `gone` the ones that are; when the
 * last live entry finishes the whole map is dropped (no entry is looked at: the common case of a
 * queue that keeps up); otherwise a sweep runs when `gone` exceeds `SWEEP_RATIO * live +
 * SWEEP_MIN`, so the table never holds more than that many finished entries (memory stays
 * proportional to the live items) and each finished entry costs amortised at most
 * `1 / SWEEP_RATIO` copies.
 */
export class EntryTable<T> {
  #map = new Map<T, Entry<T>>();
  /** Entries that are not `GONE`. */
  live = 0;
  #gone = 0;

  /** Entries held, live or `GONE` (for tests and diagnostics). */
  get size(): number {
    return this.#map.size;
  }

  /** The entry of `item`, live or `GONE`, if the table has one. */
  get(item: T): Entry<T> | undefined {
    return this.#map.get(item);
  }

  /** Adds a live entry for `item`, which has none. */
  create(item: T, state: number): Entry<T> {
    const entry: Entry<T> = { item, state, since: 0, slot: -1 };
    this.#map.set(item, entry);
    this.live++;
    return entry;
  }

  /** A `GONE` entry became live again. */
  revived(): void {
    this.#gone--;
    this.live++;
  }

  /** A live entry was marked `GONE`. */
  finished(): void {
    this.live--;
    this.#gone++;
    if (this.live === 0) {
      // Every entry is finished: drop them all at once, without looking at any.
      this.#map = new Map();
      this.#gone = 0;
    } else if (this.#gone > SWEEP_MIN && this.#gone > SWEEP_RATIO * this.live) this.#sweep();
  }

  /** Live entries, in the order they were created. */
  *values(): IterableIterator<Entry<T>> {
    for (const e of this.#map.values()) if (e.state !== GONE) yield e;
  }

  #sweep(): void {
    const old = this.#map;
    this.#map = new Map();
    if (this.live > 0) for (const [item, e] of old) if (e.state !== GONE) this.#map.set(item, e);
    this.#gone = 0;
  }
}

const SWEEP_MIN = 1024;
const SWEEP_RATIO = 3;

/** Where the queue keeps its `QUEUED` entries, in hand-out order. */
export interface EntryStorage<T> {
  readonly size: number;
  push(entry: Entry<T>): void;
  pop(): Entry<T>;
  touch(entry: Entry<T>): void;
  /** Queued items in hand-out order, or undefined when the order is not known. */
  items(): Iterable<T> | undefined;
}

/** The default storage: a FIFO of entries, so a hand-out needs no lookup by item. */
export class FifoEntryStorage<T> implements EntryStorage<T> {
  readonly #ring = new RingBuffer<Entry<T>>({ initialCapacity: 64 });

  get size(): number {
    return this.#ring.size;
  }

  push(entry: Entry<T>): void {
    this.#ring.push(entry);
  }

  pop(): Entry<T> {
    return this.#ring.shift()!;
  }

  touch(_entry: Entry<T>): void {}

  *items(): Iterable<T> {
    for (const e of this.#ring) yield e.item;
  }
}

/** Adapts a user's {@link QueueStrategy}, which deals in items, to entries. */
export class StrategyStorage<T> implements EntryStorage<T> {
  readonly #strategy: QueueStrategy<T>;
  readonly #table: EntryTable<T>;

  constructor(strategy: QueueStrategy<T>, table: EntryTable<T>) {
    this.#strategy = strategy;
    this.#table = table;
  }

  get size(): number {
    return this.#strategy.size;
  }

  push(entry: Entry<T>): void {
    this.#strategy.push(entry.item);
  }

  pop(): Entry<T> {
    const item = this.#strategy.pop();
    const entry = this.#table.get(item);
    if (entry === undefined || entry.state !== QUEUED) {
      throw new Error(
        `QueueStrategy.pop returned an item it was not given (or returned it twice): ${String(item)}`,
      );
    }
    return entry;
  }

  touch(entry: Entry<T>): void {
    this.#strategy.touch(entry.item);
  }

  items(): Iterable<T> | undefined {
    return this.#strategy.values?.();
  }
}
