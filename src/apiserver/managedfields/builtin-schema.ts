import { BUILTIN_ROOTS, BUILTIN_TYPES } from "../registry/builtin-fields.ts";
import {
  DEDUCED,
  type ListType,
  type MapType,
  mapType,
  SCALAR,
  type TypeNode,
  UNTYPED,
} from "./schema.ts";

/**
 * The server-side apply schema of the built-in kinds: their fields from the models table
 * (`registry/builtin-fields.ts`) plus what kube's OpenAPI says about merging, which that table
 * does not carry — the list types (`+listType`, or `patchStrategy=merge` with a
 * `patchMergeKey`), atomic structs and maps (`+structType=atomic`, `+mapType=atomic`) and the
 * non-pointer structs Go always writes. Lists not named here are atomic; a field the table
 * lists as a scalar may hold a list (atomic) or a map (granular) of scalars.
 */

type Rule =
  | { readonly list: "set" }
  | {
      readonly list: "map";
      readonly keys: readonly string[];
      readonly defaults?: Record<string, unknown>;
    }
  | { readonly map: "atomic" };

const byName: Rule = { list: "map", keys: ["name"] };
const byType: Rule = { list: "map", keys: ["type"] };
const tcp = { protocol: "TCP" };

/** Per model field (`Model.field`), as k8s.io/api 1.32 declares them. */
const RULES: Readonly<Record<string, Rule>> = {
  "V1ObjectMeta.finalizers": { list: "set" },
  "V1ObjectMeta.ownerReferences": { list: "map", keys: ["uid"] },
  "V1ServiceAccount.secrets": byName,
  "V1NamespaceStatus.conditions": byType,
  "V1ServiceSpec.ports": { list: "map", keys: ["port", "protocol"], defaults: tcp },
  "V1ServiceSpec.selector": { map: "atomic" },
  "V1ServiceStatus.conditions": byType,
  "V1PodSpec.volumes": byName,
  "V1PodSpec.initContainers": byName,
  "V1PodSpec.containers": byName,
  "V1PodSpec.ephemeralContainers": byName,
  "V1PodSpec.imagePullSecrets": byName,
  "V1PodSpec.hostAliases": { list: "map", keys: ["ip"] },
  "V1PodSpec.topologySpreadConstraints": {
    list: "map",
    keys: ["topologyKey", "whenUnsatisfiable"],
  },
  "V1PodSpec.schedulingGates": byName,
  "V1PodSpec.resourceClaims": byName,
  "V1PodSpec.nodeSelector": { map: "atomic" },
  "V1ResourceRequirements.claims": byName,
  "V1PodStatus.conditions": byType,
  "V1PodStatus.podIPs": { list: "map", keys: ["ip"] },
  "V1PodStatus.resourceClaimStatuses": byName,
  "V1ContainerStatus.volumeMounts": { list: "map", keys: ["mountPath"] },
  "V1ContainerStatus.allocatedResourcesStatus": byName,
  "V1ResourceStatus.resources": { list: "map", keys: ["resourceID"] },
  "V1DeploymentStatus.conditions": byType,
  "V1NodeSpec.podCIDRs": { list: "set" },
  "V1NodeStatus.conditions": byType,
  "V1NodeStatus.addresses": byType,
  "V1CustomResourceDefinitionStatus.conditions": byType,
};
for (const model of ["V1Container", "V1EphemeralContainer"]) {
  Object.assign(RULES, {
    [`${model}.ports`]: { list: "map", keys: ["containerPort", "protocol"], defaults: tcp },
    [`${model}.env`]: byName,
    [`${model}.volumeMounts`]: { list: "map", keys: ["mountPath"] },
    [`${model}.volumeDevices`]: { list: "map", keys: ["devicePath"] },
  });
}

/** Structs replaced whole (`+structType=atomic`). */
const ATOMIC_MODELS: ReadonlySet<string> = new Set([
  "V1LabelSelector",
  "V1OwnerReference",
  "V1ObjectReference",
  "V1LocalObjectReference",
  "V1TypedLocalObjectReference",
  "V1TypedObjectReference",
  "V1NodeSelector",
  "V1NodeSelectorTerm",
  "V1ConfigMapKeySelector",
  "V1SecretKeySelector",
  "V1ObjectFieldSelector",
  "V1ResourceFieldSelector",
]);

