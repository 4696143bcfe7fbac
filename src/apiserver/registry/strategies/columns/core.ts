import type { KubeObject } from "../../../../core/index.ts";
import type { TableColumn } from "../../strategy.ts";
import { AGE, at, condition, count, items, NAME, quantity, str } from "./common.ts";

/*
 * The columns of the core kinds that are neither pods, workloads, networking, events nor
 * volumes: config maps, secrets, service accounts, namespaces, resource quotas and nodes.
 */

const ROLE_PREFIX = "node-role.kubernetes.io/";

/**
 * `Ready` or `NotReady` from the Ready condition (`Unknown` without one), then
 * `SchedulingDisabled` for a cordoned node.
 */
function nodeStatus(node: KubeObject): string {
  const ready = condition(node, "Ready");
  const parts = [ready === undefined ? "Unknown" : ready.status === "True" ? "Ready" : "NotReady"];
  if (at(node, "spec.unschedulable") === true) parts.push("SchedulingDisabled");
  return parts.join(",");
}

/** Roles from `node-role.kubernetes.io/<role>` labels and `kubernetes.io/role`, or `<none>`. */
function nodeRoles(node: KubeObject): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(node.metadata?.labels ?? {})) {
    if (k.startsWith(ROLE_PREFIX) && k.length > ROLE_PREFIX.length)
      roles.add(k.slice(ROLE_PREFIX.length));
    else if (k === "kubernetes.io/role" && v !== "") roles.add(v);
  }
  return roles.size === 0 ? "<none>" : [...roles].sort().join(",");
}

/** The first address of a type, or `<none>`. */
function nodeAddress(node: KubeObject, type: string): string {
  const found = items(node, "status.addresses").find((a) => a.type === type);
  return str(found, "address", "<none>");
}

/** The kernel version with the architecture (`6.1.0 (amd64)`), or `<unknown>`. */
function kernelVersion(node: KubeObject): string {
  const version = str(node, "status.nodeInfo.kernelVersion", "<unknown>");
  const arch = str(node, "status.nodeInfo.architecture");
  return arch === "" ? version : `${version} (${arch})`;
}

/**
 * A quota's `resource: used/hard` pairs in resource-name order, the `limits.*` ones in the Limit
 * cell, the others in the Request cell.
 */
function quotaCells(quota: KubeObject): { request: string; limit: string } {
  const hard = (at(quota, "status.hard") ?? {}) as Record<string, unknown>;
  const used = (at(quota, "status.used") ?? {}) as Record<string, unknown>;
  const request: string[] = [];
  const limit: string[] = [];
  for (const name of Object.keys(hard).sort()) {
    const pieces = name.split(".");
    const cell = pieces.length > 1 && pieces[0] === "limits" ? limit : request;
    cell.push(`${name}: ${quantity(used[name])}/${quantity(hard[name])}`);
  }
  return { request: request.join(", "), limit: limit.join(", ") };
}

/** What kube says of a node's addresses, for both address columns. */
const NODE_ADDRESSES =
  "List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP).";

/** `kubectl get configmaps`: the number of keys, binary ones included. */
export const CONFIG_MAP_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "Data",
    type: "string",
    description:
      "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
    cell: (o) => count(o, "data") + count(o, "binaryData"),
  },
  AGE,
];

/** `kubectl get secrets`. */
export const SECRET_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "Type",
    type: "string",
    description:
      "Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types",
    cell: (o) => str(o, "type"),
  },
  {
    name: "Data",
    type: "string",
    description:
      "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4",
    cell: (o) => count(o, "data"),
  },
  AGE,
];

/** `kubectl get serviceaccounts`. */
export const SERVICE_ACCOUNT_COLUMNS: readonly TableColumn[] = [NAME, AGE];

/** `kubectl get namespaces`. */
export const NAMESPACE_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "Status",
    type: "string",
    description: "The status of the namespace",
    cell: (o) => str(o, "status.phase"),
  },
  AGE,
];

/** `kubectl get resourcequotas`: used/hard of each resource, limits apart. */
export const RESOURCE_QUOTA_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "Request",
    type: "string",
    description: "Request represents a minimum amount of cpu/memory that a container may consume.",
    cell: (o) => quotaCells(o).request,
  },
  {
    name: "Limit",
    type: "string",
    description:
      "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.",
    cell: (o) => quotaCells(o).limit,
  },
  AGE,
];

/** `kubectl get nodes [-o wide]`. */
export const NODE_COLUMNS: readonly TableColumn[] = [
  NAME,
  { name: "Status", type: "string", description: "The status of the node", cell: nodeStatus },
  { name: "Roles", type: "string", description: "The roles of the node", cell: nodeRoles },
  AGE,
  {
    name: "Version",
    type: "string",
    description: "Kubelet Version reported by the node.",
    cell: (o) => str(o, "status.nodeInfo.kubeletVersion"),
  },
  {
    name: "Internal-IP",
    type: "string",
    priority: 1,
    description: NODE_ADDRESSES,
    cell: (o) => nodeAddress(o, "InternalIP"),
  },
  {
    name: "External-IP",
    type: "string",
    priority: 1,
    description: NODE_ADDRESSES,
    cell: (o) => nodeAddress(o, "ExternalIP"),
  },
  {
    name: "OS-Image",
    type: "string",
    priority: 1,
    description:
      "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).",
    cell: (o) => str(o, "status.nodeInfo.osImage", "<unknown>"),
  },
  {
    name: "Kernel-Version",
    type: "string",
    priority: 1,
    description: "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
    cell: kernelVersion,
  },
  {
    name: "Container-Runtime",
    type: "string",
    priority: 1,
    description:
      "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).",
    cell: (o) => str(o, "status.nodeInfo.containerRuntimeVersion", "<unknown>"),
  },
];
