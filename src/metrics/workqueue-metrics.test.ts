import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Registry } from "prom-client";
import { InvalidOptionError } from "../core/index.ts";
import {
  EXCEEDED_CARDINALITY_LIMIT,
  WORKQUEUE_DURATION_BUCKETS,
  WorkqueueMetricsProvider,
} from "./workqueue-metrics.ts";

/** A queue's in-flight work, as a test sets it. */
const probe = (unfinished = 0, longest = 0) => ({
  unfinishedWorkSeconds: () => unfinished,
  longestRunningProcessorSeconds: () => longest,
});

/** `name{labels} value` lines of the exposition text, without comments. */
async function samples(registry: Registry): Promise<Map<string, number>> {
  const text = await registry.metrics();
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

describe("WorkqueueMetricsProvider", () => {
  it("registers client-go's names and types, plus waiting and depth by priority", async () => {
    const registry = new Registry();
    new WorkqueueMetricsProvider({ registry });
    const types = Object.fromEntries(
      (await registry.getMetricsAsJSON()).map((m) => [m.name, String(m.type)]),
    );
    assert.deepEqual(types, {
      workqueue_depth: "gauge",
      workqueue_adds_total: "counter",
      workqueue_queue_duration_seconds: "histogram",
      workqueue_work_duration_seconds: "histogram",
      workqueue_unfinished_work_seconds: "gauge",
      workqueue_longest_running_processor_seconds: "gauge",
      workqueue_retries_total: "counter",
      workqueue_waiting: "gauge",
      workqueue_depth_by_lane: "gauge",
      workqueue_depth_by_priority: "gauge",
    });
    assert.deepEqual(
      WORKQUEUE_DURATION_BUCKETS,
      [1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100, 1000],
    );
  });

  it("creates every series of a queue at zero, labelled by name", async () => {
    const registry = new Registry();
    const metrics = new WorkqueueMetricsProvider({ registry });
    metrics.newQueueMetrics("pods", probe());
    const s = await samples(registry);
    for (const name of [
      "workqueue_depth",
      "workqueue_adds_total",
      "workqueue_retries_total",
      "workqueue_waiting",
      "workqueue_unfinished_work_seconds",
      "workqueue_longest_running_processor_seconds",
      "workqueue_queue_duration_seconds_count",
      "workqueue_work_duration_seconds_count",
    ]) {
      assert.equal(s.get(`${name}{name="pods"}`), 0, name);
    }
    assert.equal(s.get('workqueue_queue_duration_seconds_bucket{le="0.001",name="pods"}'), 0);
  });

  it("reports what the queue does, and in-flight work when collected", async () => {
    const registry = new Registry();
    const metrics = new WorkqueueMetricsProvider({ registry });
    const m = metrics.newQueueMetrics("pods", probe(3, 2));
    m.depth.inc();
    m.depth.inc();
    m.depth.dec();
    m.adds.inc();
    m.retries.inc();
    m.waiting.inc();
    m.queueDuration.observe(0.002);
    m.workDuration.observe(3);
    const s = await samples(registry);
    assert.equal(s.get('workqueue_depth{name="pods"}'), 1);
    assert.equal(s.get('workqueue_adds_total{name="pods"}'), 1);
    assert.equal(s.get('workqueue_retries_total{name="pods"}'), 1);
    assert.equal(s.get('workqueue_waiting{name="pods"}'), 1);
    assert.equal(s.get('workqueue_queue_duration_seconds_bucket{le="0.001",name="pods"}'), 0);
    assert.equal(s.get('workqueue_queue_duration_seconds_bucket{le="0.01",name="pods"}'), 1);
    assert.equal(s.get('workqueue_work_duration_seconds_sum{name="pods"}'), 3);
    assert.equal(s.get('workqueue_unfinished_work_seconds{name="pods"}'), 3);
    assert.equal(s.get('workqueue_longest_running_processor_seconds{name="pods"}'), 2);
  });

  it("reports the in-flight work of the latest queue of a name", async () => {
    const registry = new Registry();
    const metrics = new WorkqueueMetricsProvider({ registry });
    metrics.newQueueMetrics("pods", probe(5, 5));
    metrics.newQueueMetrics("pods", probe(1, 1));
    metrics.newQueueMetrics("nodes", probe(7, 4));
    const s = await samples(registry);
    assert.equal(s.get('workqueue_unfinished_work_seconds{name="pods"}'), 1);
    assert.equal(s.get('workqueue_longest_running_processor_seconds{name="nodes"}'), 4);
  });

  it("reports the depth of each lane of a queue that has lanes, when collected", async () => {
    const registry = new Registry();
    const metrics = new WorkqueueMetricsProvider({ registry });
    const lanes = { fast: 2, slow: 5 };
    metrics.newQueueMetrics("two-lane", { ...probe(), depthByLane: () => lanes });
    metrics.newQueueMetrics("fifo", { ...probe(), depthByLane: () => undefined });
    metrics.newQueueMetrics("old-probe", probe());
    let s = await samples(registry);
    assert.equal(s.get('workqueue_depth_by_lane{name="two-lane",lane="fast"}'), 2);
    assert.equal(s.get('workqueue_depth_by_lane{name="two-lane",lane="slow"}'), 5);
    assert.deepEqual(
      [...s.keys()].filter((k) => k.startsWith("workqueue_depth_by_lane")).length,
      2,
      "no lane series for queues without lanes",
    );
    lanes.fast = 0;
    s = await samples(registry);
    assert.equal(s.get('workqueue_depth_by_lane{name="two-lane",lane="fast"}'), 0);
  });

  it("caps the distinct priority labels of a queue", async () => {
    const registry = new Registry();
    const metrics = new WorkqueueMetricsProvider({ registry, maxPriorityLabels: 2 });
    const depth = metrics.newQueueMetrics("pq", probe()).priorityDepth;
    for (const p of [1, 2, 3, 4, 1]) depth.inc(p);
    depth.inc(5);
    depth.dec(5);
    const s = await samples(registry);
    assert.equal(s.get('workqueue_depth_by_priority{name="pq",priority="1"}'), 2);
    assert.equal(s.get('workqueue_depth_by_priority{name="pq",priority="2"}'), 1);
    assert.equal(
      s.get(`workqueue_depth_by_priority{name="pq",priority="${EXCEEDED_CARDINALITY_LIMIT}"}`),
      2,
    );
    assert.equal(s.get('workqueue_depth_by_priority{name="pq",priority="3"}'), undefined);
  });

  it("rejects a missing registry, a bad cap, and a registry that already has the metrics", () => {
    assert.throws(
      () => new WorkqueueMetricsProvider({} as never),
      (e: unknown) => e instanceof InvalidOptionError && e.option === "registry",
    );
    const registry = new Registry();
    assert.throws(
      () => new WorkqueueMetricsProvider({ registry, maxPriorityLabels: 0 }),
      (e: unknown) => e instanceof InvalidOptionError && e.option === "maxPriorityLabels",
    );
    new WorkqueueMetricsProvider({ registry });
    assert.throws(() => new WorkqueueMetricsProvider({ registry }), /share one provider/);
  });
});
