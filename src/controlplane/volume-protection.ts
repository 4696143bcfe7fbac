/**
 * kube-controller-manager's protection controllers, which release the finalizers kube-apiserver's
 * default admission puts on storage objects: `kubernetes.io/pvc-protection` of a deleting
 * PersistentVolumeClaim once no running pod uses it, `kubernetes.io/pv-protection` of a deleting
 * PersistentVolume once it is not Bound. Without them a deleted claim stays — and so does the
 * Terminating namespace that holds it.
 */
import { type InformerFactory, NAMESPACE_INDEX } from "../cache/index.ts";
import type { Client } from "../client/index.ts";
import {
  type ControllerSpec,
  controller,
  hasFinalizer,
  type Predicate,
  removeFinalizer,
} from "../controller/index.ts";
import { isNotFound, type KubeObject } from "../core/index.ts";
import { type Pod, pods, type ResourceDefinition, resourceDefinition } from "../resources/index.ts";

export const PVC_PROTECTION_FINALIZER = "kubernetes.io/pvc-protection";
export const PV_PROTECTION_FINALIZER = "kubernetes.io/pv-protection";

const persistentVolumeClaims: ResourceDefinition = resourceDefinition({
  group: "",
  version: "v1",
  kind: "PersistentVolumeClaim",
  plural: "persistentvolumeclaims",
  scope: "Namespaced",
});

const persistentVolumes: ResourceDefinition = resourceDefinition({
  group: "",
  version: "v1",
  kind: "PersistentVolume",
  plural: "persistentvolumes",
  scope: "Cluster",
});

/** Events of objects being deleted that still carry `finalizer`. */
function held(finalizer: string): Predicate {
  const waiting = (o: KubeObject) =>
    Boolean(o.metadata?.deletionTimestamp) && hasFinalizer(o, finalizer);
  return { create: waiting, update: (_o, n) => waiting(n), delete: () => false };
}

/** The claims a pod mounts, directly or as the ephemeral volumes kube names `<pod>-<volume>`. */
export function claimsOf(pod: Pod): string[] {
  const volumes = (pod.spec?.volumes ?? []) as {
    name?: string;
    persistentVolumeClaim?: { claimName?: string };
    ephemeral?: unknown;
  }[];
  return volumes.flatMap((v) => {
    if (v.persistentVolumeClaim?.claimName) return [v.persistentVolumeClaim.claimName];
    if (v.ephemeral !== undefined && v.name) return [`${pod.metadata?.name ?? ""}-${v.name}`];
    return [];
  });
}

/** A pod that has finished no longer uses its volumes. */
function running(pod: Pod): boolean {
  const phase = (pod.status as { phase?: string } | undefined)?.phase;
  return phase !== "Succeeded" && phase !== "Failed";
}

/** The two controllers, for a manager to run (reading through its informers). */
export function volumeProtectionControllers(
  client: Client,
  factory: InformerFactory,
): ControllerSpec<KubeObject>[] {
  const podStore = factory.informer(pods).store;
  const claimStore = factory.informer(persistentVolumeClaims).store;
  const volumeStore = factory.informer(persistentVolumes).store;
  const release = async (
    def: ResourceDefinition,
    object: KubeObject,
    finalizer: string,
    signal: AbortSignal,
  ) => {
    try {
      await removeFinalizer(client.resource(def), object, finalizer, { signal });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  };
  const claims = controller({
    name: "pvc-protection",
    for: { resource: persistentVolumeClaims, predicates: [held(PVC_PROTECTION_FINALIZER)] },
    // A pod going away may release the claims it used.
    watches: [
      {
        resource: pods,
        map: (pod: Pod) =>
          claimsOf(pod).map((name) => ({ namespace: pod.metadata?.namespace ?? "", name })),
      },
    ],
    reconcile: async ({ namespace, name }, ctx) => {
      const claim = claimStore.get(`${namespace}/${name}`);
      if (claim === undefined || !claim.metadata?.deletionTimestamp) return;
      if (!hasFinalizer(claim, PVC_PROTECTION_FINALIZER)) return;
      const users = podStore
        .byIndex(NAMESPACE_INDEX, namespace ?? "")
        .filter((p) => running(p) && claimsOf(p).includes(name));
      if (users.length > 0) return;
      await release(persistentVolumeClaims, claim, PVC_PROTECTION_FINALIZER, ctx.signal);
    },
  });
  const volumes = controller({
    name: "pv-protection",
    for: { resource: persistentVolumes, predicates: [held(PV_PROTECTION_FINALIZER)] },
    reconcile: async ({ name }, ctx) => {
      const volume = volumeStore.get(name);
      if (volume === undefined || !volume.metadata?.deletionTimestamp) return;
      if ((volume as { status?: { phase?: string } }).status?.phase === "Bound") return;
      await release(persistentVolumes, volume, PV_PROTECTION_FINALIZER, ctx.signal);
    },
  });
  return [claims, volumes];
}
