import { collectDefaultMetrics, Registry } from "prom-client";
import {
  type ControllerMetrics,
  type InformerMetrics,
  InvalidOptionError,
  type MetricsExposition,
  type MetricsProvider,
  type QueueMetrics,
  type QueueProbe,
} from "../core/index.ts";
import { PrometheusControllerMetrics } from "./controller-metrics.ts";
import { PrometheusInformerMetrics } from "./informer-metrics.ts";
import { checkRegistry } from "./instruments.ts";
import { WorkqueueMetricsProvider } from "./workqueue-metrics.ts";

/** Options for {@link PrometheusMetrics}. */
export interface PrometheusMetricsOptions {
  /**
   * Where every metric is registered.
   * @default a new Registry of its own (never prom-client's global one)
   */
  registry?: Registry;
  /**
   * Also collect Node's process metrics (CPU, memory, event-loop lag, …) into the registry.
   * @default true when `registry` is not given, false when it is (it may have them already)
   */
  processMetrics?: boolean;
  /**
   * Distinct `priority` label values per queue in `workqueue_depth_by_priority`.
   * @default 25
   */
  maxPriorityLabels?: number;
}

/**
 * Prometheus metrics for a whole controller process: the work queues' (client-go's names), the
 * informers' and the controllers' (controller-runtime's names), on one prom-client registry,
 * and {@link expose} for a `/metrics` endpoint. Pass it as `metrics` to the `Manager` (which
 * then serves `/metrics` on its `healthPort`), or to each queue, informer and controller:
 *
 * @example
 * ```ts
 * const metrics = new PrometheusMetrics();
 * const manager = new Manager({ metrics, healthPort: 8080 });
 * ```
 */
export class PrometheusMetrics implements MetricsProvider {
  /** The registry every metric is on (read it to add your own, or in tests). */
  readonly registry: Registry;
  readonly #queues: WorkqueueMetricsProvider;
  readonly #informers: PrometheusInformerMetrics;
  readonly #controllers: PrometheusControllerMetrics;

  constructor(options: PrometheusMetricsOptions = {}) {
    const owner = "PrometheusMetrics";
    const registry =
      options.registry === undefined ? new Registry() : checkRegistry(owner, options.registry);
    if (options.processMetrics !== undefined && typeof options.processMetrics !== "boolean") {
      throw new InvalidOptionError(
        owner,
        "processMetrics",
        options.processMetrics,
        "must be a boolean",
      );
    }
    this.#queues = new WorkqueueMetricsProvider({
      registry,
      ...(options.maxPriorityLabels === undefined
        ? {}
        : { maxPriorityLabels: options.maxPriorityLabels }),
    });
    this.#informers = new PrometheusInformerMetrics({ registry });
    this.#controllers = new PrometheusControllerMetrics({ registry });
    this.registry = registry;
    if (options.processMetrics ?? options.registry === undefined) {
      collectDefaultMetrics({ register: registry });
    }
  }

  newQueueMetrics(name: string, probe: QueueProbe): QueueMetrics {
    return this.#queues.newQueueMetrics(name, probe);
  }

  newInformerMetrics(name: string): InformerMetrics {
    return this.#informers.newInformerMetrics(name);
  }

  newControllerMetrics(controller: string): ControllerMetrics {
    return this.#controllers.newControllerMetrics(controller);
  }

  /** The registry's metrics in Prometheus' text format. */
  async expose(): Promise<MetricsExposition> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
