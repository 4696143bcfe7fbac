/**
 * Filtering: which nodes could run a pod. Pure functions of a pod, what it requests, and one
 * node with what is already requested on it; each failure is a reason in kube-scheduler's words,
 * so the FailedScheduling message reads like kube's: `0/3 nodes are available: 1 Insufficient
 * cpu, 2 node(s) didn't match Pod's node affinity/selector.`
 */
import type { Node, Pod } from "kontroller/resources";
import type { Toleration } from "kubernetes-types/core/v1.js";
import type { CpuMemory, Resources } from "./resources.ts";

/** A node as the filters and scores see it. */
export interface NodeInfo {
  readonly node: Node;
  readonly name: string;
  /** What the node offers (allocatable). */
  readonly allocatable: Resources;
  /** What the pods on it (bound and assumed) request. */
  readonly requested: Resources;
  /** The same, with kube's defaults for unset requests (for scoring only). */
  readonly nonZeroRequested: CpuMemory;
}

/** Reasons, worded as kube-scheduler words them. */
export const REASONS = {
  notReady: "node(s) were not ready",
  unschedulable: "node(s) were unschedulable",
  selector: "node(s) didn't match Pod's node affinity/selector",
  cpu: "Insufficient cpu",
  memory: "Insufficient memory",
  pods: "Too many pods",
} as const;

/** The taint kube puts on cordoned nodes; a pod tolerating it may still go there. */
const UNSCHEDULABLE_TAINT = {
  key: "node.kubernetes.io/unschedulable",
  effect: "NoSchedule",
} as const;

const readiness = new WeakMap<Node, boolean>();

/** True if the node's Ready condition is True (remembered per node object). */
export function isReady(node: Node): boolean {
  let ready = readiness.get(node);
  if (ready === undefined) {
    ready = (node.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");
    readiness.set(node, ready);
  }
  return ready;
}

/** True if one of `tolerations` tolerates a taint (kube's `Toleration.ToleratesTaint`). */
export function tolerates(
  tolerations: readonly Toleration[],
  taint: { key: string; value?: string; effect: string },
): boolean {
  return tolerations.some((t) => {
    if (t.effect && t.effect !== taint.effect) return false;
    if (t.key && t.key !== taint.key) return false;
    if (t.operator === "Exists") return true;
    if (!t.key) return false; // an empty key needs Exists
    return (t.value ?? "") === (taint.value ?? "");
  });
}

/** True if every `spec.nodeSelector` label is on the node with that value. */
export function matchesNodeSelector(pod: Pod, node: Node): boolean {
  const selector = pod.spec?.nodeSelector;
  if (selector === undefined) return true;
  const labels = node.metadata?.labels ?? {};
  for (const k in selector) if (labels[k] !== selector[k]) return false;
  return true;
}

/**
 * The resources a node lacks for the pod: what is requested on it plus what the pod requests
 * must not exceed what it offers (CPU, memory, pod count).
 */
export function insufficientResources(request: Resources, info: NodeInfo): readonly string[] {
  const { allocatable: a, requested: r } = info;
  const pods = r.pods + request.pods > a.pods;
  const cpu = request.milliCpu > 0 && r.milliCpu + request.milliCpu > a.milliCpu;
  const memory = request.memory > 0 && r.memory + request.memory > a.memory;
  if (!pods && !cpu && !memory) return FITS;
  const out: string[] = [];
  if (pods) out.push(REASONS.pods);
  if (cpu) out.push(REASONS.cpu);
  if (memory) out.push(REASONS.memory);
  return out;
}

/** The answer for a node that fits (shared: filtering allocates nothing on the common path). */
const FITS: readonly string[] = Object.freeze([]);

/**
 * Why `pod` cannot go on the node: an empty list if it fits. Filters run in kube's order and
 * the first that fails decides (the resource filter lists every resource that is short):
 * Ready, unschedulable (cordoned), NoSchedule/NoExecute taints, node selector, resources.
 */
export function filterNode(pod: Pod, request: Resources, info: NodeInfo): readonly string[] {
  const node = info.node;
  if (!isReady(node)) return [REASONS.notReady];
  const tolerations = pod.spec?.tolerations ?? [];
  if (node.spec?.unschedulable === true && !tolerates(tolerations, UNSCHEDULABLE_TAINT)) {
    return [REASONS.unschedulable];
  }
  const taints = node.spec?.taints;
  if (taints !== undefined)
    for (const taint of taints) {
      if (taint.effect === "PreferNoSchedule") continue;
      if (!tolerates(tolerations, taint)) {
        return [`node(s) had untolerated taint {${taint.key}: ${taint.value ?? ""}}`];
      }
    }
  if (!matchesNodeSelector(pod, node)) return [REASONS.selector];
  return insufficientResources(request, info);
}

/**
 * The FailedScheduling message: `0/N nodes are available: ` and each reason with its count,
 * sorted as kube sorts them (as text), or `no nodes available to schedule pods`.
 */
export function failureMessage(nodeCount: number, reasons: ReadonlyMap<string, number>): string {
  if (nodeCount === 0) return "no nodes available to schedule pods";
  const parts = [...reasons].map(([reason, n]) => `${n} ${reason}`).sort();
  return `0/${nodeCount} nodes are available: ${parts.join(", ")}.`;
}
