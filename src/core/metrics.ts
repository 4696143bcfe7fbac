/**
 * The metrics seam: the small instrument interfaces every layer reports through, the provider
 * that makes them, and no-op defaults. No layer imports a metrics library; kontroller/metrics
 * implements {@link MetricsProvider} with prom-client.
 *
 * One provider is injected everywhere under one option name, `metrics`: `Queue`,
 * `RateLimitingQueue`, `Reflector`, `SharedInformer`, `InformerFactory`, `Controller` and
 * `Manager` each take the part of {@link MetricsProvider} they use, so the same object fits all
 * of them. Each component asks the provider once, when it is built, for the instruments of its
 * name, and then only calls them. Prometheus names are given on each field.
 */

import { InvalidOptionError } from "./options.ts";

/** A monotonic counter. */
export interface CounterMetric {
  inc(value?: number): void;
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

/** A counter with `phase` and `reason` labels. */
export interface FailureCounterMetric {
  inc(phase: string, reason: string): void;
}

/** A distribution of durations, in seconds. */
export interface HistogramMetric {
  observe(seconds: number): void;
}

/** What a provider may read from a work queue at collection time. */
export interface QueueProbe {
  /** The sum of the ages of the items in flight, in seconds (`workqueue_unfinished_work_seconds`). */
  unfinishedWorkSeconds(): number;
  /** The age of the oldest item in flight, in seconds (`workqueue_longest_running_processor_seconds`). */
  longestRunningProcessorSeconds(): number;
  /**
   * Ready items per lane (`workqueue_depth_by_lane`), for a queue whose strategy has lanes;
   * undefined otherwise. Optional, so that a probe written for an older provider still fits.
   */
  depthByLane?(): Record<string, number> | undefined;
}

/**
 * The instruments of one named work queue. Meanings follow client-go's `workqueue_*` metrics:
 * - `depth` counts dirty items — added and not yet handed out — including an item re-added while
 *   in flight, which the queue's `size` does not count;
 * - `adds` counts an item becoming dirty (re-adding a dirty item counts nothing);
 * - `queueDuration` is observed on hand-out: seconds since the item became dirty;
 * - `workDuration` is observed on `done`: seconds since the hand-out;
 * - `retries` counts every `addAfter` (so every `addRateLimited`) made before shutdown;
 * - `waiting` counts items waiting for their delay, which no other metric sees;
 * - `priorityDepth` counts the ready items of a `PriorityQueue` by priority.
 *
 * The two in-flight gauges and the depth by lane are read through the {@link QueueProbe} when
 * metrics are collected, so a queue never runs a timer to refresh them (client-go refreshes the
 * in-flight gauges every 500 ms from a goroutine).
 */
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

/** The instruments of one informer (and its reflector). */
export interface InformerMetrics {
  /** `informer_lists_total`: LIST pages received. */
  readonly lists: CounterMetric;
  /** `informer_list_duration_seconds`: time per LIST page. */
  readonly listDuration: HistogramMetric;
  /** `informer_watches_total`: watches (and streaming lists) the server accepted. */
  readonly watches: CounterMetric;
  /** `informer_events_total`: watch events received (bookmarks included). */
  readonly events: CounterMetric;
  /** `informer_failures_total{phase,reason}`: failed lists and watches, and bad input. */
  readonly failures: FailureCounterMetric;
  /** `informer_handler_errors_total`: event handlers that threw (or rejected). */
  readonly handlerErrors: CounterMetric;
}

/** Outcome label of `controller_runtime_reconcile_total`. */
export type ReconcileOutcome = "success" | "error" | "requeue" | "requeue_after";

/** The instruments of one controller, under controller-runtime's names. */
export interface ControllerMetrics {
  /** `controller_runtime_reconcile_total{controller,result}`. */
  reconciled(outcome: ReconcileOutcome): void;
  /** `controller_runtime_reconcile_errors_total{controller}`. */
  reconcileError(): void;
  /** `controller_runtime_terminal_reconcile_errors_total{controller}`. */
  terminalError(): void;
  /** `controller_runtime_reconcile_timeouts_total{controller}` (kontroller's own). */
  reconcileTimeout(): void;
  /** `controller_runtime_reconcile_time_seconds{controller}`. */
  reconcileTime(seconds: number): void;
  /** `controller_runtime_active_workers{controller}`. */
  activeWorkers(n: number): void;
  /** `controller_runtime_max_concurrent_reconciles{controller}`. */
  maxConcurrentReconciles(n: number): void;
  /** `controller_runtime_handler_errors_total{controller}`: a mapper or predicate threw (kontroller's own). */
  handlerError(): void;
}

/** Makes the instruments of a work queue: a queue with a `name` calls it once, when built. */
export interface QueueMetricsProvider {
  /**
   * The instruments for the queue called `name`. `probe` reads the queue's in-flight work; keep it
   * to report the in-flight gauges when metrics are collected.
   */
  newQueueMetrics(name: string, probe: QueueProbe): QueueMetrics;
}

/** Makes the instruments of an informer, once, when the informer is built. */
export interface InformerMetricsProvider {
  /** The instruments for the informer called `name` (resource, namespace, selectors). */
  newInformerMetrics(name: string): InformerMetrics;
}

/** Makes the instruments of a controller, once, when it is built. */
export interface ControllerMetricsProvider {
  newControllerMetrics(controller: string): ControllerMetrics;
}

/** What a `/metrics` endpoint answers: a body in a text exposition format, and its type. */
export interface MetricsExposition {
  /** The `Content-Type` of `body`, e.g. Prometheus' `text/plain; version=0.0.4`. */
  readonly contentType: string;
  readonly body: string;
}

/**
 * Makes the instruments of every component; one provider serves a whole process (pass the same
 * one to the Manager, or to each queue, informer and controller you build yourself).
 */
export interface MetricsProvider
  extends QueueMetricsProvider,
    InformerMetricsProvider,
    ControllerMetricsProvider {
  /**
   * Renders what was collected, for a `/metrics` endpoint; a provider without it has nothing to
   * serve there.
   */
  expose?(): Promise<MetricsExposition>;
}

const noopInstrument = { inc() {}, dec() {}, observe() {} };
const noop = () => {};

/** Queue instruments that record nothing. */
export const noopQueueMetrics: QueueMetrics = {
  depth: noopInstrument,
  adds: noopInstrument,
  queueDuration: noopInstrument,
  workDuration: noopInstrument,
  retries: noopInstrument,
  waiting: noopInstrument,
  priorityDepth: noopInstrument,
};

/** Informer instruments that record nothing. */
export const noopInformerMetrics: InformerMetrics = {
  lists: noopInstrument,
  listDuration: noopInstrument,
  watches: noopInstrument,
  events: noopInstrument,
  failures: noopInstrument,
  handlerErrors: noopInstrument,
};

/** Controller instruments that record nothing. */
export const noopControllerMetrics: ControllerMetrics = {
  reconciled: noop,
  reconcileError: noop,
  terminalError: noop,
  reconcileTimeout: noop,
  reconcileTime: noop,
  activeWorkers: noop,
  maxConcurrentReconciles: noop,
  handlerError: noop,
};

/**
 * The default everywhere: reports nothing. Queues recognise it and skip their metrics
 * bookkeeping (they do not even read the clock for metrics).
 */
export const noopMetricsProvider: MetricsProvider = {
  newQueueMetrics: () => noopQueueMetrics,
  newInformerMetrics: () => noopInformerMetrics,
  newControllerMetrics: () => noopControllerMetrics,
};

/**
 * Returns `metrics` when it is undefined or has every method in `methods`; throws an
 * {@link InvalidOptionError} naming the `metrics` option otherwise.
 */
export function checkMetrics<P>(
  owner: string,
  metrics: P | undefined,
  methods: readonly (keyof MetricsProvider)[],
): P | undefined {
  if (metrics === undefined) return undefined;
  for (const method of methods) {
    if (typeof (metrics as Record<string, unknown> | null)?.[method] !== "function") {
      throw new InvalidOptionError(
        owner,
        "metrics",
        metrics,
        `must be a provider with ${method}()`,
      );
    }
  }
  return metrics;
}
