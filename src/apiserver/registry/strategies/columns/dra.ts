import type { KubeObject } from "../../../../core/index.ts";
import type { TableColumn } from "../../strategy.ts";
import { AGE, at, count, NAME, str } from "./common.ts";

/* The columns of dynamic resource allocation (resource.k8s.io). */

/** `deleted`, then `pending`, or `allocated` and `reserved` once reserved for a consumer. */
function resourceClaimState(claim: KubeObject): string {
  const states: string[] = [];
  const deleting = claim.metadata?.deletionTimestamp !== undefined;
  if (deleting) states.push("deleted");
  if (at(claim, "status.allocation") === undefined) {
    if (!deleting) states.push("pending");
  } else {
    states.push("allocated");
    if (count(claim, "status.reservedFor") > 0) states.push("reserved");
  }
  return states.join(",");
}

/** `kubectl get deviceclasses`. */
export const DEVICE_CLASS_COLUMNS: readonly TableColumn[] = [NAME, AGE];

/** `kubectl get resourceclaims`. */
export const RESOURCE_CLAIM_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "State",
    type: "string",
    description: "A summary of the current state (allocated, pending, reserved, etc.).",
    cell: resourceClaimState,
  },
  AGE,
];

/** `kubectl get resourceclaimtemplates`. */
export const RESOURCE_CLAIM_TEMPLATE_COLUMNS: readonly TableColumn[] = [NAME, AGE];

/** `kubectl get resourceslices`. */
export const RESOURCE_SLICE_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "Node",
    type: "string",
    description:
      "NodeName identifies the node which provides the resources in this pool. A field selector can be used to list only ResourceSlice objects belonging to a certain node.\n\nThis field can be used to limit access from nodes to ResourceSlices with the same node name. It also indicates to autoscalers that adding new nodes of the same type as some old node might also make new resources available.\n\nExactly one of NodeName, NodeSelector, AllNodes, and PerDeviceNodeSelection must be set. This field is immutable.",
    cell: (o) => str(o, "spec.nodeName"),
  },
  {
    name: "Driver",
    type: "string",
    description:
      "Driver identifies the DRA driver providing the capacity information. A field selector can be used to list only ResourceSlice objects with a certain driver name.\n\nMust be a DNS subdomain and should end with a DNS domain owned by the vendor of the driver. It should use only lower case characters. This field is immutable.",
    cell: (o) => str(o, "spec.driver"),
  },
  {
    name: "Pool",
    type: "string",
    description:
      "Name is used to identify the pool. For node-local devices, this is often the node name, but this is not required.\n\nIt must not be longer than 253 characters and must consist of one or more DNS sub-domains separated by slashes. This field is immutable.",
    cell: (o) => str(o, "spec.pool.name"),
  },
  AGE,
];
