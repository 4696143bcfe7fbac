import { InvalidOptionError } from "../core/index.ts";
import { PriorityStrategy } from "./priority-strategy.ts";
import type { QueueGetOptions, QueueOptions } from "./queue.ts";
import type { RateLimiter } from "./rate-limiter.ts";
import { ItemExponentialFailureRateLimiter } from "./rate-limiters.ts";
import { RateLimitingQueue } from "./rate-limiting-queue.ts";
import type { QueueSnapshot } from "./snapshot.ts";

/** Options for {@link PriorityQueue}: those of a queue, without a strategy (priority is the order). */
export interface PriorityQueueOptions<T> extends Omit<QueueOptions<T>, "strategy"> {
  /**
   * Decides how long `addRateLimited` (and `add` with `rateLimited`) waits.
   * @default new ItemExponentialFailureRateLimiter({ baseDelayMs: 5, maxDelayMs: 1_000_000 }) —
   * per item only, as controller-runtime's priority queue: no shared bucket whose tail grows with
   * every mass requeue.
   */
  rateLimiter?: RateLimiter<T>;
}

/** Options of {@link PriorityQueue.add}. */
export interface PriorityAddOptions {
  /**
   * Higher is handed out first; an integer. An item keeps the highest priority it was added with
   * until it is handed out.
   * @default 0
   */
  priority?: number;
  /**
   * Ready only after this many ms (as `addAfter`); zero or less means now.
   * @default 0
   */
  afterMs?: number;
  /**
   * Wait as the rate limiter says (as `addRateLimited`); with `afterMs` too, the shorter wait wins.
   * @default false
   */
  rateLimited?: boolean;
}

/** An item and the priority it was handed out with. */
export interface PrioritizedItem<T> {
  item: T;
  priority: number;
}

/**
 * A rate-limiting work queue ordered by integer priority (controller-runtime's priority queue):
 * the highest priority first, FIFO within a priority. Re-adding keeps the highest priority and the
 * earliest ready time; raising the priority of a queued item moves it to the back of its new
 * priority; a delayed item joins its priority when it becomes ready. A controller typically adds
 * the initial list and resyncs at a low priority (say −100) so that real changes go first.
 *
 * Everything else is the {@link RateLimitingQueue}'s: dedupe, never two workers on one item, and
 * the same shutdown — unlike controller-runtime, `get` keeps handing out what is queued.
 */
export class PriorityQueue<T extends NonNullable<unknown> = string> extends RateLimitingQueue<T> {
  readonly #strategy: PriorityStrategy<T>;

  constructor(options: PriorityQueueOptions<T> = {}) {
    const strategy = new PriorityStrategy<T>();
    super({ ...options, strategy });
    this.#strategy = strategy;
    strategy.depth = this.recorder?.metrics.priorityDepth;
  }

  /**
   * Adds `item` with a priority, a delay, or rate limiting (see {@link PriorityAddOptions});
   * without options it is `Queue.add` at priority 0. Ignored after shutdown.
   * @throws {InvalidOptionError} if `priority` is not an integer or `afterMs` is not a number.
   */
  override add(item: T, options?: PriorityAddOptions): void {
    const priority = options?.priority ?? 0;
    if (!Number.isSafeInteger(priority)) {
      throw new InvalidOptionError("PriorityQueue.add", "priority", priority, "must be an integer");
    }
    let delayMs = options?.afterMs ?? 0;
    if (typeof delayMs !== "number" || Number.isNaN(delayMs)) {
      throw new InvalidOptionError("PriorityQueue.add", "afterMs", delayMs, "must be a number");
    }
    if (this.shuttingDown) return;
    if (options?.rateLimited === true) {
      const limited = this.rateLimiter.when(item);
      delayMs = delayMs > 0 ? Math.min(delayMs, limited) : limited;
    }
    this.#strategy.offer(item, priority);
    if (delayMs > 0) super.addAfter(item, delayMs);
    else super.add(item);
  }

  /** Like `get`, with the priority the item was handed out with. */
  async getWithPriority(options?: QueueGetOptions): Promise<PrioritizedItem<T> | undefined> {
    const item = await this.get(options);
    if (item === undefined) return undefined;
    return { item, priority: this.#strategy.priorityOf(item) ?? 0 };
  }

  override done(item: T): void {
    this.#strategy.release(item);
    super.done(item);
  }

  override snapshot(): QueueSnapshot<T> {
    const snap = super.snapshot();
    for (const w of snap.waiting) w.priority = this.#strategy.pendingPriority(w.item);
    return snap;
  }

  protected override readyEntry(item: T): { item: T; priority?: number } {
    return { item, priority: this.#strategy.priorityOf(item) ?? 0 };
  }

  protected override defaultRateLimiter(): RateLimiter<T> {
    return new ItemExponentialFailureRateLimiter<T>({ baseDelayMs: 5, maxDelayMs: 1_000_000 });
  }

  protected override onShutDown(): void {
    for (const item of this.waitingItems()) this.#strategy.drop(item);
    super.onShutDown();
  }
}
