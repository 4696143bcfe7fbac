import { InvalidOptionError } from "../core/index.ts";
import { RingBuffer } from "../core/internal.ts";

/**
 * The order in which ready items leave a work queue (client-go's pluggable `Queue`, the seam of
 * the two-lane queue). The queue keeps the dedupe and in-flight rules; a strategy only stores the
 * items that are ready and decides which comes out next, so every strategy inherits "never two
 * workers on one item" and "N adds, one processing".
 *
 * The queue promises a strategy:
 * - `push(item)` only for an item the strategy does not hold;
 * - `pop()` only when `size > 0`;
 * - `touch(item)` only for an item the strategy holds, when it is added again (a strategy may then
 *   move it: the two-lane strategy moves it to the lane it now belongs to).
 * All calls come from one thread of control; a strategy needs no locking and must not call back
 * into the queue.
 */
export interface QueueStrategy<T> {
  /** How many items the strategy holds. */
  readonly size: number;
  /** Stores `item`, which the strategy does not hold yet. */
  push(item: T): void;
  /** Removes and returns the next item. Called only when `size > 0`. */
  pop(): T;
  /** `item`, which the strategy holds, was added again. */
  touch(item: T): void;
  /** The items held, in the order `pop` would return them (for `snapshot()`); optional. */
  values?(): Iterable<T>;
  /**
   * The items held per lane, for a strategy with a few fixed lanes (the two-lane strategy:
   * `{ fast, slow }`); a named queue reports them as `workqueue_depth_by_lane`. Optional.
   */
  lanes?(): Record<string, number>;
}

/**
 * Throws an {@link InvalidOptionError} naming `option` unless `strategy` has `push`, `pop`,
 * `touch` and a numeric `size`.
 */
export function checkStrategy<T>(
  owner: string,
  option: string,
  strategy: QueueStrategy<T>,
): QueueStrategy<T> {
  if (typeof strategy !== "object" || strategy === null) {
    throw new InvalidOptionError(owner, option, strategy, "must be a QueueStrategy object");
  }
  const missing = (["push", "pop", "touch"] as const).filter(
    (m) => typeof strategy[m] !== "function",
  );
  if (typeof strategy.size !== "number") missing.push("size" as never);
  if (missing.length > 0) {
    throw new InvalidOptionError(
      owner,
      option,
      strategy,
      `must implement push, pop, touch and size (missing ${missing.join(", ")})`,
    );
  }
  return strategy;
}

/** First in, first out: items leave in the order they became ready. The default strategy. */
export class FifoStrategy<T> implements QueueStrategy<T> {
  /** Popped slots are cleared, so the buffer never retains an item it handed out. */
  readonly #items = new RingBuffer<T>({ initialCapacity: 64 });

  get size(): number {
    return this.#items.size;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  pop(): T {
    return this.#items.shift() as T;
  }

  /** FIFO keeps the position an item got when it was first added. */
  touch(_item: T): void {}

  values(): Iterable<T> {
    return this.#items;
  }
}
