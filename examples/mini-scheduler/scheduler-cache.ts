/**
 * The scheduler's view of the cluster (the seed's NodeCache and PodCache): nodes from the node
 * informer's cache, the pods on each node from the pod informer's cache through an index by
 * `spec.nodeName`, and the pods this scheduler has assumed onto nodes while their bindings are
 * in flight.
 */
import type { Store } from "kontroller/cache";
import { keyOf } from "kontroller/core";
import type { Node, Pod } from "kontroller/resources";
import type { NodeInfo } from "./filters.ts";
import {
  add,
  type CpuMemory,
  cachedNodeAllocatable,
  cachedPodDemand,
  type PodDemand,
  type Resources,
  ZERO,
} from "./resources.ts";

/** The name of the pod informer's index of bound pods by node. */
export const NODE_NAME_INDEX = "spec.nodeName";

/** Files a pod under its node; pods not bound yet are not filed. */
export function nodeNameIndexFunc(pod: Pod): readonly string[] {
  const node = pod.spec?.nodeName;
  return node ? [node] : [];
}

/** A pod this scheduler placed on a node before the informer shows it there. */
interface Assumption {
  readonly key: string;
  readonly uid: string | undefined;
  readonly node: string;
  readonly demand: PodDemand;
}

/** What the bound pods of one node request, read from the index at one moment. */
interface Usage {
  readonly requested: Resources;
  readonly nonZero: CpuMemory;
  /** The keys of the pods counted. */
  readonly keys: ReadonlySet<string>;
}

/**
 * Node usage with assumed pods (kube-scheduler's cache with `AssumePod`/`ForgetPod`).
 *
 * Invariant — no two pods are placed into the same free capacity: what is requested on node N
 * is the sum over the pods in N's usage snapshot (the pods the index filed under N when the
 * snapshot was taken) plus every pod assumed on N whose key is not in that snapshot. So a pod
 * counts exactly once from the moment it is assumed, whether or not the informer has caught up:
 * before the snapshot holds it, as an assumption; after, from the index.
 *
 * How the state changes, and why the invariant holds:
 * - `assume(pod, node)` adds the assumption before the binding is sent.
 * - `podChanged(node)`: the pod handler calls it when a pod filed under N was added, changed or
 *   deleted; it drops N's snapshot. The informer updates its index before its handlers run, so
 *   the next snapshot already reflects the change.
 * - `observed(pod)`: the handler saw the pod bound (or deleted, or replaced by another uid); the
 *   assumption goes and the nodes involved lose their snapshots, so the next snapshot counts
 *   the pod from the index (or no longer at all, when it is gone).
 * - `forget(key)`: the binding failed, so the pod is not on the node; the assumption goes.
 *
 * Not guaranteed: a binding whose answer was lost (connection reset) but which the server
 * applied is forgotten, so the pod is uncounted until the informer shows it bound; pods bound
 * by someone else count only once their handler call ran (as in kube-scheduler).
 */
export class SchedulerCache {
  readonly #pods: Store<Pod>;
  readonly #nodes: Store<Node>;
  readonly #usage = new Map<string, Usage>();
  /** Node infos as last computed; dropped whenever their node's usage or assumptions change. */
  readonly #infos = new Map<string, NodeInfo>();
  readonly #assumed = new Map<string, Assumption>();
  readonly #assumedOn = new Map<string, Map<string, Assumption>>();

  /** Reads `pods` (with the {@link NODE_NAME_INDEX} index) and `nodes`; starts nothing. */
  constructor(pods: Store<Pod>, nodes: Store<Node>) {
    this.#pods = pods;
    this.#nodes = nodes;
  }

  /** How many pods are assumed and not yet seen bound. */
  get assumedCount(): number {
    return this.#assumed.size;
  }

  /** True if the pod `key` is assumed (its binding is in flight, or not yet seen). */
  isAssumed(key: string): boolean {
    return this.#assumed.has(key);
  }

  /** The node the pod `key` is assumed on, if any. */
  assumedNode(key: string): string | undefined {
    return this.#assumed.get(key)?.node;
  }

