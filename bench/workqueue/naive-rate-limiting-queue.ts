import { NaiveQueue } from "./naive-queue.ts";

/**
 * The naive rate-limited baseline: the naive queue plus a `Map` of failure counts, an exponential
 * delay per item (`baseDelayMs · 2^failures`, capped), and `setTimeout` for a positive delay — what
 * one writes without a delaying layer. With a zero base delay (workload W4) every
 * `addRateLimited` is an immediate `add`, as in kontroller.
 */
export class NaiveRateLimitingQueue<T> extends NaiveQueue<T> {
  readonly #failures = new Map<T, number>();
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;

  constructor(baseDelayMs: number, maxDelayMs: number) {
    super();
    this.#baseDelayMs = baseDelayMs;
    this.#maxDelayMs = maxDelayMs;
  }

  addRateLimited(item: T): void {
    const failures = this.#failures.get(item) ?? 0;
    this.#failures.set(item, failures + 1);
    this.addAfter(item, Math.min(this.#baseDelayMs * 2 ** failures, this.#maxDelayMs));
  }

  /** A timer per call: the obvious way to delay without a heap. */
  addAfter(item: T, delayMs: number): void {
    if (delayMs <= 0) this.add(item);
    else setTimeout(() => this.add(item), delayMs);
  }

  forget(item: T): void {
    this.#failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.#failures.get(item) ?? 0;
  }
}
