/** Shared by the mini-scheduler end-to-end suites: objects, kubectl, a running scheduler. */
import { execFile } from "node:child_process";
import type { Client, ResourceClient } from "kontroller/client";
import type { KubeObject } from "kontroller/core";
import { type Node, nodes, type Pod, pods, resourceDefinition } from "kontroller/resources";
import type { TestServer } from "kontroller/testing";
import type { PriorityClass } from "kubernetes-types/scheduling/v1.js";
import { Scheduler, type SchedulerOptions } from "../../examples/mini-scheduler/scheduler.ts";

export const SCHEDULER = "mini-scheduler";

/** A Ready node with `cpu`, `memory` and room for `pods` pods. */
export function nodeObject(
  name: string,
  cpu: string,
  memory = "8Gi",
  extra: {
    labels?: Record<string, string>;
    unschedulable?: boolean;
    ready?: boolean;
    pods?: string;
  } = {},
): Node {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name, ...(extra.labels ? { labels: extra.labels } : {}) },
    ...(extra.unschedulable ? { spec: { unschedulable: true } } : {}),
    status: {
      capacity: { cpu, memory, pods: extra.pods ?? "110" },
      conditions: [{ type: "Ready", status: extra.ready === false ? "False" : "True" }],
    },
  };
}

/** The taint kube-apiserver puts on every new Node (admission plugin TaintNodesByCondition). */
const NOT_READY = "node.kubernetes.io/not-ready";

/**
 * Lifts the `node.kubernetes.io/not-ready` taint from `node` if it is Ready, as the node
 * lifecycle controller of kube-controller-manager does: kube-apiserver taints every new Node,
 * and no controller manager runs beside the test server. The embedded server adds no taint:
 * there, nothing to do.
 */
export async function liftNotReadyTaint(client: Client, node: Node): Promise<Node> {
  const ready = node.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True");
  const taints = node.spec?.taints ?? [];
  if (!ready || !taints.some((t) => t.key === NOT_READY)) return node;
  return client
    .resource(nodes)
    .update({ ...node, spec: { ...node.spec, taints: taints.filter((t) => t.key !== NOT_READY) } });
}

/** {@link liftNotReadyTaint} on every node, for nodes made with kubectl. */
export async function liftNotReadyTaints(client: Client): Promise<void> {
  for (const node of (await client.resource(nodes).list()).items) {
    await liftNotReadyTaint(client, node);
  }
}

/** Creates `node` and makes it schedulable if Ready, as a cluster does (see {@link liftNotReadyTaint}). */
export async function createNode(client: Client, node: Node): Promise<Node> {
  return liftNotReadyTaint(client, await client.resource(nodes).create(node));
}

/**
 * The PriorityClass that {@link podObject} names for a pod of priority `value`: on kube-apiserver
 * the Priority admission plugin sets a pod's `spec.priority` from its class (and refuses a
 * priority that its class does not give), so the class must exist before the pod.
 */
export function priorityClassObject(value: number): PriorityClass {
  return {
    apiVersion: "scheduling.k8s.io/v1",
    kind: "PriorityClass",
    metadata: { name: priorityClassName(value) },
    value,
  };
}

/** scheduling.k8s.io/v1 PriorityClass (cluster-scoped). */
export const priorityClasses = resourceDefinition<PriorityClass>({
  group: "scheduling.k8s.io",
  version: "v1",
  kind: "PriorityClass",
  plural: "priorityclasses",
  scope: "Cluster",
});

/**
 * Creates the PriorityClasses of `values` where the server has them: kube-apiserver gives a
 * pod the priority of its PriorityClass; the embedded server serves no PriorityClasses and
 * keeps a pod's `spec.priority` as it comes.
 */
export async function createPriorityClasses(
  server: TestServer,
  client: Client,
  values: readonly number[],
): Promise<void> {
  if (server.backend !== "kube-apiserver") return;
  for (const value of values) {
    await client.resource(priorityClasses).create(priorityClassObject(value));
  }
}

/** The PriorityClass that pods of priority `value` name. */
export function priorityClassName(value: number): string {
  return `priority-${value}`;
}

/**
 * A pod for our scheduler requesting `cpu` and `memory`. A priority other than 0 (the priority
 * of a pod without a class) comes with its class, {@link priorityClassObject}.
 */
export function podObject(
  name: string,
  cpu: string,
  memory = "64Mi",
  extra: { priority?: number; nodeSelector?: Record<string, string> } = {},
): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default" },
    spec: {
      schedulerName: SCHEDULER,
      ...(extra.priority === undefined ? {} : { priority: extra.priority }),
      ...(extra.priority ? { priorityClassName: priorityClassName(extra.priority) } : {}),
      ...(extra.nodeSelector ? { nodeSelector: extra.nodeSelector } : {}),
      containers: [{ name: "app", image: "nginx:1.27", resources: { requests: { cpu, memory } } }],
    },
  };
}