  /**
   * Counts `pod` on `node` from now on.
   * @throws {Error} if the pod is already assumed (a scheduler never places a pod twice).
   */
  assume(pod: Pod, node: string, demand: PodDemand = cachedPodDemand(pod)): void {
    const key = podKey(pod);
    if (this.#assumed.has(key)) throw new Error(`pod ${key} is already assumed on a node`);
    const a: Assumption = { key, uid: pod.metadata?.uid, node, demand };
    this.#assumed.set(key, a);
    let on = this.#assumedOn.get(node);
    if (on === undefined) {
      on = new Map();
      this.#assumedOn.set(node, on);
    }
    on.set(key, a);
    this.#infos.delete(node);
  }

  /** The binding of `key` failed: it no longer counts. Returns the node it was assumed on. */
  forget(key: string): string | undefined {
    const a = this.#assumed.get(key);
    if (a === undefined) return undefined;
    this.#drop(a);
    return a.node;
  }

  /** A pod filed under `node` was added, changed or deleted in the informer's cache. */
  podChanged(node: string): void {
    this.#usage.delete(node);
    this.#infos.delete(node);
  }

  /**
   * The informer shows `pod` bound to a node, or deleted (`deleted`): an assumption of the same
   * key ends (a pod with another uid replaced the assumed one, which is gone too).
   */
  observed(pod: Pod, deleted: boolean): void {
    const key = podKey(pod);
    const a = this.#assumed.get(key);
    if (a === undefined) return;
    const sameUid = a.uid === undefined || a.uid === pod.metadata?.uid;
    if (deleted || !sameUid || pod.spec?.nodeName) {
      this.#drop(a);
      this.podChanged(a.node);
      if (pod.spec?.nodeName) this.podChanged(pod.spec.nodeName);
    }
  }

  /** Every node with what is requested on it (bound and assumed pods). */
  nodeInfos(): NodeInfo[] {
    const out: NodeInfo[] = [];
    for (const node of this.#nodes.list()) out.push(this.nodeInfo(node));
    return out;
  }

  /** One node with what is requested on it. */
  nodeInfo(node: Node): NodeInfo {
    const name = node.metadata?.name ?? "";
    const cached = this.#infos.get(name);
    if (cached !== undefined && cached.node === node) return cached;
    const usage = this.#usageOf(name);
    let requested = usage.requested;
    let nonZero = usage.nonZero;
    for (const a of this.#assumedOn.get(name)?.values() ?? []) {
      if (usage.keys.has(a.key)) continue;
      requested = add(requested, a.demand.requests);
      nonZero = {
        milliCpu: nonZero.milliCpu + a.demand.nonZero.milliCpu,
        memory: nonZero.memory + a.demand.nonZero.memory,
      };
    }
    const info: NodeInfo = {
      node,
      name,
      allocatable: cachedNodeAllocatable(node),
      requested,
      nonZeroRequested: nonZero,
    };
    this.#infos.set(name, info);
    return info;
  }

  #usageOf(node: string): Usage {
    let usage = this.#usage.get(node);
    if (usage !== undefined) return usage;
    let requested = ZERO;
    let milliCpu = 0;
    let memory = 0;
    const keys = new Set<string>();
    for (const pod of this.#pods.byIndex(NODE_NAME_INDEX, node)) {
      if (isTerminated(pod)) continue;
      const d = demandOrNothing(pod);
      requested = add(requested, d.requests);
      milliCpu += d.nonZero.milliCpu;
      memory += d.nonZero.memory;
      keys.add(podKey(pod));
    }
    usage = { requested, nonZero: { milliCpu, memory }, keys };
    this.#usage.set(node, usage);
    return usage;
  }

  #drop(a: Assumption): void {
    this.#infos.delete(a.node);
    this.#assumed.delete(a.key);
    const on = this.#assumedOn.get(a.node);
    on?.delete(a.key);
    if (on?.size === 0) this.#assumedOn.delete(a.node);
  }
}

/** `namespace/name` of a pod. */
export function podKey(pod: Pod): string {
  return keyOf(pod.metadata?.namespace ?? "", pod.metadata?.name ?? "");
}

/** A bound pod's demand; one whose requests do not parse counts as one pod and nothing else. */
function demandOrNothing(pod: Pod): PodDemand {
  try {
    return cachedPodDemand(pod);
  } catch {
    return { requests: { ...ZERO, pods: 1 }, nonZero: { milliCpu: 0, memory: 0 } };
  }
}

/** Succeeded and Failed pods hold no resources (kube-scheduler skips them). */
function isTerminated(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === "Succeeded" || phase === "Failed";
}
