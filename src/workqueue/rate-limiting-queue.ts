import { DelayingQueue } from "./delaying-queue.ts";
import type { QueueOptions } from "./queue.ts";
import { checkRateLimiter, type RateLimiter } from "./rate-limiter.ts";
import { defaultControllerRateLimiter } from "./rate-limiters.ts";
import type { QueueSnapshot } from "./snapshot.ts";

/** Options for {@link RateLimitingQueue}. */
export interface RateLimitingQueueOptions<T> extends QueueOptions<T> {
  /**
   * Decides how long `addRateLimited` waits.
   * @default defaultControllerRateLimiter({ clock }) (per item 5 ms → 1000 s, overall 10/s burst 100)
   */
  rateLimiter?: RateLimiter<T>;
}

/**
 * A {@link DelayingQueue} that retries failing items with a {@link RateLimiter} (client-go's
 * rate-limiting queue). A worker that fails calls `addRateLimited(item)`; one that succeeds calls
 * `forget(item)` so the limiter drops the item's failures; both then call `done(item)`.
 */
export class RateLimitingQueue<T extends NonNullable<unknown> = string> extends DelayingQueue<T> {
  readonly #rateLimiter: RateLimiter<T>;

  constructor(options: RateLimitingQueueOptions<T> = {}) {
    super(options);
    this.#rateLimiter =
      options.rateLimiter === undefined
        ? this.defaultRateLimiter()
        : checkRateLimiter(new.target.name, "rateLimiter", options.rateLimiter);
  }

  /**
   * `addAfter(item, rateLimiter.when(item))`. The limiter counts the failure even when the item
   * is already waiting or queued (so its next delay grows); after shutdown it is not asked.
   */
  addRateLimited(item: T): void {
    if (this.shuttingDown) return;
    this.addAfter(item, this.#rateLimiter.when(item));
  }

  /** Forgets `item`'s failures (call it when the item succeeded). Does not remove it from the queue. */
  forget(item: T): void {
    this.#rateLimiter.forget(item);
  }

  /** How many times `item` was rate-limited since it was last forgotten. */
  numRequeues(item: T): number {
    return this.#rateLimiter.numRequeues(item);
  }

  override snapshot(): QueueSnapshot<T> {
    const snap = super.snapshot();
    const items = new Set<T>([
      ...snap.ready.map((e) => e.item),
      ...snap.inFlight.map((e) => e.item),
      ...snap.waiting.map((e) => e.item),
    ]);
    for (const item of items) {
      const count = this.#rateLimiter.numRequeues(item);
      if (count > 0) snap.requeues.push({ item, count });
    }
    return snap;
  }

  /** The queue's rate limiter. */
  protected get rateLimiter(): RateLimiter<T> {
    return this.#rateLimiter;
  }

  /** The limiter used when none is given; the priority queue uses the per-item one alone. */
  protected defaultRateLimiter(): RateLimiter<T> {
    return defaultControllerRateLimiter<T>({ clock: this.clock });
  }
}