/** Runs kubectl against `kubeconfig`; `input` goes to its stdin. */
export function kubectl(kubeconfig: string, args: string[], input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      "kubectl",
      ["--kubeconfig", kubeconfig, ...args],
      { env: { ...process.env, KUBECACHEDIR: `${kubeconfig}.cache` }, timeout: 30_000 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`kubectl ${args.join(" ")}: ${stderr || err.message}`));
        else resolve(stdout);
      },
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** Aborts after 30 s: waits in these suites fail instead of hanging. */
export function deadline(): AbortSignal {
  return AbortSignal.timeout(30_000);
}

/** A scheduler running until `stop()`, which resolves once it has stopped. */
export interface RunningScheduler {
  readonly scheduler: Scheduler;
  stop(): Promise<void>;
}

/** Starts a scheduler for {@link SCHEDULER} (quiet, with the given options). */
export function runScheduler(
  client: Client,
  options: Partial<SchedulerOptions> = {},
): RunningScheduler {
  const scheduler = new Scheduler({ client, schedulerName: SCHEDULER, ...options });
  const ac = new AbortController();
  const running = scheduler.start(ac.signal);
  return {
    scheduler,
    stop: async () => {
      ac.abort();
      await running;
    },
  };
}

/** CPU requested on each node by the bound pods in `pods` (millicores). */
export function cpuByNode(pods: readonly Pod[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const p of pods) {
    const node = p.spec?.nodeName;
    if (!node) continue;
    const cpu = String(p.spec?.containers[0]?.resources?.requests?.cpu ?? "0");
    const milli = cpu.endsWith("m") ? Number(cpu.slice(0, -1)) : Number(cpu) * 1000;
    out.set(node, (out.get(node) ?? 0) + milli);
  }
  return out;
}

/**
 * Resolves with the items of `resource` (filtered by `fieldSelector`) once `test` accepts them:
 * lists, then watches from the list and tests after every change. Never polls. Rejects when
 * `signal` aborts (by default after 30 s, so that a scheduler that never gets there fails the
 * test instead of hanging it).
 */
export async function waitForList<T extends KubeObject>(
  resource: ResourceClient<T>,
  test: (items: T[]) => boolean,
  options: { fieldSelector?: string; signal?: AbortSignal } = {},
): Promise<T[]> {
  options = { ...options, signal: options.signal ?? deadline() };
  const stop = new AbortController();
  const onAbort = () => stop.abort(options.signal?.reason);
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    for (;;) {
      options.signal?.throwIfAborted();
      const list = await resource.list({
        ...(options.fieldSelector ? { fieldSelector: options.fieldSelector } : {}),
        signal: stop.signal,
      });
      const items = new Map(list.items.map((i) => [keyOf(i), i]));
      if (test([...items.values()])) return [...items.values()];
      try {
        for await (const e of resource.watch({
          ...(options.fieldSelector ? { fieldSelector: options.fieldSelector } : {}),
          resourceVersion: list.resourceVersion,
          signal: stop.signal,
        })) {
          if (e.type === "BOOKMARK") continue;
          if (e.type === "DELETED") items.delete(keyOf(e.object));
          else items.set(keyOf(e.object), e.object);
          if (test([...items.values()])) return [...items.values()];
        }
      } catch (err) {
        if (stop.signal.aborted) throw err;
      }
    }
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
    stop.abort();
  }
}

function keyOf(o: KubeObject): string {
  return `${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;
}

/** What {@link trackPlacements} saw. */
export interface PlacementLog {
  /** Every broken rule, as it happened: a pod moved, a node over its CPU. */
  readonly violations: string[];
  /** Pods seen bound, by node. */
  readonly boundTo: Map<string, string>;
  stop(): void;
}

/**
 * Watches every pod from now on and checks, at each change, that no bound pod ever moves and
 * no node's bound pods request more CPU than `cpuByNodeName` gives it (millicores).
 */
export async function trackPlacements(
  client: Client,
  cpuByNodeName: ReadonlyMap<string, number>,
): Promise<PlacementLog> {
  const resource = client.resource(pods);
  const first = await resource.list();
  const current = new Map(first.items.map((p) => [keyOf(p), p]));
  const boundTo = new Map<string, string>();
  const violations: string[] = [];
  const check = () => {
    for (const [node, used] of cpuByNode([...current.values()])) {
      const cap = cpuByNodeName.get(node) ?? 0;
      if (used > cap) violations.push(`${node}: ${used}m requested, ${cap}m allocatable`);
    }
  };
  const see = (p: Pod) => {
    const node = p.spec?.nodeName;
    if (!node) return;
    const before = boundTo.get(keyOf(p));
    if (before !== undefined && before !== node)
      violations.push(`${keyOf(p)} moved ${before} → ${node}`);
    boundTo.set(keyOf(p), node);
  };
  for (const p of first.items) see(p);
  check();
  const ac = new AbortController();
  void (async () => {
    try {
      for await (const e of resource.watch({
        resourceVersion: first.resourceVersion,
        signal: ac.signal,
      })) {
        if (e.type === "BOOKMARK") continue;
        if (e.type === "DELETED") current.delete(keyOf(e.object));
        else {
          current.set(keyOf(e.object), e.object);
          see(e.object);
        }
        check();
      }
    } catch (err) {
      if (!ac.signal.aborted) violations.push(`the watch broke: ${String(err)}`);
    }
  })();
  return { violations, boundTo, stop: () => ac.abort() };
}
