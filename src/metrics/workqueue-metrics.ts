import { type Counter, Gauge, type Histogram, type Registry } from "prom-client";
import {
  checkNumber,
  type GaugeMetric,
  InvalidOptionError,
  type PriorityGaugeMetric,
  type QueueMetrics,
  type QueueMetricsProvider,
  type QueueProbe,
} from "../core/index.ts";
import { instrumentsOn } from "./instruments.ts";

/**
 * The buckets of the two duration histograms: 1 µs to 1000 s, ten per decade boundary, as
 * Kubernetes' component-base registers client-go's workqueue metrics.
 */
export const WORKQUEUE_DURATION_BUCKETS: readonly number[] = Array.from(
  { length: 10 },
  (_, i) => 10 ** (i - 6),
);

/** The `priority` label of depth updates beyond the limit of distinct priorities. */
export const EXCEEDED_CARDINALITY_LIMIT = "exceeded_cardinality_limit";

/** Options for {@link WorkqueueMetricsProvider}. */
export interface WorkqueueMetricsOptions {
  /** Where the metrics are registered. There is no default (and no global registry). */
  registry: Registry;
  /**
   * Distinct `priority` label values per queue in `workqueue_depth_by_priority`; depth at further
   * priorities is reported under `priority="exceeded_cardinality_limit"`.
   * @default 25
   */
  maxPriorityLabels?: number;
}

/**
 * Work-queue metrics on a prom-client registry, under client-go's names, types, label (`name`)
 * and buckets, plus `workqueue_waiting` (items waiting for a delay),
 * `workqueue_depth_by_priority` (ready items of a priority queue, label `priority`, capped) and
 * `workqueue_depth_by_lane` (ready items of a two-lane queue, label `lane`).
 * Every series of a queue is created at zero when the queue is built. The in-flight gauges and
 * the depth by lane are computed from the queues when the registry is collected, so no timer
 * runs. Pass one provider
 * to every queue of a registry: `new Queue({ name: "pods", metrics: provider })`.
 */
export class WorkqueueMetricsProvider implements QueueMetricsProvider {
  readonly #maxPriorityLabels: number;
  /** The queue, by name, whose in-flight work the two gauges report; the latest one wins. */
  readonly #probes = new Map<string, QueueProbe>();
  readonly #depth: Gauge<"name">;
  readonly #adds: Counter<"name">;
  readonly #queueDuration: Histogram<"name">;
  readonly #workDuration: Histogram<"name">;
  readonly #retries: Counter<"name">;
  readonly #waiting: Gauge<"name">;
  readonly #depthByPriority: Gauge<"name" | "priority">;

  constructor(options: WorkqueueMetricsOptions) {
    const owner = "WorkqueueMetricsProvider";
    const registry = options?.registry;
    const make = instrumentsOn(owner, registry);
    this.#maxPriorityLabels = checkNumber(
      owner,
      "maxPriorityLabels",
      options.maxPriorityLabels ?? 25,
      { min: 1, integer: true },
    );
    if (registry!.getSingleMetric("workqueue_depth") !== undefined) {
      throw new InvalidOptionError(
        owner,
        "registry",
        "a registry with workqueue metrics",
        "must not hold workqueue metrics already (share one provider per registry)",
      );
    }
    const registers = [registry!];
    const labelNames = ["name"] as const;
    const probes = this.#probes;
    this.#depth = make.gauge("workqueue_depth", "Current depth of workqueue", labelNames);
    this.#adds = make.counter(
      "workqueue_adds_total",
      "Total number of adds handled by workqueue",
      labelNames,
    );
    this.#queueDuration = make.histogram(
      "workqueue_queue_duration_seconds",
      "How long in seconds an item stays in workqueue before being requested.",
      labelNames,
      WORKQUEUE_DURATION_BUCKETS,
    );
    this.#workDuration = make.histogram(
      "workqueue_work_duration_seconds",
      "How long in seconds processing an item from workqueue takes.",
      labelNames,
      WORKQUEUE_DURATION_BUCKETS,
    );
    new Gauge({
      name: "workqueue_unfinished_work_seconds",
      help:
        "How many seconds of work has been done that is in progress and hasn't been observed by " +
        "work_duration. Large values indicate stuck threads. One can deduce the number of stuck " +
        "threads by observing the rate at which this increases.",
      labelNames,
      registers,
      collect() {
        for (const [name, probe] of probes) this.set({ name }, probe.unfinishedWorkSeconds());
      },
    });
    new Gauge({
      name: "workqueue_longest_running_processor_seconds",
      help: "How many seconds has the longest running processor for workqueue been running.",
      labelNames,
      registers,
      collect() {
        for (const [name, probe] of probes) {
          this.set({ name }, probe.longestRunningProcessorSeconds());
        }
      },
    });
    this.#retries = make.counter(
      "workqueue_retries_total",
      "Total number of retries handled by workqueue",
      labelNames,
    );
    this.#waiting = make.gauge(
      "workqueue_waiting",
      "Number of items in workqueue waiting for a delay (addAfter, addRateLimited) to pass",
      labelNames,
    );
    new Gauge({
      name: "workqueue_depth_by_lane",
      help: "Number of items ready in each lane of a workqueue whose strategy has lanes (two-lane)",
      labelNames: ["name", "lane"],
      registers,
      collect() {
        for (const [name, probe] of probes) {
          for (const [lane, n] of Object.entries(probe.depthByLane?.() ?? {})) {
            this.set({ name, lane }, n);
          }
        }
      },
    });
    this.#depthByPriority = make.gauge(
      "workqueue_depth_by_priority",
      "Number of items ready in a priority workqueue, by priority",
      ["name", "priority"],
    );
  }

  newQueueMetrics(name: string, probe: QueueProbe): QueueMetrics {
    this.#probes.set(name, probe);
    const labels = { name };
    const depth = this.#depth.labels(labels);
    depth.set(0);
    const adds = this.#adds.labels(labels);
    adds.inc(0);
    const retries = this.#retries.labels(labels);
    retries.inc(0);
    const waiting = this.#waiting.labels(labels);
    waiting.set(0);
    this.#queueDuration.zero(labels);
    this.#workDuration.zero(labels);
    return {
      depth: gauge(depth),
      adds: { inc: () => adds.inc() },
      queueDuration: this.#queueDuration.labels(labels),
      workDuration: this.#workDuration.labels(labels),
      retries: { inc: () => retries.inc() },
      waiting: gauge(waiting),
      priorityDepth: this.#priorityDepth(name),
    };
  }

  /** Depth by priority: a series per priority up to the limit, then one shared series. */
  #priorityDepth(name: string): PriorityGaugeMetric {
    const labelled = new Map<number, GaugeMetric>();
    const metric = this.#depthByPriority;
    const max = this.#maxPriorityLabels;
    let exceeded: GaugeMetric | undefined;
    const child = (priority: number): GaugeMetric => {
      let g = labelled.get(priority);
      if (g !== undefined) return g;
      if (labelled.size < max) {
        g = gauge(metric.labels({ name, priority: String(priority) }));
        labelled.set(priority, g);
        return g;
      }
      exceeded ??= gauge(metric.labels({ name, priority: EXCEEDED_CARDINALITY_LIMIT }));
      return exceeded;
    };
    return { inc: (p) => child(p).inc(), dec: (p) => child(p).dec() };
  }
}

function gauge(g: Gauge.Internal<string>): GaugeMetric {
  return { inc: () => g.inc(), dec: () => g.dec() };
}
