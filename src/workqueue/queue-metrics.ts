import type { Clock, QueueMetrics, QueueMetricsProvider, QueueProbe } from "../core/index.ts";

/**
 * The timestamps a queue keeps only when it reports metrics (a queue without a name keeps none):
 * when each dirty item became dirty, and when each in-flight item was handed out.
 *
 * Invariant: `#addedAt` has an entry exactly for the dirty items (queued, or added again while in
 * flight); `#startedAt` exactly for the in-flight items.
 */
export class QueueMetricsRecorder<T> implements QueueProbe {
  readonly metrics: QueueMetrics;
  readonly #clock: Clock;
  readonly #addedAt = new Map<T, number>();
  readonly #startedAt = new Map<T, number>();

  readonly #lanes: (() => Record<string, number>) | undefined;

  constructor(
    clock: Clock,
    provider: QueueMetricsProvider,
    name: string,
    lanes?: () => Record<string, number>,
  ) {
    this.#clock = clock;
    this.#lanes = lanes;
    this.metrics = provider.newQueueMetrics(name, this);
  }

  /** `item` became dirty. */
  added(item: T): void {
    this.#addedAt.set(item, this.#clock.now());
    this.metrics.adds.inc();
    this.metrics.depth.inc();
  }

  /** `item` was handed out at `now`. */
  handedOut(item: T, now: number): void {
    const added = this.#addedAt.get(item);
    this.#addedAt.delete(item);
    this.#startedAt.set(item, now);
    this.metrics.depth.dec();
    if (added !== undefined) this.metrics.queueDuration.observe(Math.max(0, now - added) / 1000);
  }

  /** A worker called `done(item)` for an item in flight. */
  done(item: T): void {
    const started = this.#startedAt.get(item);
    this.#startedAt.delete(item);
    if (started !== undefined) {
      this.metrics.workDuration.observe(Math.max(0, this.#clock.now() - started) / 1000);
    }
  }

  unfinishedWorkSeconds(): number {
    const now = this.#clock.now();
    let total = 0;
    for (const started of this.#startedAt.values()) total += Math.max(0, now - started);
    return total / 1000;
  }

  depthByLane(): Record<string, number> | undefined {
    return this.#lanes?.();
  }

  longestRunningProcessorSeconds(): number {
    const now = this.#clock.now();
    let longest = 0;
    for (const started of this.#startedAt.values()) longest = Math.max(longest, now - started);
    return longest / 1000;
  }
}
