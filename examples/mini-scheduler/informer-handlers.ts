/**
 * What the scheduler does with informer events: pending pods of ours enter the scheduling queue;
 * bound pods update the node usage (and end assumptions); changes that may make room — a node
 * added or changed, a bound pod deleted or finished — move unschedulable pods back to active.
 */
import type { EventHandler } from "kontroller/cache";
import { DeletedFinalStateUnknown } from "kontroller/core";
import type { Node, Pod } from "kontroller/resources";
import { isReady } from "./filters.ts";
import { podKey, type SchedulerCache } from "./scheduler-cache.ts";
import type { SchedulingQueue } from "./scheduling-queue.ts";

/** What the handlers act on. */
export interface HandlerDeps {
  readonly cache: SchedulerCache;
  readonly queue: SchedulingQueue;
  readonly schedulerName: string;
  /** Called after every handled event (the scheduler checks whether it is idle). */
  readonly changed: () => void;
}

/** A pod's scheduling priority: `spec.priority` if it is an integer, else 0. */
export function priorityOf(pod: Pod): number {
  const p = pod.spec?.priority;
  return typeof p === "number" && Number.isSafeInteger(p) ? p : 0;
}

/** True for a pod this scheduler must place: ours, not bound, not being deleted. */
export function isPendingOurs(pod: Pod, schedulerName: string): boolean {
  return (
    !pod.spec?.nodeName &&
    (pod.spec?.schedulerName ?? "default-scheduler") === schedulerName &&
    !pod.metadata?.deletionTimestamp
  );
}

function isTerminated(pod: Pod): boolean {
  return pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed";
}

/** The pod informer's handler. */
export function podHandler(deps: HandlerDeps): EventHandler<Pod> {
  const { cache, queue, schedulerName } = deps;
  return {
    onAdd(pod) {
      const node = pod.spec?.nodeName;
      if (node) {
        cache.podChanged(node);
        cache.observed(pod, false);
        queue.remove(podKey(pod));
      } else if (isPendingOurs(pod, schedulerName)) {
        queue.add(podKey(pod), priorityOf(pod));
      }
      deps.changed();
    },
    onUpdate(old, pod) {
      const key = podKey(pod);
      const was = old.spec?.nodeName;
      const node = pod.spec?.nodeName;
      if (was && was !== node) cache.podChanged(was);
      if (node) {
        cache.podChanged(node);
        cache.observed(pod, false);
        if (!was) queue.remove(key);
        if (isTerminated(pod) && !isTerminated(old)) queue.moveAllToActive();
      } else if (old.metadata?.uid !== pod.metadata?.uid) {
        // Deleted and created again while the watch was down: a new pod to schedule.
        cache.observed(pod, false);
        if (isPendingOurs(pod, schedulerName)) queue.add(key, priorityOf(pod));
      }
      deps.changed();
    },
    onDelete(obj) {
      const pod = obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
      const key = obj instanceof DeletedFinalStateUnknown ? obj.key : podKey(pod);
      const node = pod.spec?.nodeName;
      const held = Boolean(node) || cache.isAssumed(key);
      if (node) cache.podChanged(node);
      cache.observed(pod, true);
      queue.remove(key);
      if (held) queue.moveAllToActive();
      deps.changed();
    },
  };
}

/** The node informer's handler. */
export function nodeHandler(deps: HandlerDeps): EventHandler<Node> {
  return {
    onAdd() {
      deps.queue.moveAllToActive();
      deps.changed();
    },
    onUpdate(old, node) {
      if (mayMakeRoom(old, node)) deps.queue.moveAllToActive();
      deps.changed();
    },
    onDelete() {
      deps.changed();
    },
  };
}

/**
 * True if a node change can let a pod fit that did not: its allocatable, labels, taints,
 * cordon or readiness changed (not a heartbeat in its conditions).
 */
export function mayMakeRoom(old: Node, node: Node): boolean {
  const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
  return (
    !same(
      old.status?.allocatable ?? old.status?.capacity,
      node.status?.allocatable ?? node.status?.capacity,
    ) ||
    !same(old.metadata?.labels, node.metadata?.labels) ||
    !same(old.spec?.taints, node.spec?.taints) ||
    (old.spec?.unschedulable === true) !== (node.spec?.unschedulable === true) ||
    isReady(old) !== isReady(node)
  );
}
