/**
 * kontroller/controlplane — the controllers that complete an API server, as
 * kube-controller-manager runs them: the garbage collector (owner references, background,
 * foreground and orphan deletion), the namespace controller (emptying and finalizing
 * Terminating namespaces), the volume protection controllers (releasing deleted claims and
 * volumes once unused) and the clusterrole-aggregation controller (the rules of `admin`, `edit`,
 * `view` and any ClusterRole with an aggregationRule). Built with kontroller/controller; they talk to any server over the
 * wire.
 */
export { AGGREGATION_FIELD_MANAGER } from "./clusterrole-aggregation.ts";
export { ControlPlane, startControlPlane } from "./control-plane.ts";
export type { ControlPlaneOptions } from "./control-plane-options.ts";
export {
  CONTENT_FAILURE,
  CONTENT_REMAINING,
  DISCOVERY_FAILURE,
  FINALIZERS_REMAINING,
  GROUP_VERSION_PARSING_FAILURE,
  type NamespaceCondition,
} from "./namespace-conditions.ts";
export { KUBERNETES_FINALIZER } from "./namespace-lifecycle.ts";
export {
  FOREGROUND_FINALIZER,
  type GraphChanges,
  type GraphNode,
  type InvalidReference,
  type ObjectIdentity,
  ORPHAN_FINALIZER,
  OwnerGraph,
} from "./owner-graph.ts";
export { DEFAULT_IGNORED_RESOURCES, type GroupResourceName } from "./resource-mapper.ts";
