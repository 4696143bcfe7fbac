/** How strategic merge patch treats a list (Go struct tags `patchStrategy`/`patchMergeKey`). */
export type ListStrategy = { mergeKey: string } | { primitive: true };

/** Paths are dotted, with `[]` for "each item of a list": `spec.containers[].env`. */
type Table = Readonly<Record<string, ListStrategy>>;

const META: Table = {
  "metadata.finalizers": { primitive: true },
  "metadata.ownerReferences": { mergeKey: "uid" },
};

function podSpec(prefix: string): Table {
  const t: Record<string, ListStrategy> = {};
  for (const list of ["containers", "initContainers", "ephemeralContainers"]) {
    t[`${prefix}.${list}`] = { mergeKey: "name" };
    t[`${prefix}.${list}[].ports`] = { mergeKey: "containerPort" };
    t[`${prefix}.${list}[].env`] = { mergeKey: "name" };
    t[`${prefix}.${list}[].volumeMounts`] = { mergeKey: "mountPath" };
    t[`${prefix}.${list}[].volumeDevices`] = { mergeKey: "devicePath" };
    t[`${prefix}.${list}[].resizePolicy`] = { mergeKey: "resourceName" };
  }
  t[`${prefix}.volumes`] = { mergeKey: "name" };
  t[`${prefix}.imagePullSecrets`] = { mergeKey: "name" };
  t[`${prefix}.hostAliases`] = { mergeKey: "ip" };
  t[`${prefix}.topologySpreadConstraints`] = { mergeKey: "topologyKey" };
  t[`${prefix}.resourceClaims`] = { mergeKey: "name" };
  t[`${prefix}.schedulingGates`] = { mergeKey: "name" };
  return t;
}

const CONDITIONS: Table = { "status.conditions": { mergeKey: "type" } };

/** Merge keys of the built-in kinds, by kind. Lists not listed are replaced whole. */
const BY_KIND: Readonly<Record<string, Table>> = {
  Pod: { ...podSpec("spec"), ...CONDITIONS },
  Deployment: { ...podSpec("spec.template.spec"), ...CONDITIONS },
  ReplicaSet: { ...podSpec("spec.template.spec"), ...CONDITIONS },
  StatefulSet: { ...podSpec("spec.template.spec"), ...CONDITIONS },
  DaemonSet: { ...podSpec("spec.template.spec"), ...CONDITIONS },
  ReplicationController: { ...podSpec("spec.template.spec"), ...CONDITIONS },
  Job: { ...podSpec("spec.template.spec"), ...CONDITIONS },
  CronJob: podSpec("spec.jobTemplate.spec.template.spec"),
  PodTemplate: podSpec("template.spec"),
  Service: { "spec.ports": { mergeKey: "port" }, ...CONDITIONS },
  Namespace: CONDITIONS,
};

/** The strategy for the list at `path` of a `kind` object, if it is not atomic. */
export function listStrategy(kind: string, path: string): ListStrategy | undefined {
  return META[path] ?? BY_KIND[kind]?.[path];
}
