/**
 * Scheduler benchmark: the mini scheduler (examples/mini-scheduler) against the embedded API
 * server, in one process. 500 nodes exist (8 CPU, 32 GiB, 110 pods each); the scheduler starts
 * and syncs; then 10 000 pods (100m, 128 MiB; room for all) are created, 64 creates in flight,
 * while it schedules. A separate watch records when each pod is seen bound. Measured: pods bound
 * per second (from the first create to the last binding seen) and the time from a pod's create
 * request to its binding, p50 and p99. `creates_per_s` says how fast pods arrived: the
 * scheduler cannot bind faster than that.
 *
 * `npm run bench -- scheduler [--json] [--rounds N] [--quick]`
 */
import { createClient } from "kontroller/client";
import { nodes, pods } from "kontroller/resources";
import { startTestServer } from "kontroller/testing";
import { Scheduler } from "../examples/mini-scheduler/scheduler.ts";
import { type Measured, nowMs, percentile, type Suite } from "./harness.ts";

const IN_FLIGHT = 64;

async function run(nodeCount: number, podCount: number): Promise<Measured> {
  await using server = await startTestServer({ controllers: false });
  await using client = createClient({ url: server.url });
  await using watcher = createClient({ url: server.url });
  const nodeClient = client.resource(nodes);
  for (let i = 0; i < nodeCount; i += IN_FLIGHT) {
    await Promise.all(
      Array.from({ length: Math.min(IN_FLIGHT, nodeCount - i) }, (_, j) =>
        nodeClient.create({
          metadata: { name: `node-${String(i + j).padStart(4, "0")}` },
          status: {
            capacity: { cpu: "8", memory: "32Gi", pods: "110" },
            conditions: [{ type: "Ready", status: "True" }],
          },
        }),
      ),
    );
  }
  const schedulerClient = createClient({ url: server.url });
  const scheduler = new Scheduler({ client: schedulerClient, schedulerName: "bench-scheduler" });
  const stop = new AbortController();
  const running = scheduler.start(stop.signal);
  await scheduler.whenIdle();

  // Bound times, from a watch of our own.
  const podClient = client.resource(pods, { namespace: "default" });
  const createdAt = new Map<string, number>();
  const boundAt = new Map<string, number>();
  let allBound!: () => void;
  const done = new Promise<void>((r) => {
    allBound = r;
  });
  const watchStop = new AbortController();
  const start = await watcher.resource(pods, { namespace: "default" }).list();
  const watching = (async () => {
    try {
      for await (const batch of watcher
        .resource(pods, { namespace: "default" })
        .watchBatches({ resourceVersion: start.resourceVersion, signal: watchStop.signal })) {
        const t = nowMs();
        for (const e of batch) {
          if (e.type === "BOOKMARK" || e.type === "DELETED") continue;
          const name = e.object.metadata?.name ?? "";
          if (e.object.spec?.nodeName && !boundAt.has(name)) {
            boundAt.set(name, t);
            if (boundAt.size === podCount) allBound();
          }
        }
      }
    } catch (err) {
      if (!watchStop.signal.aborted) throw err;
    }
  })();

  const firstCreate = nowMs();
  for (let i = 0; i < podCount; i += IN_FLIGHT) {
    await Promise.all(
      Array.from({ length: Math.min(IN_FLIGHT, podCount - i) }, (_, j) => {
        const name = `pod-${String(i + j).padStart(5, "0")}`;
        createdAt.set(name, nowMs());
        return podClient.create({
          metadata: { name },
          spec: {
            schedulerName: "bench-scheduler",
            containers: [
              {
                name: "app",
                image: "app",
                resources: { requests: { cpu: "100m", memory: "128Mi" } },
              },
            ],
          },
        });
      }),
    );
  }
  const lastCreate = nowMs();
  await done;
  const lastBound = Math.max(...boundAt.values());
  watchStop.abort();
  await watching;
  stop.abort();
  await running;
  await schedulerClient.close();
  if (scheduler.stats.bound !== podCount) {
    throw new Error(`bench: the scheduler bound ${scheduler.stats.bound} of ${podCount} pods`);
  }
  const latencies = [...boundAt].map(([name, t]) => t - createdAt.get(name)!);
  return {
    pods_per_s: { value: podCount / ((lastBound - firstCreate) / 1000), unit: "pods/s" },
    p50_ms: { value: percentile(latencies, 50), unit: "ms" },
    p99_ms: { value: percentile(latencies, 99), unit: "ms" },
    creates_per_s: { value: podCount / ((lastCreate - firstCreate) / 1000), unit: "pods/s" },
  };
}

export const suite: Suite = {
  name: "scheduler",
  description:
    "mini scheduler against the embedded server: 10 000 pods created onto 500 nodes; pods bound/s and create-to-bound latency",
  async run(ctx) {
    const nodeCount = ctx.quick ? 100 : 500;
    const podCount = ctx.quick ? 2000 : 10_000;
    await ctx.compare("pods-10k-nodes-500", { kontroller: () => run(nodeCount, podCount) });
  },
};
