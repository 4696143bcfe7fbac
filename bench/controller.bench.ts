/**
 * Controller benchmark: fresh events behind a backlog. A controller reconciles ConfigMaps with 4
 * workers; each reconcile reads its object from the cache and then waits 2 ms, standing in for
 * the API call or external request a real reconcile makes. 10 000 ConfigMaps exist when it
 * starts (its initial list: a backlog, entering at low priority); then 100 fresh ones are created
 * while it works through the backlog. Measured: the time from each fresh create to its
 * reconcile (p50, p99) and reconciles per second; and, as `saturation`, reconciles per second
 * of the same backlog with a reconcile that does no waiting. The default priority queue and a
 * plain FIFO queue run side by side in the same run.
 *
 * `npm run bench -- controller [--json] [--rounds N] [--quick]`
 */

import { setTimeout as wait } from "node:timers/promises";
import { InformerFactory } from "kontroller/cache";
import { createClient } from "kontroller/client";
import { Controller, controller, type QueueKind } from "kontroller/controller";
import { configMaps } from "kontroller/resources";
import { startTestServer } from "kontroller/testing";
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
  const cms = client.resource(configMaps, { namespace: "default" });
  // Seed the backlog, 32 writes in flight.
  for (let i = 0; i < backlog; i += 32) {
    await Promise.all(
      Array.from({ length: Math.min(32, backlog - i) }, (_, j) =>
        cms.create({ metadata: { name: `backlog-${i + j}` }, data: { n: String(i + j) } }),
      ),
    );
  }
  const factory = new InformerFactory({ client, logger: silent });
  const lister = factory.lister(configMaps);
  const createdAt = new Map<string, number>();
  const latencies: number[] = [];
  let reconciled = 0;
  let firstAt = 0;
  let backlogDoneAt = 0;
  let allDone!: () => void;
  const done = new Promise<void>((r) => {
    allDone = r;
  });
  const c = new Controller(
    controller({
      name: `bench-${typeof queue === "string" ? queue : "custom"}`,
      for: configMaps,
      queue,
      concurrency: 4,
      reconcile: async ({ namespace, name }) => {
        if (reconciled === 0) firstAt = nowMs();
        // Read the cache, then the I/O a real reconcile waits for.
        JSON.stringify(lister.namespace(namespace ?? "default").get(name));
        if (ioMs > 0) await wait(ioMs);
        const t = createdAt.get(name);
        if (t !== undefined) latencies.push(nowMs() - t);
        if (++reconciled === backlog + fresh) {
          backlogDoneAt = nowMs();
          allDone();
        }
      },
    }),
    { factory, logger: silent },
  );
  c.connect();
  const stop = new AbortController();
  factory.start(stop.signal);
  await c.start();
  // Fresh objects arrive while the backlog is being worked through.
  for (let i = 0; i < fresh; i++) {
    const name = `fresh-${i}`;
    createdAt.set(name, nowMs());
    await cms.create({ metadata: { name }, data: { fresh: "yes" } });
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
    "100 fresh creates behind a backlog of 10 000 (initial list): create-to-reconcile latency and reconciles/s, priority vs FIFO",
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
