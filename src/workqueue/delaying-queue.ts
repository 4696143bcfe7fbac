import type { CancelTimer } from "../core/index.ts";
import { Queue, type QueueOptions } from "./queue.ts";
import type { QueueSnapshot } from "./snapshot.ts";
import { ADDED, UNCHANGED, WaitingItems } from "./waiting.ts";

/** Options for {@link DelayingQueue}: those of {@link Queue}. */
export interface DelayingQueueOptions<T> extends QueueOptions<T> {}

/**
 * A {@link Queue} that can also add an item after a delay (client-go's delaying queue).
 *
 * Waiting items sit in a heap of buckets (one per distinct ready time) with one clock timer set
 * for the earliest; `addAfter` is O(log n) at worst (O(1) into an existing bucket) and there is
 * never one timer per item. Ready times have a resolution of 1/8 ms: an item becomes ready at the
 * first multiple of 1/8 ms at or after its ready time, never before it, and items ready at the
 * same time are added in the order they arrived at it. An item waits at most once: a
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
   * Invariants: the timer, when set, is due at `#timerAt`, no later than the earliest ready time
   * in `#waiting`; after shutdown `#waiting` is empty and no timer is set.
   */
  readonly #waiting = new WaitingItems<T>();
  readonly #fire = (item: T) => this.fire(item);
  #timerAt = Number.POSITIVE_INFINITY;
  #cancelTimer: CancelTimer | undefined;

  /** Like {@link Queue.add}; also cancels a pending delayed add of `item`. */
  override add(item: T): void {
    if (this.#waiting.size > 0 && this.#waiting.remove(item)) {
      this.recorder?.metrics.waiting.dec();
    }
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
    snap.waiting = this.#waiting.entries().map((w) => ({ item: w.item, readyAtMs: w.at }));
    return snap;
  }

  /** Makes `item` wait until `readyAt`, or keeps its earlier ready time. Not after shutdown. */
  protected addWaiting(item: T, readyAt: number): void {
    const change = this.#waiting.add(item, readyAt);
    if (change === UNCHANGED) return;
    if (change === ADDED) this.recorder?.metrics.waiting.inc();
    if (readyAt < this.#timerAt) this.#arm();
  }

  /** The items waiting for their delay, in no particular order. */
  protected waitingItems(): IterableIterator<T> {
    return this.#waiting.items();
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
    if (waiting !== undefined) for (let i = this.#waiting.size; i > 0; i--) waiting.dec();
    this.#waiting.clear();
  }

  /** Sets the one timer for the earliest ready time, replacing a later one. */
  #arm(): void {
    const next = this.#waiting.nextAt();
    if (next === undefined || next >= this.#timerAt) return;
    this.#cancelTimer?.();
    this.#timerAt = next;
    this.#cancelTimer = this.clock.setTimer(next - this.clock.now(), () => this.#onTimer());
  }

  #onTimer(): void {
    this.#cancelTimer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    const before = this.#waiting.size;
    this.#waiting.takeDue(this.clock.now(), this.#fire);
    const waiting = this.recorder?.metrics.waiting;
    if (waiting !== undefined) for (let i = before - this.#waiting.size; i > 0; i--) waiting.dec();
    this.#arm();
  }
}
