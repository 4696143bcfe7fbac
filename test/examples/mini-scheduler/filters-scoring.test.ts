/**
 * Filtering and scoring, pure: each filter's reason in kube's words, the FailedScheduling
 * message, what a pod requests (init containers, overhead, scoring defaults), least-allocated
 * scores and host selection.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Node, Pod } from "kontroller/resources";
import {
  failureMessage,
  filterNode,
  type NodeInfo,
  REASONS,
  tolerates,
} from "../../../examples/mini-scheduler/filters.ts";
import { mayMakeRoom, priorityOf } from "../../../examples/mini-scheduler/informer-handlers.ts";
import {
  DEFAULT_MEMORY,
  DEFAULT_MILLI_CPU,
  nodeAllocatable,
  podDemand,
} from "../../../examples/mini-scheduler/resources.ts";
import { score, selectHost } from "../../../examples/mini-scheduler/scoring.ts";

const GI = 1024 ** 3;

function node(name: string, extra: Partial<Node> = {}, cpu = "4", memory = "8Gi"): Node {
  return {
    metadata: { name },
    status: {
      allocatable: { cpu, memory, pods: "10" },
      conditions: [{ type: "Ready", status: "True" }],
    },
    ...extra,
  };
}

function pod(requests: Record<string, string> = {}, spec: Partial<Pod["spec"]> = {}): Pod {
  return {
    metadata: { name: "p", namespace: "default" },
    spec: { containers: [{ name: "c", image: "x", resources: { requests } }], ...spec },
  };
}

/** A node with `used` already requested on it. */
function info(n: Node, used = { milliCpu: 0, memory: 0, pods: 0 }): NodeInfo {
  return {
    node: n,
    name: n.metadata?.name ?? "",
    allocatable: nodeAllocatable(n),
    requested: used,
    nonZeroRequested: { milliCpu: used.milliCpu, memory: used.memory },
  };
}

const fits = (p: Pod, i: NodeInfo) => filterNode(p, podDemand(p).requests, i);

describe("mini-scheduler: filters", () => {
  it("passes a pod that fits a ready node", () => {
    assert.deepEqual(fits(pod({ cpu: "4", memory: "8Gi" }), info(node("a"))), []);
  });

  it("rejects nodes that are not Ready", () => {
    for (const conditions of [
      [],
      [{ type: "Ready", status: "False" }],
      [{ type: "Ready", status: "Unknown" }],
    ]) {
      const n = node("a");
      n.status!.conditions = conditions;
      assert.deepEqual(fits(pod(), info(n)), [REASONS.notReady]);
    }
  });

  it("rejects cordoned nodes unless the pod tolerates the unschedulable taint", () => {
    const cordoned = info(node("a", { spec: { unschedulable: true } }));
    assert.deepEqual(fits(pod(), cordoned), [REASONS.unschedulable]);
    const tolerant = pod(
      {},
      {
        tolerations: [
          { key: "node.kubernetes.io/unschedulable", operator: "Exists", effect: "NoSchedule" },
        ],
      },
    );
    assert.deepEqual(fits(tolerant, cordoned), []);
  });

  it("rejects untolerated NoSchedule and NoExecute taints, ignores PreferNoSchedule", () => {
    const tainted = (effect: string) =>
      info(node("a", { spec: { taints: [{ key: "gpu", value: "yes", effect }] } }));
    assert.deepEqual(fits(pod(), tainted("NoSchedule")), [
      "node(s) had untolerated taint {gpu: yes}",
    ]);
    assert.deepEqual(fits(pod(), tainted("NoExecute")).length, 1);
    assert.deepEqual(fits(pod(), tainted("PreferNoSchedule")), []);
    const equal = pod({}, { tolerations: [{ key: "gpu", operator: "Equal", value: "yes" }] });
    assert.deepEqual(fits(equal, tainted("NoSchedule")), []);
    const wrongValue = pod({}, { tolerations: [{ key: "gpu", value: "no" }] });
    assert.equal(fits(wrongValue, tainted("NoSchedule")).length, 1);
  });

  it("tolerates as kube does: key, value, effect, Exists with an empty key", () => {
    const taint = { key: "k", value: "v", effect: "NoSchedule" };
    assert.equal(tolerates([{ operator: "Exists" }], taint), true);
    assert.equal(tolerates([{ key: "k", operator: "Exists", effect: "NoExecute" }], taint), false);
    assert.equal(tolerates([{ key: "", value: "v" }], taint), false);
    assert.equal(tolerates([{ key: "k", value: "v" }], taint), true);
    assert.equal(tolerates([], taint), false);
  });

  it("rejects nodes without every nodeSelector label", () => {
    const labelled = info(
      node("a", { metadata: { name: "a", labels: { disk: "ssd", zone: "1" } } }),
    );
    assert.deepEqual(fits(pod({}, { nodeSelector: { disk: "ssd" } }), labelled), []);
    assert.deepEqual(fits(pod({}, { nodeSelector: { disk: "hdd" } }), labelled), [
      REASONS.selector,
    ]);
    assert.deepEqual(fits(pod({}, { nodeSelector: { gpu: "1" } }), labelled), [REASONS.selector]);
  });

  it("compares requests with allocatable minus what is requested already, listing every shortfall", () => {
    const used = { milliCpu: 3500, memory: 7 * GI, pods: 9 };
    assert.deepEqual(fits(pod({ cpu: "500m", memory: "1Gi" }), info(node("a"), used)), []);
    assert.deepEqual(fits(pod({ cpu: "501m", memory: "1Gi" }), info(node("a"), used)), [
      REASONS.cpu,
    ]);
    assert.deepEqual(fits(pod({ cpu: "1", memory: "2Gi" }), info(node("a"), used)), [
      REASONS.cpu,
      REASONS.memory,
    ]);
    assert.deepEqual(fits(pod(), info(node("a"), { ...used, pods: 10 })), [REASONS.pods]);
    // A pod that requests no CPU fits a node whose CPU is all taken (kube's rule).
    assert.deepEqual(
      fits(pod({ memory: "1Gi" }), info(node("a"), { ...used, milliCpu: 9000 })),
      [],
    );
  });

  it("words the FailedScheduling message as kube does", () => {
    const reasons = new Map([
      [REASONS.selector, 2],
      [REASONS.cpu, 1],
    ]);
    assert.equal(
      failureMessage(3, reasons),
      "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match Pod's node affinity/selector.",
    );
    assert.equal(failureMessage(0, new Map()), "no nodes available to schedule pods");
  });
});

