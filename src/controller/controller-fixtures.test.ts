/**
 * Fixtures shared by the controller's tests (no tests of its own). Named `*.test.ts` because
 * it is test code: the layer rules let tests, and only tests, use kontroller/testing, and the
 * build leaves it out.
 */
import { InformerFactory, type Logger, silentLogger } from "../cache/index.ts";
import { createClient, type ResourceClient } from "../client/index.ts";
import { type ControllerMetrics, noopMetricsProvider } from "../core/index.ts";
import { type ConfigMap, configMaps } from "../resources/index.ts";
import { type FakeClock, startTestServer } from "../testing/index.ts";
import { controller } from "./builder.ts";
import { Controller } from "./controller.ts";
import type { ReconcileContext, Reconciler, Request } from "./reconciler.ts";

/** Resolves when `predicate` holds for the calls seen so far; checked on every call. */
export class Calls {
  readonly seen: { request: Request; ctx: ReconcileContext }[] = [];
  #waiters: { test: () => boolean; resolve: () => void }[] = [];

  push(request: Request, ctx: ReconcileContext): void {
    this.seen.push({ request, ctx });
    this.#waiters = this.#waiters.filter((w) => {
      if (!w.test()) return true;
      w.resolve();
      return false;
    });
  }

  until(test: (seen: Calls["seen"]) => boolean): Promise<void> {
    if (test(this.seen)) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ test: () => test(this.seen), resolve }));
  }
}

export async function setup(
  reconcile: Reconciler,
  extra: Partial<Parameters<typeof controller>[0]> = {},
  metrics?: ControllerMetrics,
  clock?: FakeClock,
  seed: (cms: ResourceClient<ConfigMap>) => Promise<unknown> = async () => {},
  logger: Logger = silentLogger,
) {
  const server = await startTestServer();
  const client = createClient({ url: server.url });
  await seed(client.resource(configMaps, { namespace: "default" }));
  const factory = new InformerFactory({ client, logger });
  // Only "default": a real kube-apiserver keeps ConfigMaps of its own in kube-system.
  const spec = controller({
    name: "test",
    for: configMaps,
    namespace: "default",
    reconcile,
    ...extra,
  });
  const c = new Controller({
    spec,
    factory,
    logger,
    metrics:
      metrics === undefined
        ? noopMetricsProvider
        : { ...noopMetricsProvider, newControllerMetrics: () => metrics },
    ...(clock ? { clock } : {}),
  });
  c.connect();
  const stop = new AbortController();
  factory.start(stop.signal);
  return {
    client,
    c,
    cms: client.resource(configMaps, { namespace: "default" }),
    async [Symbol.asyncDispose]() {
      await c.stop({ graceMs: 1000 });
      stop.abort();
      await factory.shutdown();
      await client.close();
      await server.close();
    },
  };
}
