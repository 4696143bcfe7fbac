/**
 * The scheduler cache: an assumed pod counts exactly once on its node from the moment it is
 * assumed — before the informer's index holds it, while the index holds it but the handler has
 * not run yet, and after — and stops counting when its binding fails or it is gone.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Indexer } from "kontroller/cache";
import type { Node, Pod } from "kontroller/resources";
import {
  NODE_NAME_INDEX,
  nodeNameIndexFunc,
  SchedulerCache,
} from "../../../examples/mini-scheduler/scheduler-cache.ts";

function node(name: string): Node {
  return {
    metadata: { name },
    status: {
      allocatable: { cpu: "4", memory: "8Gi" },
      conditions: [{ type: "Ready", status: "True" }],
    },
  };
}

function pod(name: string, cpu: string, nodeName?: string, uid = `uid-${name}`): Pod {
  return {
    metadata: { name, namespace: "default", uid },
    spec: {
      containers: [{ name: "c", image: "x", resources: { requests: { cpu } } }],
      ...(nodeName ? { nodeName } : {}),
    },
  };
}

function setup() {
  const pods = new Indexer<Pod>({ indexers: { [NODE_NAME_INDEX]: nodeNameIndexFunc } });
  const nodes = new Indexer<Node>();
  nodes.upsert(node("n1"));
  nodes.upsert(node("n2"));
  const cache = new SchedulerCache(pods.readOnly(), nodes.readOnly());
  const cpu = (name: string) => cache.nodeInfos().find((i) => i.name === name)!.requested.milliCpu;
  return { pods, nodes, cache, cpu };
}

describe("mini-scheduler: scheduler cache", () => {
  it("counts bound pods from the index, per node", () => {
    const { pods, cpu } = setup();
    pods.upsert(pod("a", "1", "n1"));
    pods.upsert(pod("b", "500m", "n1"));
    pods.upsert(pod("c", "2", "n2"));
    pods.upsert(pod("pending", "3"));
    assert.equal(cpu("n1"), 1500);
    assert.equal(cpu("n2"), 2000);
  });

  it("counts an assumed pod once while the informer catches up (index first, handler later)", () => {
    const { pods, cache, cpu } = setup();
    assert.equal(cpu("n1"), 0); // a snapshot of n1 is now cached
    const p = pod("p", "1");
    pods.upsert(p);
    cache.assume(p, "n1");
    assert.equal(cpu("n1"), 1000, "assumed");
    // The informer files the bound pod under n1; its handler has not run yet.
    pods.upsert(pod("p", "1", "n1"));
    assert.equal(cpu("n1"), 1000, "the stale snapshot misses it; the assumption counts");
    cache.podChanged("n1");
    assert.equal(cpu("n1"), 1000, "the fresh snapshot holds it; the assumption does not count");
    cache.observed(pod("p", "1", "n1"), false);
    assert.equal(cache.assumedCount, 0);
    assert.equal(cpu("n1"), 1000, "counted from the index alone");
  });

  it("counts an assumed pod once when the snapshot is first taken after the index has it", () => {
    const { pods, cache, cpu } = setup();
    const p = pod("p", "1");
    cache.assume(p, "n1");
    pods.upsert(pod("p", "1", "n1"));
    assert.equal(cpu("n1"), 1000);
  });

  it("forgets an assumption whose binding failed, and refuses to assume a pod twice", () => {
    const { cache, cpu } = setup();
    const p = pod("p", "2");
    cache.assume(p, "n2");
    assert.throws(() => cache.assume(p, "n1"), /already assumed/);
    assert.equal(cache.assumedNode("default/p"), "n2");
    assert.equal(cache.forget("default/p"), "n2");
    assert.equal(cache.forget("default/p"), undefined);
    assert.equal(cpu("n2"), 0);
    cache.assume(p, "n1");
    assert.equal(cpu("n1"), 2000);
  });

  it("drops an assumption when the pod is deleted, replaced by another uid, or bound elsewhere", () => {
    const { cache, cpu } = setup();
    cache.assume(pod("gone", "1"), "n1");
    cache.observed(pod("gone", "1"), true);
    cache.assume(pod("twin", "1"), "n1");
    cache.observed(pod("twin", "1", undefined, "another-uid"), false);
    cache.assume(pod("elsewhere", "1"), "n1");
    cache.observed(pod("elsewhere", "1", "n2"), false);
    cache.assume(pod("still", "1"), "n1");
    cache.observed(pod("still", "1"), false); // seen, not bound yet: still assumed
    assert.equal(cache.assumedCount, 1);
    assert.equal(cpu("n1"), 1000);
  });

  it("reads a node again when it changes (allocatable), and keeps its usage", () => {
    const { pods, nodes, cache } = setup();
    pods.upsert(pod("a", "1", "n1"));
    const before = cache.nodeInfos().find((i) => i.name === "n1")!;
    assert.equal(before.allocatable.milliCpu, 4000);
    const bigger = node("n1");
    bigger.status!.allocatable!.cpu = "16";
    nodes.upsert(bigger);
    const after = cache.nodeInfos().find((i) => i.name === "n1")!;
    assert.equal(after.allocatable.milliCpu, 16_000);
    assert.equal(after.requested.milliCpu, 1000);
  });

  it("does not count finished pods", () => {
    const { pods, cache, cpu } = setup();
    const done = pod("done", "3", "n1");
    pods.upsert({ ...done, status: { phase: "Succeeded" } });
    pods.upsert({ ...pod("failed", "3", "n1"), status: { phase: "Failed" } });
    cache.podChanged("n1");
    assert.equal(cpu("n1"), 0);
  });
});
