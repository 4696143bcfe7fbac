import type { KubeObject } from "../../core/index.ts";
import {
  configMaps,
  deployments,
  events,
  eventsV1,
  leases,
  namespaces,
  nodes,
  pods,
  type ResourceDefinition,
  secrets,
  serviceAccounts,
  services,
} from "../../resources/index.ts";
import type { WatchEncoder } from "../watchcache/cache-event.ts";
import type { ClusterIpAllocator } from "./allocators.ts";
import { ALL_VERBS } from "./served.ts";
import { configMapStrategy, secretStrategy, serviceAccountStrategy } from "./strategies/core.ts";
import {
  eventFromV1,
  eventStrategy,
  eventToV1,
  eventV1Strategy,
  leaseStrategy,
} from "./strategies/events-leases.ts";
import { namespaceStrategy } from "./strategies/namespace.ts";
import { nodeStrategy } from "./strategies/node.ts";
import { serviceStrategy } from "./strategies/service.ts";
import { deploymentStrategy, podStrategy } from "./strategies/workloads.ts";
import type { Strategy } from "./strategy.ts";

/** How one built-in kind is served. */
export interface BuiltinSpec {
  readonly def: ResourceDefinition;
  readonly strategy: Strategy;
  readonly prefix: string;
  /** @default none */
  readonly subresources?: string[];
  /** @default ALL_VERBS */
  readonly verbs?: string[];
  /** @default jsonEncoder */
  readonly encoder?: WatchEncoder;
  readonly fromStorage?: (o: KubeObject) => KubeObject;
  readonly toStorage?: (o: KubeObject) => KubeObject;
  readonly storageApiVersion?: string;
}

/** Where namespaces are stored. */
export const NAMESPACES_PREFIX = "/registry/namespaces/";

const eventsV1Encoder: WatchEncoder = Object.freeze({
  id: "events.k8s.io/v1",
  encode: (o: KubeObject) => JSON.stringify(eventToV1(o)),
});

/**
 * The built-in kinds a server serves from the start, with the allocators of that server. (The
 * CRD resource is installed by the CRD controller, which owns its strategy.)
 */
export function builtinSpecs(allocators: {
  readonly clusterIps: ClusterIpAllocator;
}): BuiltinSpec[] {
  return [
    {
      def: namespaces,
      strategy: namespaceStrategy,
      prefix: NAMESPACES_PREFIX,
      subresources: ["status", "finalize"],
      verbs: ALL_VERBS.filter((v) => v !== "deletecollection"),
    },
    { def: configMaps, strategy: configMapStrategy, prefix: "/registry/configmaps/" },
    { def: secrets, strategy: secretStrategy, prefix: "/registry/secrets/" },
    {
      def: services,
      strategy: serviceStrategy(allocators.clusterIps),
      prefix: "/registry/services/specs/",
      subresources: ["status"],
      verbs: ALL_VERBS.filter((v) => v !== "deletecollection"),
    },
    {
      def: serviceAccounts,
      strategy: serviceAccountStrategy,
      prefix: "/registry/serviceaccounts/",
    },
    {
      def: pods,
      strategy: podStrategy,
      prefix: "/registry/pods/",
      subresources: ["status", "binding"],
    },
    {
      def: nodes,
      strategy: nodeStrategy,
      prefix: "/registry/minions/",
      subresources: ["status"],
    },
    { def: events, strategy: eventStrategy, prefix: "/registry/events/" },
    {
      def: eventsV1,
      strategy: eventV1Strategy,
      prefix: "/registry/events/",
      encoder: eventsV1Encoder,
      fromStorage: eventToV1,
      toStorage: eventFromV1,
      storageApiVersion: "v1",
    },
    { def: leases, strategy: leaseStrategy, prefix: "/registry/leases/" },
    {
      def: deployments,
      strategy: deploymentStrategy,
      prefix: "/registry/deployments/",
      subresources: ["status"],
    },
  ];
}
