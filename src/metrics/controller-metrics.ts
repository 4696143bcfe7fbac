import type { Counter, Gauge, Histogram, Registry } from "prom-client";
import type {
  ControllerMetrics,
  ControllerMetricsProvider,
  ReconcileOutcome,
} from "../core/index.ts";
import { instrumentsOn } from "./instruments.ts";

/** controller-runtime's reconcile-time buckets, in seconds (5 ms to 60 s). */
export const RECONCILE_TIME_BUCKETS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1,
  1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

const OUTCOMES: readonly ReconcileOutcome[] = ["success", "error", "requeue", "requeue_after"];

/** The counters of a controller that have only the `controller` label, by instrument. */
const COUNTERS = {
  reconcileError: [
    "controller_runtime_reconcile_errors_total",
    "Total number of reconciliation errors per controller",
  ],
  terminalError: [
    "controller_runtime_terminal_reconcile_errors_total",
    "Total number of terminal reconciliation errors per controller",
  ],
  reconcileTimeout: [
    "controller_runtime_reconcile_timeouts_total",
    "Total number of reconciliations that exceeded their timeout per controller",
  ],
  handlerError: [
    "controller_runtime_handler_errors_total",
    "Total number of event mappers, predicates or priority functions that threw, per controller",
  ],
} as const;

type CounterName = keyof typeof COUNTERS;

/** Options for {@link PrometheusControllerMetrics}. */
export interface PrometheusControllerMetricsOptions {
  /** Where the metrics are registered. There is no default (and no global registry). */
  registry: Registry;
}

/**
 * Controller metrics on a prom-client registry under controller-runtime's names, with label
 * `controller` (`result` too on the reconcile counter), every series created at zero, plus
 * kontroller's `controller_runtime_reconcile_timeouts_total` and
 * `controller_runtime_handler_errors_total`.
 */
export class PrometheusControllerMetrics implements ControllerMetricsProvider {
  readonly #total: Counter<"controller" | "result">;
  readonly #counters: Record<CounterName, Counter<"controller">>;
  readonly #time: Histogram<"controller">;
  readonly #active: Gauge<"controller">;
  readonly #max: Gauge<"controller">;

  constructor(options: PrometheusControllerMetricsOptions) {
    const make = instrumentsOn("PrometheusControllerMetrics", options?.registry);
    const labels = ["controller"] as const;
    this.#total = make.counter(
      "controller_runtime_reconcile_total",
      "Total number of reconciliations per controller",
      ["controller", "result"],
    );
    this.#counters = Object.fromEntries(
      Object.entries(COUNTERS).map(([k, [name, help]]) => [k, make.counter(name, help, labels)]),
    ) as Record<CounterName, Counter<"controller">>;
    this.#time = make.histogram(
      "controller_runtime_reconcile_time_seconds",
      "Length of time per reconciliation per controller",
      labels,
      RECONCILE_TIME_BUCKETS,
    );
    this.#active = make.gauge(
      "controller_runtime_active_workers",
      "Number of currently used workers per controller",
      labels,
    );
    this.#max = make.gauge(
      "controller_runtime_max_concurrent_reconciles",
      "Maximum number of concurrent reconciles per controller",
      labels,
    );
  }

  newControllerMetrics(controller: string): ControllerMetrics {
    const l = { controller };
    for (const result of OUTCOMES) this.#total.inc({ controller, result }, 0);
    const counters = this.#counters;
    for (const c of Object.values(counters)) c.inc(l, 0);
    this.#time.zero(l);
    this.#active.set(l, 0);
    return {
      reconciled: (result) => this.#total.inc({ controller, result }),
      reconcileError: () => counters.reconcileError.inc(l),
      terminalError: () => counters.terminalError.inc(l),
      reconcileTimeout: () => counters.reconcileTimeout.inc(l),
      handlerError: () => counters.handlerError.inc(l),
      reconcileTime: (s) => this.#time.observe(l, s),
      activeWorkers: (n) => this.#active.set(l, n),
      maxConcurrentReconciles: (n) => this.#max.set(l, n),
    };
  }
}
