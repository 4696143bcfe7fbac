import type { KubeObject, StatusCause } from "../../../core/index.ts";
import { field } from "../field-errors.ts";
import type { Strategy } from "../strategy.ts";
import { NODE_COLUMNS } from "./columns/core.ts";
import { checkQuantities } from "./quantity.ts";
import { arrayAt, type Json, rec, recordAt } from "./util.ts";

const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

/** kube's `SetDefaults_NodeStatus`: allocatable is the capacity unless given. */
function defaultStatus(object: KubeObject): void {
  const status = recordAt(rec(object), "status");
  if (status === undefined) return;
  const capacity = recordAt(status, "capacity");
  if (capacity !== undefined && status.allocatable === undefined) {
    status.allocatable = { ...capacity };
  }
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
 * defaults to the capacity. Columns as `kubectl get nodes [-o wide]` prints them.
 */
export const nodeStrategy: Strategy = {
  statusSubresource: true,
  defaults: defaultStatus,
  validate: validateNode,
  fieldSelectors: ["spec.unschedulable"],
  fields: (o) => ({
    "spec.unschedulable": String(recordAt(rec(o), "spec")?.unschedulable === true),
  }),
  columns: NODE_COLUMNS,
};
