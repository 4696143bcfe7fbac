import type { KubeObject, StatusCause } from "../../../core/index.ts";
import { field } from "../field-errors.ts";
import type { Strategy } from "../strategy.ts";
import { checkQuantities } from "./quantity.ts";
import { arrayAt, type Json, rec, recordAt, stringAt } from "./util.ts";

const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"];
const ROLE_PREFIX = "node-role.kubernetes.io/";

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

/** `Ready`, `NotReady` or `Unknown` from the Ready condition, plus `SchedulingDisabled`. */
function nodeStatus(object: KubeObject): string {
  const conditions = arrayAt(recordAt(rec(object), "status") ?? {}, "conditions") ?? [];
  const ready = conditions.find((c) => (c as Json)?.type === "Ready") as Json | undefined;
  const parts = [
    ready?.status === "True" ? "Ready" : ready?.status === "False" ? "NotReady" : "Unknown",
  ];
  if (recordAt(rec(object), "spec")?.unschedulable === true) parts.push("SchedulingDisabled");
  return parts.join(",");
}

/** Roles from `node-role.kubernetes.io/<role>` labels and `kubernetes.io/role`, or `<none>`. */
function nodeRoles(object: KubeObject): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(object.metadata?.labels ?? {})) {
    if (k.startsWith(ROLE_PREFIX) && k.length > ROLE_PREFIX.length)
      roles.add(k.slice(ROLE_PREFIX.length));
    else if (k === "kubernetes.io/role" && v !== "") roles.add(v);
  }
  return roles.size === 0 ? "<none>" : [...roles].sort().join(",");
}

function address(object: KubeObject, type: string): string {
  const addresses = arrayAt(recordAt(rec(object), "status") ?? {}, "addresses") ?? [];
  const found = addresses.find((a) => (a as Json)?.type === type) as Json | undefined;
  return typeof found?.address === "string" ? found.address : "<none>";
}

const nodeInfo = (o: KubeObject, key: string, missing: string) =>
  stringAt(o, `status.nodeInfo.${key}`) || missing;

/**
 * Nodes (kube's node strategy): cluster-scoped; status may be set on create (a kubelet
 * registers its node with its capacity) and afterwards only through `/status`; allocatable
 * defaults to the capacity. Columns as `kubectl get nodes [-o wide]` prints them.
 */
export const nodeStrategy: Strategy = {
  statusSubresource: true,
  prepareForCreate: defaultStatus,
  validate: validateNode,
  fieldSelectors: ["spec.unschedulable"],
  fields: (o) => ({
    "spec.unschedulable": String(recordAt(rec(o), "spec")?.unschedulable === true),
  }),
  columns: [
    { name: "Status", type: "string", description: "The status of the node", cell: nodeStatus },
    { name: "Roles", type: "string", description: "The roles of the node", cell: nodeRoles },
    { name: "Age", type: "date", cell: (o) => o.metadata?.creationTimestamp },
    {
      name: "Version",
      type: "string",
      description: "Kubelet Version reported by the node.",
      cell: (o) => nodeInfo(o, "kubeletVersion", ""),
    },
    {
      name: "Internal-IP",
      type: "string",
      priority: 1,
      description: "List of internal IPs in the node.",
      cell: (o) => address(o, "InternalIP"),
    },
    {
      name: "External-IP",
      type: "string",
      priority: 1,
      description: "List of external IPs in the node.",
      cell: (o) => address(o, "ExternalIP"),
    },
    {
      name: "OS-Image",
      type: "string",
      priority: 1,
      description: "OS image reported by the node.",
      cell: (o) => nodeInfo(o, "osImage", "<unknown>"),
    },
    {
      name: "Kernel-Version",
      type: "string",
      priority: 1,
      description: "Kernel version reported by the node.",
      cell: (o) => nodeInfo(o, "kernelVersion", "<unknown>"),
    },
    {
      name: "Container-Runtime",
      type: "string",
      priority: 1,
      description: "Container runtime version reported by the node.",
      cell: (o) => nodeInfo(o, "containerRuntimeVersion", "<unknown>"),
    },
  ],
};
