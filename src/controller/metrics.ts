/**
 * How controllers report what they do: a small provider interface with a no-op default. The
 * prom-client implementation (kontroller/metrics) uses controller-runtime's names, given here.
 */

/** Outcome label of `controller_runtime_reconcile_total`. */
export type ReconcileOutcome = "success" | "error" | "requeue" | "requeue_after";

/** The instruments of one controller. */
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

/** Makes the instruments of a controller, once, when it is built. */
export interface ControllerMetricsProvider {
  newControllerMetrics(controller: string): ControllerMetrics;
}

const noop = () => {};

/** Instruments that record nothing. */
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

/** The default provider: reports nothing. */
export const noopControllerMetricsProvider: ControllerMetricsProvider = {
  newControllerMetrics: () => noopControllerMetrics,
};
