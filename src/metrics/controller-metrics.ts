import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type {
  ControllerMetrics,
  ControllerMetricsProvider,
  ReconcileOutcome,
} from "../controller/index.ts";
import { InvalidOptionError } from "../core/index.ts";

/** controller-runtime's reconcile-time buckets, in seconds (5 ms to 60 s). */
export const RECONCILE_TIME_BUCKETS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1,
  1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

const OUTCOMES: readonly ReconcileOutcome[] = ["success", "error", "requeue", "requeue_after"];

/**
 * Controller metrics on a prom-client registry under controller-runtime's names, with label
 * `controller` (`result` too on the reconcile counter), every series created at zero, plus
 * kontroller's `controller_runtime_reconcile_timeouts_total` and
 * `controller_runtime_handler_errors_total`.
 */
export class PrometheusControllerMetrics implements ControllerMetricsProvider {
  readonly #total: Counter<"controller" | "result">;
  readonly #errors: Counter<"controller">;
  readonly #terminal: Counter<"controller">;
  readonly #timeouts: Counter<"controller">;
  readonly #handlerErrors: Counter<"controller">;
  readonly #time: Histogram<"controller">;
  readonly #active: Gauge<"controller">;
  readonly #max: Gauge<"controller">;

  constructor(options: { registry: Registry }) {
    const registry = options?.registry;
    if (typeof registry?.registerMetric !== "function") {
      throw new InvalidOptionError(
        "PrometheusControllerMetrics",
        "registry",
        registry,
        "must be a prom-client Registry",
      );
    }
    const registers = [registry];
    this.#total = new Counter({
      name: "controller_runtime_reconcile_total",
      help: "Total number of reconciliations per controller",
      labelNames: ["controller", "result"],
      registers,
    });
    this.#errors = new Counter({
      name: "controller_runtime_reconcile_errors_total",
      help: "Total number of reconciliation errors per controller",
      labelNames: ["controller"],
      registers,
    });
    this.#terminal = new Counter({
      name: "controller_runtime_terminal_reconcile_errors_total",
      help: "Total number of terminal reconciliation errors per controller",
      labelNames: ["controller"],
      registers,
    });
    this.#timeouts = new Counter({
      name: "controller_runtime_reconcile_timeouts_total",
      help: "Total number of reconciliations that exceeded their timeout per controller",
      labelNames: ["controller"],
      registers,
    });
    this.#handlerErrors = new Counter({
      name: "controller_runtime_handler_errors_total",
      help: "Total number of event mappers, predicates or priority functions that threw, per controller",
      labelNames: ["controller"],
      registers,
    });
    this.#time = new Histogram({
      name: "controller_runtime_reconcile_time_seconds",
      help: "Length of time per reconciliation per controller",
      labelNames: ["controller"],
      buckets: [...RECONCILE_TIME_BUCKETS],
      registers,
    });
    this.#active = new Gauge({
      name: "controller_runtime_active_workers",
      help: "Number of currently used workers per controller",
      labelNames: ["controller"],
      registers,
    });
    this.#max = new Gauge({
      name: "controller_runtime_max_concurrent_reconciles",
      help: "Maximum number of concurrent reconciles per controller",
      labelNames: ["controller"],
      registers,
    });
  }

  newControllerMetrics(controller: string): ControllerMetrics {
    const l = { controller };
    for (const result of OUTCOMES) this.#total.inc({ controller, result }, 0);
    this.#errors.inc(l, 0);
    this.#terminal.inc(l, 0);
    this.#timeouts.inc(l, 0);
    this.#handlerErrors.inc(l, 0);
    this.#time.zero(l);
    this.#active.set(l, 0);
    return {
      reconciled: (result) => this.#total.inc({ controller, result }),
      reconcileError: () => this.#errors.inc(l),
      terminalError: () => this.#terminal.inc(l),
      reconcileTimeout: () => this.#timeouts.inc(l),
      handlerError: () => this.#handlerErrors.inc(l),
      reconcileTime: (s) => this.#time.observe(l, s),
      activeWorkers: (n) => this.#active.set(l, n),
      maxConcurrentReconciles: (n) => this.#max.set(l, n),
    };
  }
}
