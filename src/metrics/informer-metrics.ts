import { Counter, Histogram, type Registry } from "prom-client";
import type { InformerMetrics, InformerMetricsProvider } from "../cache/index.ts";
import { InvalidOptionError } from "../core/index.ts";

/** List-duration buckets, in seconds (10 ms to 60 s). */
export const LIST_DURATION_BUCKETS: readonly number[] = [
  0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
];

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

  constructor(options: { registry: Registry }) {
    const registry = options?.registry;
    if (typeof registry?.registerMetric !== "function") {
      throw new InvalidOptionError(
        "PrometheusInformerMetrics",
        "registry",
        registry,
        "must be a prom-client Registry",
      );
    }
    const registers = [registry];
    const counter = <L extends string>(name: string, help: string, labelNames: L[]) =>
      new Counter<L>({ name, help, labelNames, registers });
    this.#lists = counter("informer_lists_total", "LIST pages received", ["informer"]);
    this.#listDuration = new Histogram({
      name: "informer_list_duration_seconds",
      help: "Time per LIST page",
      labelNames: ["informer"],
      buckets: [...LIST_DURATION_BUCKETS],
      registers,
    });
    this.#watches = counter(
      "informer_watches_total",
      "Watches (and streaming lists) the server accepted",
      ["informer"],
    );
    this.#events = counter("informer_events_total", "Watch events received, bookmarks included", [
      "informer",
    ]);
    this.#failures = counter(
      "informer_failures_total",
      "Failed lists and watches, and bad input from the server",
      ["informer", "phase", "reason"],
    );
    this.#handlerErrors = counter(
      "informer_handler_errors_total",
      "Event handlers that threw or rejected",
      ["informer"],
    );
  }

  newInformerMetrics(informer: string): InformerMetrics {
    const l = { informer };
    this.#lists.inc(l, 0);
    this.#listDuration.zero(l);
    this.#watches.inc(l, 0);
    this.#events.inc(l, 0);
    this.#handlerErrors.inc(l, 0);
    return {
      lists: { inc: (v = 1) => this.#lists.inc(l, v) },
      listDuration: { observe: (s) => this.#listDuration.observe(l, s) },
      watches: { inc: (v = 1) => this.#watches.inc(l, v) },
      events: { inc: (v = 1) => this.#events.inc(l, v) },
      failures: { inc: (phase, reason) => this.#failures.inc({ informer, phase, reason }) },
      handlerErrors: { inc: (v = 1) => this.#handlerErrors.inc(l, v) },
    };
  }
}
