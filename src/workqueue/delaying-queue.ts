import { type CancelTimer, Heap, type HeapNode } from "../core/index.ts";
import { Queue, type QueueOptions } from "./queue.ts";
import type { QueueSnapshot } from "./snapshot.ts";

/** Options for {@link DelayingQueue}: those of {@link Queue}. */
export interface DelayingQueueOptions<T> extends QueueOptions<T> {}

/** An item waiting for its delay. `seq` orders items due at the same time by arrival. */
interface Waiting<T> {
  readonly item: T;
  readyAt: number;
  readonly seq: number;
}

const earlier = <T>(a: Waiting<T>, b: Waiting<T>) =>
  a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);

/**
 * A {@link Queue} that can also add an item after a delay (client-go's delaying queue).
 *
 * Waiting items sit in a heap ordered by ready time, with one clock timer set for the earliest;
 * `addAfter` is O(log n) and there is never one timer per item. An item waits at most once: a
 * repeated `addAfter` keeps the earliest ready time (a later one never postpones it), an `add`
 * supersedes the waiting entry (one processing, not two — client-go processes it twice), and an
 * item that is already dirty (queued, or added again while in flight) is ready sooner than any
 * delay, so `addAfter` leaves it alone. Waiting items are invisible to `size`. Shutdown drops
 * them and cancels the timer at once. The constructor sets no timer.
 *
 * Takes {@link DelayingQueueOptions} (the same as {@link QueueOptions}).
 */
export class DelayingQueue<T extends NonNullable<unknown> = string> extends Queue<T> {
  /**
   * Invariants: `#byItem` maps each waiting item to its node in `#heap`, and nothing else; the
   * timer, when set, is due at `#timerAt`, no later than the earliest ready time; after shutdown
   * both are empty and no timer is set.
   */
  readonly #heap = new Heap<Waiting<T>>(earlier);
  readonly #byItem = new Map<T, HeapNode<Waiting<T>>>();
  #seq = 0;
  #timerAt = Number.POSITIVE_INFINITY;
  #cancelTimer: CancelTimer | undefined;

  /** Like {@link Queue.add}; also cancels a pending delayed add of `item`. */
  override add(item: T): void {
    if (this.#byItem.size > 0) this.#dropWaiting(item);
    super.add(item);
  }

  /**
   * Adds `item` once `delayMs` have passed on the clock; a delay of zero or less adds it now.
   * Keeps the earliest ready time when `item` already waits; does nothing when it is already
   * dirty or the queue is shutting down. Counts a retry (`workqueue_retries_total`).
   * @throws {RangeError} if `delayMs` is not a number.
   */
  addAfter(item: T, delayMs: number): void {
    if (typeof delayMs !== "number" || Number.isNaN(delayMs)) {
      throw new RangeError(
        `${this.constructor.name}.addAfter: delayMs must be a number, got ${delayMs}`,
      );
    }
    if (this.shuttingDown) return;
    this.recorder?.metrics.retries.inc();
    if (delayMs <= 0) {
      this.add(item);
      return;
    }
    if (this.isDirty(item)) return;
    this.addWaiting(item, this.clock.now() + delayMs);
  }

  override snapshot(): QueueSnapshot<T> {
    const snap = super.snapshot();
    snap.waiting = [...this.#heap.values()]
      .sort((a, b) => (earlier(a, b) ? -1 : 1))
      .map((w) => ({ item: w.item, readyAtMs: w.readyAt }));
    return snap;
  }

  /** Makes `item` wait until `readyAt`, or keeps its earlier ready time. Not after shutdown. */
  protected addWaiting(item: T, readyAt: number): void {
    const node = this.#byItem.get(item);
    if (node === undefined) {
      this.#byItem.set(item, this.#heap.push({ item, readyAt, seq: this.#seq++ }));
      this.recorder?.metrics.waiting.inc();
    } else if (readyAt < node.value.readyAt) {
      node.value.readyAt = readyAt;
      this.#heap.update(node);
    } else {
      return;
    }
    if (readyAt < this.#timerAt) this.#arm();
  }

  /** The items waiting for their delay, in no particular order. */
  protected waitingItems(): IterableIterator<T> {
    return this.#byItem.keys();
  }

  /** Called when a waiting item becomes ready, instead of `add`; the priority queue overrides. */
  protected fire(item: T): void {
    super.add(item);
  }

  protected override onShutDown(): void {
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    const waiting = this.recorder?.metrics.waiting;
    if (waiting !== undefined) for (let i = this.#heap.size; i > 0; i--) waiting.dec();
    this.#heap.clear();
    this.#byItem.clear();
  }

  #dropWaiting(item: T): void {
    const node = this.#byItem.get(item);
    if (node === undefined) return;
    this.#byItem.delete(item);
    this.#heap.remove(node);
    this.recorder?.metrics.waiting.dec();
    // The timer may now be early; it fires, finds nothing due and re-arms.
  }

  /** Sets the one timer for the earliest ready time, replacing a later one. */
  #arm(): void {
    const next = this.#heap.peek();
    if (next === undefined || next.readyAt >= this.#timerAt) return;
    this.#cancelTimer?.();
    this.#timerAt = next.readyAt;
    this.#cancelTimer = this.clock.setTimer(next.readyAt - this.clock.now(), () => this.#onTimer());
  }

  #onTimer(): void {
    this.#cancelTimer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    const now = this.clock.now();
    for (let next = this.#heap.peek(); next !== undefined && next.readyAt <= now; ) {
      this.#heap.pop();
      this.#byItem.delete(next.item);
      this.recorder?.metrics.waiting.dec();
      this.fire(next.item);
      next = this.#heap.peek();
    }
    this.#arm();
  }
}
