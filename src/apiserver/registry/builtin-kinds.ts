import type { KubeObject } from "../../core/index.ts";
import {
  BUILTIN_RESOURCES,
  type BuiltinResourceFacts,
  configMaps,
  deployments,
  events,
  eventsV1,
  leases,
  namespaces,
  nodes,
  pods,
  type ResourceDefinition,
  resourceDefinition,
  secrets,
  serviceAccounts,
  services,
} from "../../resources/index.ts";
import type { WatchEncoder } from "../watchcache/cache-event.ts";
import { APPS_SCALE, REPLICATION_CONTROLLER_SCALE } from "./scale.ts";
import { ALL_VERBS, type ScaleSubresource } from "./served.ts";
import type { WriteLifecycle } from "./store-options.ts";
import { configMapStrategy, secretStrategy, serviceAccountStrategy } from "./strategies/core.ts";
import {
  eventFromV1,
  eventStrategy,
  eventToV1,
  eventV1Strategy,
  leaseStrategy,
} from "./strategies/events-leases.ts";
import { genericStrategy } from "./strategies/generic.ts";
import {
  hpaAsRead,
  hpaV1FromStorage,
  hpaV1Strategy,
  hpaV2FromBody,
  hpaV2Strategy,
} from "./strategies/hpa.ts";
import { hpaFromV1 } from "./strategies/hpa-conversion.ts";
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
  /** Where `scale`, if among the subresources, reads and writes. */
  readonly scale?: ScaleSubresource;
  /** @default ALL_VERBS */
  readonly verbs?: string[];
  /** @default jsonEncoder */
  readonly encoder?: WatchEncoder;
  readonly fromStorage?: (o: KubeObject) => KubeObject;
  readonly toStorage?: (o: KubeObject) => KubeObject;
  readonly storageApiVersion?: string;
  /** Work its writes do beyond the object (a Service's IPs and ports). */
  readonly lifecycle?: WriteLifecycle;
}

/** Where namespaces are stored. */
export const NAMESPACES_PREFIX = "/registry/namespaces/";

const eventsV1Encoder: WatchEncoder = Object.freeze({
  id: "events.k8s.io/v1",
  encode: (o: KubeObject) => JSON.stringify(eventToV1(o)),
});

/**
 * The built-in kinds a server serves from the start, with that server's claims of Services'
 * IPs and ports. (The CRD resource is installed by the CRD controller, which owns its strategy.)
 */
export function builtinSpecs(serviceClaims: WriteLifecycle): BuiltinSpec[] {
  const specific = specificSpecs(serviceClaims);
  return [...specific, ...genericSpecs(specific)];
}

/**
 * Resources kube serves without storing them (reviews answered at once, a pod's binding as a
 * collection, computed component statuses): they need handlers of their own, not a store.
 */
const NOT_STORED = new Set([
  "/bindings",
  "/componentstatuses",
  "authentication.k8s.io/selfsubjectreviews",
  "authentication.k8s.io/tokenreviews",
  "authorization.k8s.io/localsubjectaccessreviews",
  "authorization.k8s.io/selfsubjectaccessreviews",
  "authorization.k8s.io/selfsubjectrulesreviews",
  "authorization.k8s.io/subjectaccessreviews",
]);

/** The stored kinds with a `scale` subresource besides Deployments, as kube serves them. */
const SCALED: ReadonlyMap<string, ScaleSubresource> = new Map([
  ["apps/replicasets", APPS_SCALE],
  ["apps/statefulsets", APPS_SCALE],
  ["/replicationcontrollers", REPLICATION_CONTROLLER_SCALE],
]);

/**
 * Every other resource kube-apiserver 1.36 serves by default, on the generic strategy, stored
 * under `/registry/<group>/<plural>/`.
 */
function genericSpecs(specific: readonly BuiltinSpec[]): BuiltinSpec[] {
  const served = new Set(specific.map((s) => `${s.def.group}/${s.def.version}/${s.def.plural}`));
  const out: BuiltinSpec[] = [];
  for (const facts of BUILTIN_RESOURCES) {
    if (served.has(`${facts.group}/${facts.version}/${facts.plural}`)) continue;
    if (NOT_STORED.has(`${facts.group}/${facts.plural}`)) continue;
    const strategy = genericStrategy(facts);
    const scale = SCALED.get(`${facts.group}/${facts.plural}`);
    out.push({
      def: definitionOf(facts),
      strategy,
      prefix: `/registry/${facts.group === "" ? "" : `${facts.group}/`}${facts.plural}/`,
      subresources: [
        ...(strategy.statusSubresource ? ["status"] : []),
        ...(scale ? ["scale"] : []),
        ...facts.subresources.filter((s) => s.name === "approval").map((s) => s.name),
      ],
      ...(scale ? { scale } : {}),
      verbs: [...facts.verbs],
    });
  }
  return out;
}

/** The definition of a built-in resource from its facts. */
function definitionOf(facts: BuiltinResourceFacts): ResourceDefinition {
  return resourceDefinition({
    group: facts.group,
    version: facts.version,
    kind: facts.kind,
    plural: facts.plural,
    scope: facts.namespaced ? "Namespaced" : "Cluster",
    shortNames: facts.shortNames,
    categories: facts.categories,
  });
}

/** The facts of the built-in resource `plural` of `group`/`version`. */
function factsOf(group: string, version: string, plural: string): BuiltinResourceFacts {
  const facts = BUILTIN_RESOURCES.find(
    (f) => f.group === group && f.version === version && f.plural === plural,
  );
  if (facts === undefined) throw new Error(`no built-in resource ${group}/${version} ${plural}`);
  return facts;
}

/** An encoder that writes each stored object as `convert` serves it. */
function convertingEncoder(id: string, convert: (o: KubeObject) => KubeObject): WatchEncoder {
  return Object.freeze({ id, encode: (o: KubeObject) => JSON.stringify(convert(o)) });
}

/**
 * HorizontalPodAutoscalers, stored as autoscaling/v2 and served as v2 and v1 (converted), each
 * read with v2's defaults as kube reads them from etcd.
 */
function hpaSpecs(): BuiltinSpec[] {
  const prefix = "/registry/horizontalpodautoscalers/";
  const v2 = factsOf("autoscaling", "v2", "horizontalpodautoscalers");
  const v1 = factsOf("autoscaling", "v1", "horizontalpodautoscalers");
  return [
    {
      def: definitionOf(v2),
      strategy: hpaV2Strategy,
      prefix,
      subresources: ["status"],
      verbs: [...v2.verbs],
      encoder: convertingEncoder("autoscaling/v2:hpa", hpaAsRead),
      fromStorage: hpaAsRead,
      toStorage: hpaV2FromBody,
    },
    {
      def: definitionOf(v1),
      strategy: hpaV1Strategy,
      prefix,
      subresources: ["status"],
      verbs: [...v1.verbs],
      encoder: convertingEncoder("autoscaling/v1:hpa", hpaV1FromStorage),
      fromStorage: hpaV1FromStorage,
      toStorage: hpaFromV1,
      storageApiVersion: "autoscaling/v2",
    },
  ];
}

function specificSpecs(serviceClaims: WriteLifecycle): BuiltinSpec[] {
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
      strategy: serviceStrategy,
      prefix: "/registry/services/specs/",
      lifecycle: serviceClaims,
      subresources: ["status"],
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
      subresources: ["status", "binding", "ephemeralcontainers", "resize"],
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
      subresources: ["status", "scale"],
      scale: APPS_SCALE,
    },
    ...hpaSpecs(),
  ];
}
