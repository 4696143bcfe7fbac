/**
 * What a pod asks for and what a node offers, in the units the filters compare: millicores of
 * CPU, bytes of memory, and a count of pods.
 */
import type { Node, Pod } from "kontroller/resources";
import { milliValue, value } from "./quantity.ts";

/** Resources in comparable units. */
export interface Resources {
  /** CPU in millicores. */
  readonly milliCpu: number;
  /** Memory in bytes. */
  readonly memory: number;
  /** Pods (a pod counts as one against a node's `pods` allocatable). */
  readonly pods: number;
}

/** Nothing. */
export const ZERO: Resources = Object.freeze({ milliCpu: 0, memory: 0, pods: 0 });

/** `a + b`. */
export function add(a: Resources, b: Resources): Resources {
  return { milliCpu: a.milliCpu + b.milliCpu, memory: a.memory + b.memory, pods: a.pods + b.pods };
}

/** CPU and memory only (what scoring weighs). */
export interface CpuMemory {
  readonly milliCpu: number;
  readonly memory: number;
}

/** What a pod takes from a node: its requests, and the same with kube's scoring defaults. */
export interface PodDemand {
  /** Requests, counted against allocatable by the filters. */
  readonly requests: Resources;
  /**
   * Requests with 100m CPU and 200Mi memory for a container that requests none (kube's
   * non-zero requests): scoring uses these, so pods without requests still spread out.
   */
  readonly nonZero: CpuMemory;
}

/** kube-scheduler's defaults for a container's unset requests, when scoring. */
export const DEFAULT_MILLI_CPU = 100;
export const DEFAULT_MEMORY = 200 * 1024 * 1024;

type Requirements = { requests?: Record<string, unknown> } | undefined;

function requestOf(resources: Requirements, nonZero: boolean): CpuMemory {
  const r = resources?.requests ?? {};
  const cpu = r.cpu;
  const memory = r.memory;
  return {
    milliCpu:
      cpu === undefined ? (nonZero ? DEFAULT_MILLI_CPU : 0) : milliValue(cpu as string | number),
    memory:
      memory === undefined ? (nonZero ? DEFAULT_MEMORY : 0) : value(memory as string | number),
  };
}

/** Containers summed, raised to the largest init container, plus the overhead. */
function total(pod: Pod, nonZero: boolean): CpuMemory {
  let milliCpu = 0;
  let memory = 0;
  for (const c of pod.spec?.containers ?? []) {
    const r = requestOf(c.resources as Requirements, nonZero);
    milliCpu += r.milliCpu;
    memory += r.memory;
  }
  for (const c of pod.spec?.initContainers ?? []) {
    const r = requestOf(c.resources as Requirements, nonZero);
    milliCpu = Math.max(milliCpu, r.milliCpu);
    memory = Math.max(memory, r.memory);
  }
  const overhead = requestOf({ requests: pod.spec?.overhead as Record<string, unknown> }, false);
  return { milliCpu: milliCpu + overhead.milliCpu, memory: memory + overhead.memory };
}

/**
 * What a pod requests, as kube-scheduler computes it: the sum over its containers, raised to
 * any single init container's request (they run one at a time, before the others), plus the
 * pod overhead; and one pod. (The API server defaults requests to limits.)
 * @throws {QuantityError} for a request that is not a quantity.
 */
export function podDemand(pod: Pod): PodDemand {
  return { requests: { ...total(pod, false), pods: 1 }, nonZero: total(pod, true) };
}

/**
 * What a node offers pods: `status.allocatable` (the capacity when a kubelet reported no
 * allocatable). A resource the node does not report is 0, except pods: no limit.
 * @throws {QuantityError} for a value that is not a quantity.
 */
export function nodeAllocatable(node: Node): Resources {
  const a = (node.status?.allocatable ?? node.status?.capacity ?? {}) as Record<string, string>;
  return {
    milliCpu: a.cpu === undefined ? 0 : milliValue(a.cpu),
    memory: a.memory === undefined ? 0 : value(a.memory),
    pods: a.pods === undefined ? Number.POSITIVE_INFINITY : value(a.pods),
  };
}

const demands = new WeakMap<Pod, PodDemand>();

/**
 * {@link podDemand}, remembered per pod object: informer caches hand out the same immutable
 * object until the pod changes, so each version of a pod is parsed once.
 */
export function cachedPodDemand(pod: Pod): PodDemand {
  let d = demands.get(pod);
  if (d === undefined) {
    d = podDemand(pod);
    demands.set(pod, d);
  }
  return d;
}

const allocatables = new WeakMap<Node, Resources>();

/** {@link nodeAllocatable}, remembered per node object. */
export function cachedNodeAllocatable(node: Node): Resources {
  let a = allocatables.get(node);
  if (a === undefined) {
    a = nodeAllocatable(node);
    allocatables.set(node, a);
  }
  return a;
}
