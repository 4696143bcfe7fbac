import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { Lease } from "kubernetes-types/coordination/v1.js";
import type {
  ConfigMap,
  Event,
  Namespace,
  Node,
  Pod,
  Secret,
  Service,
  ServiceAccount,
} from "kubernetes-types/core/v1.js";
import type { Event as EventsV1Event } from "kubernetes-types/events/v1.js";
import type { CustomResourceDefinition } from "./crd-type.ts";
import { type ResourceDefinition, resourceDefinition } from "./resource-definition.ts";

export type { Deployment } from "kubernetes-types/apps/v1.js";
export type { Lease } from "kubernetes-types/coordination/v1.js";
export type {
  ConfigMap,
  Event,
  Namespace,
  Node,
  Pod,
  Secret,
  Service,
  ServiceAccount,
} from "kubernetes-types/core/v1.js";
export type { Event as EventsV1Event } from "kubernetes-types/events/v1.js";

/** core/v1 Namespace (cluster-scoped). */
export const namespaces: ResourceDefinition<Namespace> = resourceDefinition({
  group: "",
  version: "v1",
  kind: "Namespace",
  plural: "namespaces",
  scope: "Cluster",
  shortNames: ["ns"],
});

/** core/v1 ConfigMap. */
export const configMaps: ResourceDefinition<ConfigMap> = resourceDefinition({
  group: "",
  version: "v1",
  kind: "ConfigMap",
  plural: "configmaps",
  shortNames: ["cm"],
});

/** core/v1 Secret. */
export const secrets: ResourceDefinition<Secret> = resourceDefinition({
  group: "",
  version: "v1",
  kind: "Secret",
  plural: "secrets",
});

/** core/v1 Service. */
export const services: ResourceDefinition<Service> = resourceDefinition({
  group: "",
  version: "v1",
  kind: "Service",
  plural: "services",
  shortNames: ["svc"],
  categories: ["all"],
});

/** core/v1 ServiceAccount. */
export const serviceAccounts: ResourceDefinition<ServiceAccount> = resourceDefinition({
  group: "",
  version: "v1",
  kind: "ServiceAccount",
  plural: "serviceaccounts",
  shortNames: ["sa"],
});

/** core/v1 Pod. */
export const pods: ResourceDefinition<Pod> = resourceDefinition({
  group: "",
  version: "v1",
  kind: "Pod",
  plural: "pods",
  shortNames: ["po"],
  categories: ["all"],
});

/**
 * core/v1 Node (cluster-scoped): a machine pods are bound to, with its capacity, allocatable
 * resources and conditions in `status`. The embedded server stores nodes; no kubelet runs them.
 */
export const nodes: ResourceDefinition<Node> = resourceDefinition({
  group: "",
  version: "v1",
  kind: "Node",
  plural: "nodes",
  scope: "Cluster",
  shortNames: ["no"],
});

/** core/v1 Event (the legacy event type that client-go's `tools/record` writes). */
export const events: ResourceDefinition<Event> = resourceDefinition({
  group: "",
  version: "v1",
  kind: "Event",
  plural: "events",
  shortNames: ["ev"],
});

/** events.k8s.io/v1 Event (the same objects as core/v1 events, with newer field names). */
export const eventsV1: ResourceDefinition<EventsV1Event> = resourceDefinition({
  group: "events.k8s.io",
  version: "v1",
  kind: "Event",
  plural: "events",
  shortNames: ["ev"],
});

/** coordination.k8s.io/v1 Lease (leader election). */
export const leases: ResourceDefinition<Lease> = resourceDefinition({
  group: "coordination.k8s.io",
  version: "v1",
  kind: "Lease",
  plural: "leases",
});

/** apps/v1 Deployment. */
export const deployments: ResourceDefinition<Deployment> = resourceDefinition({
  group: "apps",
  version: "v1",
  kind: "Deployment",
  plural: "deployments",
  shortNames: ["deploy"],
  categories: ["all"],
});

/** apiextensions.k8s.io/v1 CustomResourceDefinition (cluster-scoped). */
export const customResourceDefinitions: ResourceDefinition<CustomResourceDefinition> =
  resourceDefinition({
    group: "apiextensions.k8s.io",
    version: "v1",
    kind: "CustomResourceDefinition",
    plural: "customresourcedefinitions",
    scope: "Cluster",
    shortNames: ["crd", "crds"],
    categories: ["api-extensions"],
  });

/** Every built-in kind the embedded API server serves. */
export const builtinResources: readonly ResourceDefinition[] = Object.freeze([
  namespaces,
  configMaps,
  secrets,
  services,
  serviceAccounts,
  pods,
  nodes,
  events,
  eventsV1,
  leases,
  deployments,
  customResourceDefinitions,
]);
