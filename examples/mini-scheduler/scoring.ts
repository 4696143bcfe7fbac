/**
 * Scoring and host selection: of the nodes that pass the filters, the least allocated wins
 * (kube-scheduler's `NodeResourcesFit` with the `LeastAllocated` strategy, CPU and memory
 * weighted equally), which spreads pods out. Pure functions.
 */

import type { Pod } from "kontroller/resources";
import { filterNode, type NodeInfo } from "./filters.ts";
import type { PodDemand } from "./resources.ts";

/** The highest score a node can get. */
export const MAX_SCORE = 100;

/** `(free after placing) · 100 / allocatable` for one resource, integer; 0 when it does not fit. */
function leastAllocated(requested: number, allocatable: number): number {
  if (allocatable <= 0 || requested > allocatable) return 0;
  return Math.floor(((allocatable - requested) * MAX_SCORE) / allocatable);
}

/**
 * The node's score for the pod, 0–100: the mean of the CPU and memory shares left free once the
 * pod is placed, counting kube's non-zero requests (so pods with no requests spread too).
 */
export function score(demand: PodDemand, info: NodeInfo): number {
  const cpu = leastAllocated(
    info.nonZeroRequested.milliCpu + demand.nonZero.milliCpu,
    info.allocatable.milliCpu,
  );
  const memory = leastAllocated(
    info.nonZeroRequested.memory + demand.nonZero.memory,
    info.allocatable.memory,
  );
  return Math.floor((cpu + memory) / 2);
}

/** The outcome of one scheduling attempt. */
export type Placement =
  | { readonly fits: true; readonly node: NodeInfo; readonly score: number }
  | {
      readonly fits: false;
      /** How many nodes failed for each reason. */
      readonly reasons: ReadonlyMap<string, number>;
    };

/**
 * Filters every node, scores those that pass, and picks the best: the highest score, and among
 * equal scores the first name in alphabetical order (kube picks one at random; a fixed order
 * makes placements reproducible). One pass over the nodes, no sorting.
 */
export function selectHost(pod: Pod, demand: PodDemand, nodes: Iterable<NodeInfo>): Placement {
  let best: NodeInfo | undefined;
  let bestScore = -1;
  const reasons = new Map<string, number>();
  for (const info of nodes) {
    const failed = filterNode(pod, demand.requests, info);
    if (failed.length > 0) {
      for (const r of failed) reasons.set(r, (reasons.get(r) ?? 0) + 1);
      continue;
    }
    const s = score(demand, info);
    if (s > bestScore || (s === bestScore && best !== undefined && info.name < best.name)) {
      best = info;
      bestScore = s;
    }
  }
  return best === undefined
    ? { fits: false, reasons }
    : { fits: true, node: best, score: bestScore };
}
