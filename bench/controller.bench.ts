/**
 * Controller benchmark: fresh events behind a backlog, as issue 7 words it. One controller
 * reconciles Users (example.com/v1, cluster-scoped) and, through a mapped watch, HealthMonitors
 * (example.com/v1, namespaced: the two-lane seed's periodic checks), with 4 workers; each
 * reconcile reads its object from the cache and then waits 2 ms, standing in for the API call
 * or probe a real reconcile makes. 10 000 HealthMonitors exist when it starts (its initial list:
 * a backlog, entering at low priority); then 100 fresh Users are created while it works through
 * the backlog. Measured: the time from each User's create to its reconcile (p50, p99) and
 * reconciles per second; and, as `saturation`, reconciles per second of the same backlog with a
 * reconcile that does no waiting. The default priority queue and a plain FIFO queue run side by
 * side in the same run.
 *
 * `npm run bench -- controller [--json] [--rounds N] [--quick]`
 */

import { setTimeout as wait } from "node:timers/promises";
import { InformerFactory } from "kontroller/cache";
import { createClient } from "kontroller/client";
import { Controller, controller, type QueueKind } from "kontroller/controller";
import { customResourceDefinitions, isEstablished } from "kontroller/resources";
import { startTestServer, waitFor } from "kontroller/testing";
import { HealthMonitor } from "../examples/health-monitor/health-monitor.ts";
import { User } from "../examples/user-namespace/user.ts";
import { type Measured, nowMs, percentile, type Suite } from "./harness.ts";

const silent = { error() {}, warn() {}, info() {}, debug() {} };

async function run(
  queue: QueueKind,
  backlog: number,
  fresh: number,
  ioMs: number,
): Promise<Measured> {
  await using server = await startTestServer();
  await using client = createClient({ url: server.url });
  const crds = client.resource(customResourceDefinitions);
  for (const def of [User, HealthMonitor]) {
    const crd = await crds.create(def.crd());
    await waitFor(crds, crd.metadata!.name!, isEstablished);
  }
  const monitors = client.resource(HealthMonitor, { namespace: "default" });
  const users = client.resource(User);
  // Seed the backlog, 32 writes in flight.
  for (let i = 0; i < backlog; i += 32) {
    await Promise.all(
      Array.from({ length: Math.min(32, backlog - i) }, (_, j) =>
        monitors.create(
          HealthMonitor.object({
            metadata: { name: `monitor-${i + j}` },
            spec: {
              url: `http://app-${i + j}.example/healthz`,
              intervalSeconds: 30,
              active: false,
            },
          }),
        ),
      ),
    );
  }
  const factory = new InformerFactory({ client, logger: silent });
  const userLister = factory.lister(User);
  const monitorLister = factory.lister(HealthMonitor);
  const createdAt = new Map<string, number>();
  const latencies: number[] = [];
  let reconciled = 0;
  let firstAt = 0;
  let backlogDoneAt = 0;
  let allDone!: () => void;
  const done = new Promise<void>((r) => {
    allDone = r;
  });
  const c = new Controller({
    spec: controller({
      name: `bench-${typeof queue === "string" ? queue : "custom"}`,
      for: User,
      watches: [
        {
          resource: HealthMonitor,
          map: (hm) => ({ namespace: hm.metadata!.namespace!, name: hm.metadata!.name! }),
        },
      ],
      queue,
      concurrency: 4,
      reconcile: async ({ namespace, name }) => {
        if (reconciled === 0) firstAt = nowMs();
        // Read the cache (a HealthMonitor is namespaced, a User is not), then the I/O a real
        // reconcile waits for.
        const object =
          namespace === undefined
            ? userLister.get(name)
            : monitorLister.namespace(namespace).get(name);
        JSON.stringify(object);
        if (ioMs > 0) await wait(ioMs);
        const t = namespace === undefined ? createdAt.get(name) : undefined;
        if (t !== undefined) latencies.push(nowMs() - t);
        if (++reconciled === backlog + fresh) {
          backlogDoneAt = nowMs();
          allDone();
        }
      },
    }),
    factory,
    logger: silent,
  });
  c.connect();
  const stop = new AbortController();
  factory.start(stop.signal);
  await c.start();
  // Fresh Users arrive while the backlog of HealthMonitors is being worked through.
  for (let i = 0; i < fresh; i++) {
    const name = `user-${i}`;
    createdAt.set(name, nowMs());
    await users.create(User.object({ metadata: { name }, spec: { displayName: `User ${i}` } }));
  }
  await done;
  const end = backlogDoneAt;
  await c.stop({ graceMs: 1000 });
  stop.abort();
  await factory.shutdown();
  const perSecond = { value: (backlog + fresh) / ((end - firstAt) / 1000), unit: "reconciles/s" };
  if (fresh === 0) return { reconciles_per_s: perSecond };
  return {
    p50_ms: { value: percentile(latencies, 50), unit: "ms" },
    p99_ms: { value: percentile(latencies, 99), unit: "ms" },
    reconciles_per_s: perSecond,
  };
}

export const suite: Suite = {
  name: "controller",
  description:
    "100 fresh User creates behind a backlog of 10 000 HealthMonitors (initial list): create-to-reconcile latency and reconciles/s, priority vs FIFO",
  async run(ctx) {
    const backlog = ctx.quick ? 2000 : 10_000;
    const fresh = ctx.quick ? 20 : 100;
    const results = await ctx.compare("fresh-behind-backlog", {
      "kontroller-priority": () => run("priority", backlog, fresh, 2),
      "kontroller-fifo": () => run("fifo", backlog, fresh, 2),
    });
    const p = results["kontroller-priority"]!.p99_ms!.value;
    const f = results["kontroller-fifo"]!.p99_ms!.value;
    ctx.report({
      workload: "fresh-behind-backlog",
      impl: "kontroller-priority",
      metric: "p99_speedup_vs_fifo",
      value: f / p,
      unit: "x",
    });
    await ctx.compare("saturation", {
      "kontroller-priority": () => run("priority", backlog, 0, 0),
      "kontroller-fifo": () => run("fifo", backlog, 0, 0),
    });
  },
};
