/**
 * How informers report what they do: a small provider interface with a no-op default. The
 * prom-client implementation belongs in kontroller/metrics; this layer imports no metrics
 * library. Prometheus names are given on each field.
 */

import { DecodeError, TransportError } from "../client/index.ts";
import { ApiError } from "../core/index.ts";
import { InitialEventsTimeoutError, ShortWatchError, WatchIdleError } from "./reflector-errors.ts";

/** A monotonic counter. */
export interface CounterMetric {
  inc(value?: number): void;
}

/** A counter with `phase` and `reason` labels. */
export interface FailureCounterMetric {
  inc(phase: string, reason: string): void;
}

/** A distribution of durations, in seconds. */
export interface HistogramMetric {
  observe(seconds: number): void;
}

/** The instruments of one informer. */
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

/** Makes the instruments of an informer, once, when the informer is built. */
export interface InformerMetricsProvider {
  /** The instruments for the informer called `name` (resource, namespace, selectors). */
  newInformerMetrics(name: string): InformerMetrics;
}

const noop = { inc() {}, observe() {} };

/** Instruments that record nothing. */
export const noopInformerMetrics: InformerMetrics = {
  lists: noop,
  listDuration: noop,
  watches: noop,
  events: noop,
  failures: noop,
  handlerErrors: noop,
};

/** The default provider: reports nothing. */
export const noopInformerMetricsProvider: InformerMetricsProvider = {
  newInformerMetrics: () => noopInformerMetrics,
};

/**
 * A short, bounded label for an error: the Status reason, the decode reason, the transport
 * error code, `Idle`, `ShortWatch`, or `Other`.
 */
export function failureReason(error: unknown): string {
  if (error instanceof ApiError) return error.reason;
  if (error instanceof DecodeError) return error.reason;
  if (error instanceof TransportError) return error.code;
  if (error instanceof WatchIdleError) return "Idle";
  if (error instanceof InitialEventsTimeoutError) return "InitialEventsTimeout";
  if (error instanceof ShortWatchError) return "ShortWatch";
  return "Other";
}
