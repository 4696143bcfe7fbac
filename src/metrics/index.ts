/**
 * kontroller/metrics — prom-client implementations of core's metrics interfaces, each on a
 * registry of its own or one you pass in (never the global registry): `PrometheusMetrics` for a
 * whole process (what the Manager takes), and one provider per component. Also the /metrics,
 * /healthz and /readyz endpoint. Imports only core.
 */

export {
  PrometheusControllerMetrics,
  type PrometheusControllerMetricsOptions,
  RECONCILE_TIME_BUCKETS,
} from "./controller-metrics.ts";
export { type Check, HealthServer, type HealthServerOptions } from "./health-server.ts";
export {
  LIST_DURATION_BUCKETS,
  PrometheusInformerMetrics,
  type PrometheusInformerMetricsOptions,
} from "./informer-metrics.ts";
export { PrometheusMetrics, type PrometheusMetricsOptions } from "./prometheus-metrics.ts";
export {
  EXCEEDED_CARDINALITY_LIMIT,
  WORKQUEUE_DURATION_BUCKETS,
  type WorkqueueMetricsOptions,
  WorkqueueMetricsProvider,
} from "./workqueue-metrics.ts";
