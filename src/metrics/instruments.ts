import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import { InvalidOptionError } from "../core/index.ts";

/** Makes prom-client metrics, each registered on one registry (never the global one). */
export interface Instruments {
  counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L>;
  gauge<L extends string>(name: string, help: string, labelNames: readonly L[]): Gauge<L>;
  histogram<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    buckets: readonly number[],
  ): Histogram<L>;
}

/** Returns `registry` if it is a prom-client Registry; throws an {@link InvalidOptionError} otherwise. */
export function checkRegistry(owner: string, registry: Registry | undefined): Registry {
  if (typeof registry?.registerMetric !== "function") {
    throw new InvalidOptionError(owner, "registry", registry, "must be a prom-client Registry");
  }
  return registry;
}

/**
 * Checks that `registry` is a prom-client Registry (an {@link InvalidOptionError} naming
 * `owner`'s `registry` option otherwise) and returns the makers of metrics registered on it.
 */
export function instrumentsOn(owner: string, registry: Registry | undefined): Instruments {
  const registers = [checkRegistry(owner, registry)];
  return {
    counter: (name, help, labelNames) =>
      new Counter({ name, help, labelNames: [...labelNames], registers }),
    gauge: (name, help, labelNames) =>
      new Gauge({ name, help, labelNames: [...labelNames], registers }),
    histogram: (name, help, labelNames, buckets) =>
      new Histogram({ name, help, labelNames: [...labelNames], buckets: [...buckets], registers }),
  };
}
