import type { KubeObject } from "../../../../core/index.ts";
import type { TableColumn, TableRowCondition } from "../../strategy.ts";
import type { Json } from "../util.ts";
import { AGE, at, condition, humanDuration, int, items, NAME, str, timeOf } from "./common.ts";

/** What a pod's READY, STATUS and RESTARTS cells say. */
interface PodSummary {
  ready: string;
  status: string;
  restarts: string;
}

/** The latest `lastState.terminated.finishedAt` of a container status, as ms (0 for none). */
function lastTermination(status: Json): number {
  return timeOf(at(status, "lastState.terminated.finishedAt")) ?? 0;
}

/** kube's reason for a terminated container: its reason, else `Signal:n`, else `ExitCode:n`. */
function terminatedReason(terminated: Json, prefix: string): string {
  if (typeof terminated.reason === "string" && terminated.reason !== "")
    return prefix + terminated.reason;
  if (typeof terminated.signal === "number" && terminated.signal !== 0)
    return `${prefix}Signal:${terminated.signal}`;
  return `${prefix}ExitCode:${typeof terminated.exitCode === "number" ? terminated.exitCode : 0}`;
}

/**
 * A pod's summary as kube's pod printer makes it: the phase (or status reason) overridden by
 * scheduling gates, the first init container still running or failed (`Init:1/2`,
 * `Init:CrashLoopBackOff`), then the containers' waiting or terminated reasons, `Terminating` for
 * a deleting pod; ready containers out of all (restartable init containers, sidecars, count);
 * restarts with how long ago the last one ended.
 */
export function podSummary(pod: KubeObject, now: number): PodSummary {
  const initSpecs = items(pod, "spec.initContainers");
  const sidecars = new Set(
    initSpecs.filter((c) => c.restartPolicy === "Always").map((c) => String(c.name)),
  );
  const total = items(pod, "spec.containers").length + sidecars.size;
  const phase = str(pod, "status.phase");
  let reason = str(pod, "status.reason", phase);
  if (
    items(pod, "status.conditions").some(
      (c) => c.type === "PodScheduled" && c.reason === "SchedulingGated",
    )
  ) {
    reason = "SchedulingGated";
  }
  let ready = 0;
  let restarts = 0;
  let lastRestart = 0;
  let sidecarRestarts = 0;
  let lastSidecarRestart = 0;
  let initializing = false;
  const initStatuses = items(pod, "status.initContainerStatuses");
  for (const [i, s] of initStatuses.entries()) {
    restarts += int(s, "restartCount");
    lastRestart = Math.max(lastRestart, lastTermination(s));
    const sidecar = sidecars.has(String(s.name));
    if (sidecar) {
      sidecarRestarts += int(s, "restartCount");
      lastSidecarRestart = Math.max(lastSidecarRestart, lastTermination(s));
    }
    const terminated = at(s, "state.terminated") as Json | undefined;
    const waitingReason = str(s, "state.waiting.reason");
    if (terminated !== undefined && int(terminated, "exitCode") === 0) continue;
    if (sidecar && s.started === true) {
      if (s.ready === true) ready++;
      continue;
    }
    if (terminated !== undefined) reason = terminatedReason(terminated, "Init:");
    else if (waitingReason !== "" && waitingReason !== "PodInitializing")
      reason = `Init:${waitingReason}`;
    else reason = `Init:${i}/${initSpecs.length}`;
    initializing = true;
    break;
  }
  if (!initializing || condition(pod, "Initialized")?.status === "True") {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let running = false;
    let errorReason = "";
    const statuses = items(pod, "status.containerStatuses");
    for (const s of [...statuses].reverse()) {
      restarts += int(s, "restartCount");
      lastRestart = Math.max(lastRestart, lastTermination(s));
      const terminated = at(s, "state.terminated") as Json | undefined;
      const waitingReason = str(s, "state.waiting.reason");
      if (waitingReason !== "") {
        reason = waitingReason;
      } else if (terminated !== undefined) {
        reason = terminatedReason(terminated, "");
        if (int(terminated, "exitCode") !== 0) errorReason = reason;
      } else if (s.ready === true && at(s, "state.running") !== undefined) {
        running = true;
        ready++;
      }
    }
    if (reason === "Completed") {
      if (running && condition(pod, "Ready")?.status === "True") reason = "Running";
      else if (errorReason !== "") reason = errorReason;
      else if (running) reason = "NotReady";
    }
  }
  if (pod.metadata?.deletionTimestamp !== undefined) {
    if (str(pod, "status.reason") === "NodeLost") reason = "Unknown";
    else if (phase !== "Succeeded" && phase !== "Failed") reason = "Terminating";
  }
  return {
    ready: `${ready}/${total}`,
    status: reason,
    restarts:
      restarts !== 0 && lastRestart !== 0
        ? `${restarts} (${humanDuration(now - lastRestart)} ago)`
        : String(restarts),
  };
}

/** `true/all` of the readiness gates' conditions, or `<none>`. */
function readinessGates(pod: KubeObject): string {
  const gates = items(pod, "spec.readinessGates");
  if (gates.length === 0) return "<none>";
  const passed = gates.filter(
    (g) => condition(pod, String(g.conditionType))?.status === "True",
  ).length;
  return `${passed}/${gates.length}`;
}

/** `kubectl get pods [-o wide]`. */
export const POD_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "Ready",
    type: "string",
    description: "The aggregate readiness state of this pod for accepting traffic.",
    cell: (o, now) => podSummary(o, now).ready,
  },
  {
    name: "Status",
    type: "string",
    description: "The aggregate status of the containers in this pod.",
    cell: (o, now) => podSummary(o, now).status,
  },
  {
    name: "Restarts",
    type: "string",
    description:
      "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.",
    cell: (o, now) => podSummary(o, now).restarts,
  },
  AGE,
  {
    name: "IP",
    type: "string",
    priority: 1,
    description:
      "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.",
    cell: (o) => str(items(o, "status.podIPs")[0], "ip", "<none>"),
  },
  {
    name: "Node",
    type: "string",
    priority: 1,
    description:
      "NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod to be scheduled on a specific node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename",
    cell: (o) => str(o, "spec.nodeName", "<none>"),
  },
  {
    name: "Nominated Node",
    type: "string",
    priority: 1,
    description:
      "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled.",
    cell: (o) => str(o, "status.nominatedNodeName", "<none>"),
  },
  {
    name: "Readiness Gates",
    type: "string",
    priority: 1,
    description:
      'If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to "True" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates',
    cell: readinessGates,
  },
];

const SUCCEEDED = [
  {
    type: "Completed",
    status: "True",
    reason: "Succeeded",
    message: "The pod has completed successfully.",
  },
];
const FAILED = [
  { type: "Completed", status: "True", reason: "Failed", message: "The pod failed." },
];

/** A finished pod's row is `Completed`, as kube marks it (clients may hide such rows). */
export function podRowConditions(pod: KubeObject): readonly TableRowCondition[] | undefined {
  switch (str(pod, "status.phase")) {
    case "Succeeded":
      return SUCCEEDED;
    case "Failed":
      return FAILED;
    default:
      return undefined;
  }
}