describe("mini-scheduler: requests and allocatable", () => {
  it("sums containers, raises to the largest init container, adds the overhead", () => {
    const p: Pod = {
      metadata: { name: "p" },
      spec: {
        containers: [
          { name: "a", resources: { requests: { cpu: "100m", memory: "1Gi" } } },
          { name: "b", resources: { requests: { cpu: "200m" } } },
        ],
        initContainers: [{ name: "i", resources: { requests: { cpu: "1", memory: "512Mi" } } }],
        overhead: { cpu: "10m", memory: "1Mi" },
      },
    };
    assert.deepEqual(podDemand(p).requests, { milliCpu: 1010, memory: GI + 1024 ** 2, pods: 1 });
  });

  it("gives containers without requests kube's scoring defaults (only for scoring)", () => {
    const d = podDemand(pod({ cpu: "250m" }));
    assert.deepEqual(d.requests, { milliCpu: 250, memory: 0, pods: 1 });
    assert.deepEqual(d.nonZero, { milliCpu: 250, memory: DEFAULT_MEMORY });
    assert.deepEqual(podDemand(pod()).nonZero, {
      milliCpu: DEFAULT_MILLI_CPU,
      memory: DEFAULT_MEMORY,
    });
  });

  it("reads allocatable, else capacity; a node without a pods figure takes any number", () => {
    assert.deepEqual(nodeAllocatable({ status: { capacity: { cpu: "2", memory: "1Gi" } } }), {
      milliCpu: 2000,
      memory: GI,
      pods: Number.POSITIVE_INFINITY,
    });
    assert.deepEqual(nodeAllocatable({}), {
      milliCpu: 0,
      memory: 0,
      pods: Number.POSITIVE_INFINITY,
    });
  });
});

describe("mini-scheduler: scoring and selection", () => {
  it("scores the share left free after placing the pod, CPU and memory averaged", () => {
    const d = podDemand(pod({ cpu: "1", memory: "2Gi" }));
    assert.equal(score(d, info(node("a"))), 75);
    assert.equal(score(d, info(node("a"), { milliCpu: 2000, memory: 2 * GI, pods: 1 })), 37);
    assert.equal(score(d, info(node("a", {}, "0", "0"))), 0);
  });

  it("picks the least allocated node, and the first name among equals", () => {
    const p = pod({ cpu: "1", memory: "1Gi" });
    const busy = info(node("a"), { milliCpu: 2000, memory: 4 * GI, pods: 2 });
    const idle = info(node("z"));
    const twin = info(node("m"));
    const chosen = selectHost(p, podDemand(p), [busy, idle, twin]);
    assert.equal(chosen.fits && chosen.node.name, "m");
    const none = selectHost(pod({ cpu: "16" }), podDemand(pod({ cpu: "16" })), [busy, idle]);
    assert.equal(none.fits, false);
    assert.deepEqual(!none.fits && [...none.reasons], [[REASONS.cpu, 2]]);
  });

  it("reads the priority and which node changes may make room", () => {
    assert.equal(priorityOf(pod({}, { priority: 1000 })), 1000);
    assert.equal(priorityOf(pod()), 0);
    assert.equal(priorityOf(pod({}, { priority: 1.5 })), 0);
    const n = node("a");
    const heartbeat = structuredClone(n);
    heartbeat.status!.conditions![0]!.lastHeartbeatTime = "2026-01-01T00:00:00Z";
    assert.equal(mayMakeRoom(n, heartbeat), false);
    const bigger = structuredClone(n);
    bigger.status!.allocatable!.cpu = "8";
    assert.equal(mayMakeRoom(n, bigger), true);
    assert.equal(mayMakeRoom(n, { ...n, spec: { unschedulable: true } }), true);
    assert.equal(mayMakeRoom(n, { ...n, metadata: { name: "a", labels: { x: "y" } } }), true);
  });
});
