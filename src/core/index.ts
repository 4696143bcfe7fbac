/**
 * kontroller/core — the vocabulary every layer shares: objects and keys, Status and ApiError,
 * selectors, Clock, backoff, option checks, and the metrics interfaces every layer reports
 * through. Imports nothing. The data structures the layers build on (heap, ring buffer) are in
 * internal.ts, which the layers import and the package does not publish.
 */
export { isAbortError, raceAbort, sleep, type WaitOptions } from "./abort.ts";
export { Backoff, type BackoffOptions } from "./backoff.ts";
export { type CancelTimer, type Clock, realClock } from "./clock.ts";
export {
  ApiError,
  errnoCode,
  errorMessage,
  errors,
  type GroupResource,
  isAlreadyExists,
  isConflict,
  isGone,
  isInvalid,
  isNotFound,
  isTerminal,
  isTooManyRequests,
  statusCode,
  TerminalError,
} from "./errors.ts";
export {
  type FieldOperator,
  type FieldRequirement,
  FieldSelector,
  parseFieldSelector,
} from "./field-selector.ts";
export {
  formatApiVersion,
  type GroupVersion,
  type GroupVersionKind,
  type GroupVersionResource,
  parseApiVersion,
} from "./gvk.ts";
export { cloneJson, deepEqual } from "./json.ts";
export {
  DeletedFinalStateUnknown,
  deletionHandlingKey,
  type KeyParts,
  keyOf,
  objectKey,
  splitKey,
} from "./keys.ts";
export {
  type LabelOperator,
  type LabelRequirement,
  LabelSelector,
  labelSelectorFromSpec,
  parseLabelSelector,
} from "./label-selector.ts";
export {
  type ControllerMetrics,
  type ControllerMetricsProvider,
  type CounterMetric,
  checkMetrics,
  type FailureCounterMetric,
  type GaugeMetric,
  type HistogramMetric,
  type InformerMetrics,
  type InformerMetricsProvider,
  type MetricsExposition,
  type MetricsProvider,
  noopControllerMetrics,
  noopInformerMetrics,
  noopMetricsProvider,
  noopQueueMetrics,
  type PriorityGaugeMetric,
  type QueueMetrics,
  type QueueMetricsProvider,
  type QueueProbe,
  type ReconcileOutcome,
} from "./metrics.ts";
export {
  type Bookmark,
  type Condition,
  INITIAL_EVENTS_END_ANNOTATION,
  type KubeList,
  type KubeObject,
  type LabelSelector as LabelSelectorSpec,
  type LabelSelectorRequirement,
  type ListMeta,
  type ManagedFieldsEntry,
  type ObjectMeta,
  type OwnerReference,
  type Time,
  type WatchEvent,
  type WatchEventType,
  type WireWatchEvent,
} from "./objects.ts";
export {
  checkFunction,
  checkNumber,
  InvalidOptionError,
  type NumberBounds,
} from "./options.ts";
export { preciseClock } from "./precise-clock.ts";
export { SelectorError } from "./selector-error.ts";
export {
  type CauseType,
  isStatus,
  STATUS_CODES,
  type Status,
  type StatusCause,
  type StatusDetails,
  type StatusReason,
} from "./status.ts";
export { parseTime, toMicroTime, toTime } from "./time.ts";
export {
  checkDns1035Label,
  checkDns1123Label,
  checkDns1123Subdomain,
  checkLabelValue,
  checkQualifiedName,
} from "./validation.ts";
