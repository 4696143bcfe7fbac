/**
 * The list and patch markers of the built-in types' fields (Go `+listType`, `+listMapKeys`,
 * `patchStrategy`, `patchMergeKey`), which neither @kubernetes/client-node nor kubernetes-types
 * carries: the one hand-kept part of builtin-schemas.json. Recorded from k8s.io/api (the
 * patch tags are the ones kubectl 1.32 is compiled with). A list not named here is atomic, as
 * an unmarked list is for server-side apply. The generator checks that every entry names an
 * existing field of the right shape, so a field that goes away fails the test.
 */

/** OpenAPI extensions of one field. */
export type FieldMarkers = Readonly<Record<string, string | readonly string[]>>;

const map = (keys: string[], mergeKey?: string, strategy = "merge"): FieldMarkers => ({
  "x-kubernetes-list-map-keys": keys,
  "x-kubernetes-list-type": "map",
  ...(mergeKey !== undefined
    ? { "x-kubernetes-patch-merge-key": mergeKey, "x-kubernetes-patch-strategy": strategy }
    : {}),
});
const set = (patch: boolean): FieldMarkers => ({
  "x-kubernetes-list-type": "set",
  ...(patch ? { "x-kubernetes-patch-strategy": "merge" } : {}),
});
/** An atomic list that strategic merge patch still merges by key. */
const mergeOnly = (mergeKey: string): FieldMarkers => ({
  "x-kubernetes-patch-merge-key": mergeKey,
  "x-kubernetes-patch-strategy": "merge",
});

const containerLists = {
  env: map(["name"], "name"),
  ports: map(["containerPort", "protocol"], "containerPort"),
  volumeDevices: map(["devicePath"], "devicePath"),
  volumeMounts: map(["mountPath"], "mountPath"),
};
const conditions = { conditions: map(["type"], "type") };

/** By component schema name, then field. */
export const FIELD_MARKERS: Readonly<Record<string, Readonly<Record<string, FieldMarkers>>>> = {
  "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {
    finalizers: set(true),
    ownerReferences: map(["uid"], "uid"),
  },
  "io.k8s.api.core.v1.PodSpec": {
    containers: map(["name"], "name"),
    ephemeralContainers: map(["name"], "name"),
    hostAliases: map(["ip"], "ip"),
    imagePullSecrets: map(["name"], "name"),
    initContainers: map(["name"], "name"),
    resourceClaims: map(["name"], "name", "merge,retainKeys"),
    schedulingGates: map(["name"], "name"),
    topologySpreadConstraints: map(["topologyKey", "whenUnsatisfiable"], "topologyKey"),
    volumes: map(["name"], "name", "merge,retainKeys"),
  },
  "io.k8s.api.core.v1.Container": containerLists,
  "io.k8s.api.core.v1.EphemeralContainer": containerLists,
  "io.k8s.api.core.v1.PodStatus": {
    ...conditions,
    hostIPs: mergeOnly("ip"),
    podIPs: map(["ip"], "ip"),
    resourceClaimStatuses: map(["name"], "name", "merge,retainKeys"),
  },
  "io.k8s.api.core.v1.ContainerStatus": {
    allocatedResourcesStatus: map(["name"], "name"),
    volumeMounts: mergeOnly("mountPath"),
  },
  "io.k8s.api.core.v1.NodeSpec": { podCIDRs: set(true) },
  "io.k8s.api.core.v1.NodeStatus": { ...conditions, addresses: map(["type"], "type") },
  "io.k8s.api.core.v1.NamespaceStatus": conditions,
  "io.k8s.api.core.v1.ServiceSpec": { ports: map(["port", "protocol"], "port") },
  "io.k8s.api.core.v1.ServiceStatus": conditions,
  "io.k8s.api.core.v1.ServiceAccount": { secrets: map(["name"], "name") },
  "io.k8s.api.apps.v1.DeploymentSpec": {
    strategy: { "x-kubernetes-patch-strategy": "retainKeys" },
  },
  "io.k8s.api.apps.v1.DeploymentStatus": conditions,
  "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionStatus": {
    conditions: map(["type"]),
  },
};
