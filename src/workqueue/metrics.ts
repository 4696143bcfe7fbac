/**
 * How a work queue reports what it does: a small provider interface with a no-op default. The
 * prom-client implementation lives in kontroller/metrics; this layer imports no metrics library.
 *
 * The queue calls the instruments; the provider decides what they are. Meanings follow
 * client-go's `workqueue_*` metrics (the Prometheus names are given on each field):
 * - `depth` counts dirty items — added and not yet handed out — including an item re-added while
 *   in flight, which `size` does not count;
 * - `adds` counts an item becoming dirty (re-adding a dirty item counts nothing);
 * - `queueDuration` is observed on hand-out: seconds since the item became dirty;
 * - `workDuration` is observed on `done`: seconds since the hand-out;
 * - `retries` counts every `addAfter` (so every `addRateLimited`) made before shutdown;
 * - `waiting` counts items waiting for their delay, which no other metric sees;
 * - `priorityDepth` counts the ready items of a `PriorityQueue` by priority.
 *
 * The two in-flight gauges (`unfinished_work_seconds`, `longest_running_processor_seconds`), and
 * the depth by lane of a two-lane queue, are read through the {@link QueueProbe} when metrics are
 * collected, so a queue never runs a timer to refresh them (client-go refreshes the in-flight
 * gauges every 500 ms from a goroutine).
 */

/** A monotonic counter. */
export interface CounterMetric {
  inc(): void;
}

/** A gauge moved up and down by one. */
export interface GaugeMetric {
  inc(): void;
  dec(): void;
}

/** A gauge with one series per priority. */
export interface PriorityGaugeMetric {
  inc(priority: number): void;
  dec(priority: number): void;
}

/** A distribution of durations, in seconds. */
export interface HistogramMetric {
  observe(seconds: number): void;
}

/** What the provider may read from a queue at collection time. */
export interface QueueProbe {
  /** The sum of the ages of the items in flight, in seconds (`workqueue_unfinished_work_seconds`). */
  unfinishedWorkSeconds(): number;
  /** The age of the oldest item in flight, in seconds (`workqueue_longest_running_processor_seconds`). */
  longestRunningProcessorSeconds(): number;
  /**
   * Ready items per lane (`workqueue_depth_by_lane`), for a queue whose strategy has lanes (see
   * `QueueStrategy.lanes`); undefined otherwise. Optional, so that a probe written for an older
   * provider still fits.
   */
  depthByLane?(): Record<string, number> | undefined;
}

/** The instruments of one named queue. */
export interface QueueMetrics {
  /** `workqueue_depth`. */
  readonly depth: GaugeMetric;
  /** `workqueue_adds_total`. */
  readonly adds: CounterMetric;
  /** `workqueue_queue_duration_seconds`. */
  readonly queueDuration: HistogramMetric;
  /** `workqueue_work_duration_seconds`. */
  readonly workDuration: HistogramMetric;
  /** `workqueue_retries_total`. */
  readonly retries: CounterMetric;
  /** `workqueue_waiting`: items waiting for their delay to pass. */
  readonly waiting: GaugeMetric;
  /** `workqueue_depth_by_priority`: ready items of a priority queue, by priority. */
  readonly priorityDepth: PriorityGaugeMetric;
}

/**
 * Makes the instruments of a queue. A queue with a `name` calls {@link newQueueMetrics} once, in
 * its constructor; a queue without a name reports nothing and pays nothing (it does not even read
 * the clock for metrics).
 */
export interface MetricsProvider {
  /**
   * The instruments for the queue called `name`. `probe` reads the queue's in-flight work; keep it
   * to report the in-flight gauges when metrics are collected.
   */
  newQueueMetrics(name: string, probe: QueueProbe): QueueMetrics;
}

const noop = { inc() {}, dec() {}, observe() {} };

const noopQueueMetrics: QueueMetrics = {
  depth: noop,
  adds: noop,
  queueDuration: noop,
  workDuration: noop,
  retries: noop,
  waiting: noop,
  priorityDepth: noop,
};

/** The default provider: reports nothing. Queues recognise it and skip metrics bookkeeping. */
export const noopMetricsProvider: MetricsProvider = {
  newQueueMetrics: () => noopQueueMetrics,
};
