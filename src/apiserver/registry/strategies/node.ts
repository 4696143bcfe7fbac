import type { KubeObject, StatusCause } from "../../../core/index.ts";
import { field } from "../field-errors.ts";
import type { Strategy } from "../strategy.ts";
import { NODE_COLUMNS } from "./columns/core.ts";
import { checkQuantities } from "./quantity.ts";
import { arrayAt, child, type Json, rec, recordAt, setDefault } from "./util.ts";

const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

/** The strings of a node's `status.nodeInfo`, which Go writes even when empty (no omitempty). */
const NODE_INFO_STRINGS = [
  "machineID",
  "systemUUID",
  "bootID",
  "kernelVersion",
  "osImage",
  "containerRuntimeVersion",
  "kubeletVersion",
  "kubeProxyVersion",
  "operatingSystem",
  "architecture",
];

/**
 * kube's `SetDefaults_NodeStatus` (allocatable is the capacity unless given), and the status
 * fields Go writes even when empty: `daemonEndpoints.kubeletEndpoint` and `nodeInfo` are structs
 * held by value whose port and strings have no omitempty, so every node kube returns has them.
 * Set on every decoded body: a stored node has them too, so a write leaving them as they are
 * changes nothing, and nobody owns them unless they write another value, as on kube.
 */
function defaultStatus(object: KubeObject): void {
  const status = child(rec(object), "status");
  const capacity = recordAt(status, "capacity");
  if (capacity !== undefined && status.allocatable === undefined) {
    status.allocatable = { ...capacity };
  }
  setDefault(child(child(status, "daemonEndpoints"), "kubeletEndpoint"), "Port", 0);
  const info = child(status, "nodeInfo");
  for (const key of NODE_INFO_STRINGS) setDefault(info, key, "");
}

const NOT_READY_TAINT = { key: "node.kubernetes.io/not-ready", effect: "NoSchedule" };

/**
 * kube's TaintNodesByCondition admission: a created node gets the not-ready NoSchedule taint
 * unless it has one with that key and effect already (whatever its value), appended after its
 * own — so pods are not scheduled on it before it is ready; the node lifecycle controller
 * removes it then. On create only, after field management: nobody owns it.
 */
function taintNotReady(object: KubeObject): void {
  const spec = child(rec(object), "spec");
  const taints = arrayAt(spec, "taints") ?? [];
  const tainted = taints.some((raw) => {
    const t = (raw ?? {}) as Json;
    return t.key === NOT_READY_TAINT.key && t.effect === NOT_READY_TAINT.effect;
  });
  if (!tainted) spec.taints = [...taints, { ...NOT_READY_TAINT }];
}

/** The checks of kube's `ValidateNode` that a scheduler relies on: quantities and taints. */
function validateNode(object: KubeObject): StatusCause[] {
  const o = rec(object);
  const status = recordAt(o, "status") ?? {};
  const causes = [
    ...checkQuantities(status, "capacity", "status", "Node"),
    ...checkQuantities(status, "allocatable", "status", "Node"),
  ];
  const spec = recordAt(o, "spec") ?? {};
  if (spec.unschedulable !== undefined && typeof spec.unschedulable !== "boolean") {
    causes.push(field.typeInvalid("spec.unschedulable", spec.unschedulable, "must be a boolean"));
  }
  (arrayAt(spec, "taints") ?? []).forEach((raw, i) => {
    const t = (raw ?? {}) as Json;
    if (typeof t.key !== "string" || t.key === "")
      causes.push(field.required(`spec.taints[${i}].key`));
    if (!TAINT_EFFECTS.includes(String(t.effect)))
      causes.push(field.notSupported(`spec.taints[${i}].effect`, t.effect, TAINT_EFFECTS));
  });
  return causes;
}

/**
 * Nodes (kube's node strategy): cluster-scoped; status may be set on create (a kubelet
 * registers its node with its capacity) and afterwards only through `/status`; allocatable
 * defaults to the capacity; a created node is tainted not-ready. Columns as `kubectl get nodes [-o wide]` prints them.
 */
export const nodeStrategy: Strategy = {
  statusSubresource: true,
  defaults: defaultStatus,
  prepareForCreate: taintNotReady,
  validate: validateNode,
  fieldSelectors: ["spec.unschedulable"],
  fields: (o) => ({
    "spec.unschedulable": String(recordAt(rec(o), "spec")?.unschedulable === true),
  }),
  columns: NODE_COLUMNS,
};