/** Fields Go always writes, with their empty values (see `MapType.implicit`). */
const IMPLICIT: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  V1Namespace: { spec: {}, status: {} },
  V1Service: { spec: {}, status: {} },
  V1ServiceStatus: { loadBalancer: {} },
  V1Pod: { spec: {}, status: {} },
  V1PodSpec: { containers: null },
  V1Container: { resources: {} },
  V1EphemeralContainer: { resources: {} },
  V1ContainerStatus: { state: {}, lastState: {} },
  V1Node: { spec: {}, status: {} },
  V1NodeStatus: { daemonEndpoints: {}, nodeInfo: {} },
  V1NodeDaemonEndpoints: { kubeletEndpoint: {} },
  V1Deployment: { spec: {}, status: {} },
  V1DeploymentSpec: { selector: null, template: {}, strategy: {} },
  V1PodTemplateSpec: { metadata: {}, spec: {} },
  V1Lease: { spec: {} },
  V1CustomResourceDefinition: { spec: {}, status: {} },
  V1CustomResourceDefinitionSpec: { names: {}, versions: null },
  V1CustomResourceDefinitionStatus: { acceptedNames: {}, storedVersions: null },
  CoreV1Event: { involvedObject: {}, source: {} },
};

const models = new Map<string, MapType>();

/** The schema of a model of the table (deduced for one it does not have). */
export function modelType(model: string): TypeNode {
  const cached = models.get(model);
  if (cached !== undefined) return cached;
  if (BUILTIN_TYPES[model] === undefined) return DEDUCED;
  let fields: Map<string, TypeNode> | undefined;
  const lookup = (name: string): TypeNode | undefined => {
    fields ??= parseFields(model);
    return fields.get(name);
  };
  const implicit = IMPLICIT[model];
  const t = mapType(lookup, {
    atomic: ATOMIC_MODELS.has(model),
    ...(implicit ? { implicit: new Map(Object.entries(implicit)) } : {}),
  });
  models.set(model, t);
  return t;
}

/** The schema of a built-in kind (undefined for a kind the table does not have). */
export function builtinType(kind: string): TypeNode | undefined {
  const root = BUILTIN_ROOTS[kind];
  return root === undefined ? undefined : modelType(root);
}

/** The schema of `metadata` (ObjectMeta), which custom resources share. */
export function objectMetaType(): TypeNode {
  return modelType("V1ObjectMeta");
}

function parseFields(model: string): Map<string, TypeNode> {
  const out = new Map<string, TypeNode>();
  for (const entry of (BUILTIN_TYPES[model] ?? "").split(" ")) {
    if (entry === "") continue;
    const colon = entry.indexOf(":");
    const name = colon < 0 ? entry : entry.slice(0, colon);
    const rule = RULES[`${model}.${name}`];
    out.set(name, colon < 0 ? scalarField(rule) : wrapped(entry.slice(colon + 1), rule));
  }
  return out;
}

/** A field the table lists as a scalar (or a list or map of scalars). */
function scalarField(rule: Rule | undefined): TypeNode {
  if (rule === undefined) return DEDUCED;
  if ("map" in rule) return mapType(() => undefined, { elements: UNTYPED, atomic: true });
  return list(SCALAR, rule);
}

function wrapped(type: string, rule: Rule | undefined): TypeNode {
  if (type === "*") return DEDUCED;
  if (type.startsWith("[]")) return list(wrapped(type.slice(2), undefined), rule);
  if (type.startsWith("{}"))
    return mapType(() => undefined, { elements: wrapped(type.slice(2), undefined) });
  return modelType(type);
}

function list(element: TypeNode, rule: Rule | undefined): ListType {
  if (rule !== undefined && "list" in rule) {
    if (rule.list === "set") return { kind: "list", element, listType: "set", keys: [] };
    return {
      kind: "list",
      element,
      listType: "map",
      keys: rule.keys,
      ...(rule.defaults ? { keyDefaults: rule.defaults } : {}),
    };
  }
  return { kind: "list", element, listType: "atomic", keys: [] };
}
