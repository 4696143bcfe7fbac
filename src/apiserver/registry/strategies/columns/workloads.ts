import type { KubeObject } from "../../../../core/index.ts";
import type { TableColumn } from "../../strategy.ts";
import {
  AGE,
  at,
  formatLabels,
  int,
  NAME,
  selectorColumn,
  selectorString,
  templateColumns,
} from "./common.ts";

/*
 * The columns of the kinds that keep pods running from a template: PodTemplates,
 * ReplicationControllers, Deployments, ReplicaSets, StatefulSets and DaemonSets, and the
 * ControllerRevisions the last two keep.
 */

/** What kube says of a Deployment's and a StatefulSet's Ready column. */
const READY_OF_DESIRED = "Number of the pod with ready state";

/** `ready/desired` replicas. */
const readyOfDesired = (o: KubeObject) =>
  `${int(o, "status.readyReplicas")}/${int(o, "spec.replicas")}`;

/**
 * The controller among the owners as kube names it, `kind.group/name` lowercased
 * (`statefulset.apps/web`), or `<none>`.
 */
function controllerOf(object: KubeObject): string {
  const owner = object.metadata?.ownerReferences?.find((r) => r.controller === true);
  if (owner === undefined) return "<none>";
  const apiVersion = owner.apiVersion ?? "";
  const group = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
  const kind = owner.kind ?? "";
  if (group === "" && kind === "") return owner.name ?? "";
  return `${(group === "" ? kind : `${kind}.${group}`).toLowerCase()}/${owner.name ?? ""}`;
}

/** `kubectl get podtemplates`. */
export const POD_TEMPLATE_COLUMNS: readonly TableColumn[] = [
  NAME,
  ...templateColumns("template.spec", 0),
  {
    name: "Pod Labels",
    type: "string",
    description: "The labels for the pod template.",
    cell: (o) => formatLabels(at(o, "template.metadata.labels")),
  },
];

/** `kubectl get replicationcontrollers [-o wide]`. */
export const REPLICATION_CONTROLLER_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "Desired",
    type: "integer",
    description:
      "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller",
    cell: (o) => int(o, "spec.replicas"),
  },
  {
    name: "Current",
    type: "integer",
    description:
      "Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller",
    cell: (o) => int(o, "status.replicas"),
  },
  {
    name: "Ready",
    type: "integer",
    description: "The number of ready replicas for this replication controller.",
    cell: (o) => int(o, "status.readyReplicas"),
  },
  AGE,
  ...templateColumns("spec.template.spec"),
  selectorColumn(
    "spec.selector",
    "Selector is a label query over pods that should match the Replicas count. If Selector is empty, it is defaulted to the labels present on the Pod template. Label keys and values that must match in order to be controlled by this replication controller, if empty defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
    formatLabels,
  ),
];

/** `kubectl get deployments [-o wide]`. */
export const DEPLOYMENT_COLUMNS: readonly TableColumn[] = [
  NAME,
  { name: "Ready", type: "string", description: READY_OF_DESIRED, cell: readyOfDesired },
  {
    name: "Up-to-date",
    type: "string",
    description:
      "Total number of non-terminating pods targeted by this deployment that have the desired template spec.",
    cell: (o) => int(o, "status.updatedReplicas"),
  },
  {
    name: "Available",
    type: "string",
    description:
      "Total number of available non-terminating pods (ready for at least minReadySeconds) targeted by this deployment.",
    cell: (o) => int(o, "status.availableReplicas"),
  },
  AGE,
  ...templateColumns("spec.template.spec"),
  selectorColumn(
    "spec.selector",
    "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment. It must match the pod template's labels.",
    (s) => selectorString(s) ?? "<invalid>",
  ),
];

/** `kubectl get replicasets [-o wide]`. */
export const REPLICA_SET_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "Desired",
    type: "integer",
    description:
      "Replicas is the number of desired pods. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicaset",
    cell: (o) => int(o, "spec.replicas"),
  },
  {
    name: "Current",
    type: "integer",
    description:
      "Replicas is the most recently observed number of non-terminating pods. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicaset",
    cell: (o) => int(o, "status.replicas"),
  },
  {
    name: "Ready",
    type: "integer",
    description:
      "The number of non-terminating pods targeted by this ReplicaSet with a Ready Condition.",
    cell: (o) => int(o, "status.readyReplicas"),
  },
  AGE,
  ...templateColumns("spec.template.spec"),
  selectorColumn(
    "spec.selector",
    "Selector is a label query over pods that should match the replica count. Label keys and values that must match in order to be controlled by this replica set. It must match the pod template's labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
  ),
];

/** `kubectl get statefulsets [-o wide]`. */
export const STATEFUL_SET_COLUMNS: readonly TableColumn[] = [
  NAME,
  { name: "Ready", type: "string", description: READY_OF_DESIRED, cell: readyOfDesired },
  AGE,
  ...templateColumns("spec.template.spec"),
];

/** `kubectl get daemonsets [-o wide]`. */
export const DAEMON_SET_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "Desired",
    type: "integer",
    description:
      "The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/",
    cell: (o) => int(o, "status.desiredNumberScheduled"),
  },
  {
    name: "Current",
    type: "integer",
    description:
      "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/",
    cell: (o) => int(o, "status.currentNumberScheduled"),
  },
  {
    name: "Ready",
    type: "integer",
    description:
      "numberReady is the number of nodes that should be running the daemon pod and have one or more of the daemon pod running with a Ready Condition.",
    cell: (o) => int(o, "status.numberReady"),
  },
  {
    name: "Up-to-date",
    type: "integer",
    description: "The total number of nodes that are running updated daemon pod",
    cell: (o) => int(o, "status.updatedNumberScheduled"),
  },
  {
    name: "Available",
    type: "integer",
    description:
      "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)",
    cell: (o) => int(o, "status.numberAvailable"),
  },
  {
    name: "Node Selector",
    type: "string",
    description:
      "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node. More info: https://kubernetes.io/docs/concepts/configuration/assign-pod-node/",
    cell: (o) => formatLabels(at(o, "spec.template.spec.nodeSelector")),
  },
  AGE,
  ...templateColumns("spec.template.spec"),
  selectorColumn(
    "spec.selector",
    "A label query over pods that are managed by the daemon set. Must match in order to be controlled. It must match the pod template's labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
  ),
];

/** `kubectl get controllerrevisions`: the owner as `kind.group/name`. */
export const CONTROLLER_REVISION_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "Controller",
    type: "string",
    description: "Controller of the object",
    cell: controllerOf,
  },
  {
    name: "Revision",
    type: "string",
    description: "Revision indicates the revision of the state represented by Data.",
    cell: (o) => int(o, "revision"),
  },
  AGE,
];
