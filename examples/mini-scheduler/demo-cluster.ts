/**
 * The mini scheduler's part of `kontroller demo`: three nodes of different sizes (one with an
 * SSD label, one cordoned), a few pods — web replicas, a database that wants the SSD node, and a
 * batch job too big for every node, which stays Pending with a FailedScheduling event — and the
 * scheduler, taking the pods of `default-scheduler` since no other scheduler runs there.
 */
import type { Client } from "kontroller/client";
import { isAlreadyExists } from "kontroller/core";
import { type Node, nodes, type Pod, pods } from "kontroller/resources";
import { waitFor } from "kontroller/testing";
import { Scheduler } from "./scheduler.ts";

/** The running demo scheduler. */
export interface SchedulerDemo {
  readonly scheduler: Scheduler;
  /** Resolves once the scheduler has stopped (after the signal aborted). */
  readonly stopped: Promise<void>;
  /** One line for the progress display. */
  status(): string;
  /** Resolves once every demo pod that fits a node is bound to one; rejects when `signal` aborts. */
  scheduled(signal: AbortSignal): Promise<void>;
}

/** The demo's pod too big for every node: it stays Pending. */
const TOO_BIG = "batch-1";

function node(name: string, cpu: string, memory: string, labels: Record<string, string>): Node {
  return {
    metadata: { name, labels: { "kubernetes.io/hostname": name, ...labels } },
    status: {
      capacity: { cpu, memory, pods: "110" },
      conditions: [{ type: "Ready", status: "True", reason: "KubeletReady" }],
      nodeInfo: { kubeletVersion: "v1.32.0" } as NonNullable<Node["status"]>["nodeInfo"],
    },
  };
}

function pod(name: string, cpu: string, memory: string, extra: Partial<Pod["spec"]> = {}): Pod {
  return {
    metadata: { name, namespace: "default", labels: { app: name.replace(/-\d+$/, "") } },
    spec: {
      containers: [{ name: "main", image: "nginx:1.27", resources: { requests: { cpu, memory } } }],
      ...extra,
    },
  };
}

/** The taint kube gives a new node until it is seen Ready. */
const NOT_READY = "node.kubernetes.io/not-ready";

/**
 * Lifts the not-ready taint kube puts on every new node, as kube's node lifecycle controller does
 * once the node's kubelet reports Ready — which the demo's nodes say from the start.
 */
async function markReady(client: Client, name: string): Promise<void> {
  const nodeClient = client.resource(nodes);
  const node = await nodeClient.get(name);
  const taints = node.spec?.taints ?? [];
  if (!taints.some((t) => t.key === NOT_READY)) return;
  await nodeClient.update({
    ...node,
    spec: { ...node.spec, taints: taints.filter((t) => t.key !== NOT_READY) },
  });
}

/** Creates the demo's nodes and pods (those missing) and starts the scheduler until `signal`. */
export async function startSchedulerDemo(
  client: Client,
  signal: AbortSignal,
): Promise<SchedulerDemo> {
  const create = async <T>(write: () => Promise<T>) => {
    try {
      await write();
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  };
  const nodeClient = client.resource(nodes);
  for (const n of [
    node("node-small", "2", "4Gi", {}),
    node("node-large", "8", "16Gi", { disk: "ssd" }),
    { ...node("node-maintenance", "16", "32Gi", {}), spec: { unschedulable: true } },
  ]) {
    await create(() => nodeClient.create(n));
    await markReady(client, n.metadata!.name!);
  }
  const scheduler = new Scheduler({ client, schedulerName: "default-scheduler" });
  const stopped = scheduler.start(signal);
  const podClient = client.resource(pods, { namespace: "default" });
  const demoPods = [
    pod("web-1", "500m", "256Mi"),
    pod("web-2", "500m", "256Mi"),
    pod("web-3", "500m", "256Mi"),
    pod("db-1", "2", "4Gi", { nodeSelector: { disk: "ssd" }, priority: 1000 }),
    pod(TOO_BIG, "12", "8Gi"),
  ];
  for (const p of demoPods) {
    await create(() => podClient.create(p));
  }
  const fitting = demoPods.map((p) => p.metadata!.name!).filter((name) => name !== TOO_BIG);
  return {
    scheduler,
    stopped,
    status: () =>
      `mini-scheduler: ${scheduler.stats.bound} bound, ${scheduler.unschedulableCount} waiting for room`,
    scheduled: async (until) => {
      await Promise.all(
        fitting.map((name) =>
          waitFor(podClient, name, (p) => p?.spec?.nodeName !== undefined, { signal: until }),
        ),
      );
    },
  };
}
