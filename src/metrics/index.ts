/**
 * kontroller/metrics — prom-client implementations of the metrics interfaces of the other layers,
 * each on a registry you pass in (no global registry). Work queues for now; the controller
 * runtime adds its metrics here.
 */

export { PrometheusControllerMetrics, RECONCILE_TIME_BUCKETS } from "./controller-metrics.ts";
export { type Check, HealthServer, type HealthServerOptions } from "./health-server.ts";
export { LIST_DURATION_BUCKETS, PrometheusInformerMetrics } from "./informer-metrics.ts";
export {
  EXCEEDED_CARDINALITY_LIMIT,
  WORKQUEUE_DURATION_BUCKETS,
  type WorkqueueMetricsOptions,
  WorkqueueMetricsProvider,
} from "./workqueue-metrics.ts";
