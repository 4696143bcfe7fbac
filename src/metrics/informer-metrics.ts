import type { Counter, Histogram, Registry } from "prom-client";
import type { InformerMetrics, InformerMetricsProvider } from "../core/index.ts";
import { instrumentsOn } from "./instruments.ts";

/** List-duration buckets, in seconds (10 ms to 60 s). */
export const LIST_DURATION_BUCKETS: readonly number[] = [
  0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
];

/** Options for {@link PrometheusInformerMetrics}. */
export interface PrometheusInformerMetricsOptions {
  /** Where the metrics are registered. There is no default (and no global registry). */
  registry: Registry;
}

/**
 * Informer (reflector) metrics on a prom-client registry, label `informer` (the informer's name:
 * resource, namespace, selectors): lists, list duration, watches, events, failures by phase and
 * reason, handler errors. Series are created at zero.
 */
export class PrometheusInformerMetrics implements InformerMetricsProvider {
  readonly #lists: Counter<"informer">;
  readonly #listDuration: Histogram<"informer">;
  readonly #watches: Counter<"informer">;
  readonly #events: Counter<"informer">;
  readonly #failures: Counter<"informer" | "phase" | "reason">;
  readonly #handlerErrors: Counter<"informer">;

  constructor(options: PrometheusInformerMetricsOptions) {
    const make = instrumentsOn("PrometheusInformerMetrics", options?.registry);
    const labels = ["informer"] as const;
    this.#lists = make.counter("informer_lists_total", "LIST pages received", labels);
    this.#listDuration = make.histogram(
      "informer_list_duration_seconds",
      "Time per LIST page",
      labels,
      LIST_DURATION_BUCKETS,
    );
    this.#watches = make.counter(
      "informer_watches_total",
      "Watches (and streaming lists) the server accepted",
      labels,
    );
    this.#events = make.counter(
      "informer_events_total",
      "Watch events received, bookmarks included",
      labels,
    );
    this.#failures = make.counter(
      "informer_failures_total",
      "Failed lists and watches, and bad input from the server",
      ["informer", "phase", "reason"],
    );
    this.#handlerErrors = make.counter(
      "informer_handler_errors_total",
      "Event handlers that threw or rejected",
      labels,
    );
  }

  newInformerMetrics(informer: string): InformerMetrics {
    const l = { informer };
    const count = (c: Counter<"informer">) => {
      c.inc(l, 0);
      return { inc: (v = 1) => c.inc(l, v) };
    };
    this.#listDuration.zero(l);
    return {
      lists: count(this.#lists),
      listDuration: { observe: (s) => this.#listDuration.observe(l, s) },
      watches: count(this.#watches),
      events: count(this.#events),
      failures: { inc: (phase, reason) => this.#failures.inc({ informer, phase, reason }) },
      handlerErrors: count(this.#handlerErrors),
    };
  }
}
