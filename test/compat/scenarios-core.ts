/** The scenario table, part one: the core group and the workloads (apps, batch). */
import { type CompatResource, podSpec, resource, templateEnvPatch, workload } from "./resource.ts";

/** A core-group (v1) entry. */
const core = resource.bind(undefined, "", "v1");

/** The apps kinds with a `scale` subresource. */
const SCALED = new Set(["Deployment", "ReplicaSet", "StatefulSet"]);

function apps(kind: string, plural: string, sample: CompatResource["sample"]): CompatResource {
  return {
    group: "apps",
    version: "v1",
    kind,
    plural,
    namespaced: true,
    sample,
    ...(kind === "ControllerRevision" ? {} : { strategicPatch: templateEnvPatch }),
    ...(SCALED.has(kind) ? { scale: true } : {}),
  };
}

export const coreResources: readonly CompatResource[] = [
  core("ConfigMap", "configmaps", true, () => ({ data: { key: "value" } })),
  core("Secret", "secrets", true, () => ({ type: "Opaque", data: { key: "dmFsdWU=" } })),
  core("ServiceAccount", "serviceaccounts", true, () => ({})),
  core(
    "Service",
    "services",
    true,
    () => ({ spec: { selector: { app: "compat" }, ports: [{ name: "http", port: 80 }] } }),
    // Ports merge by their port number.
    { strategicPatch: { spec: { ports: [{ port: 80, targetPort: 8080 }] } } },
  ),
  core("Pod", "pods", true, () => ({ spec: podSpec() }), {
    // Containers merge by name; a pod's image is one of the few fields that may change.
    strategicPatch: { spec: { containers: [{ name: "main", image: "busybox:stable" }] } },
  }),
  core("Namespace", "namespaces", false, () => ({})),
  core("Node", "nodes", false, () => ({ spec: { unschedulable: true } })),
  core("Endpoints", "endpoints", true, () => ({
    subsets: [{ addresses: [{ ip: "10.1.2.3" }], ports: [{ name: "http", port: 80 }] }],
  })),
  core("Event", "events", true, (_, namespace) => ({
    involvedObject: { kind: "Pod", name: "web", namespace },
    reason: "Compat",
    message: "a compatibility check",
    type: "Normal",
  })),
  core("LimitRange", "limitranges", true, () => ({
    spec: { limits: [{ type: "Container", default: { cpu: "100m" } }] },
  })),
  core("ResourceQuota", "resourcequotas", true, () => ({ spec: { hard: { pods: "10" } } })),
  core("PersistentVolume", "persistentvolumes", false, () => ({
    spec: {
      capacity: { storage: "1Gi" },
      accessModes: ["ReadWriteOnce"],
      hostPath: { path: "/tmp/compat" },
    },
  })),
  core("PersistentVolumeClaim", "persistentvolumeclaims", true, () => ({
    spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
  })),
  core("PodTemplate", "podtemplates", true, () => ({
    template: { metadata: { labels: { app: "compat" } }, spec: podSpec() },
  })),
  core(
    "ReplicationController",
    "replicationcontrollers",
    true,
    () => ({
      spec: {
        selector: { app: "compat" },
        template: { metadata: { labels: { app: "compat" } }, spec: podSpec() },
      },
    }),
    { scale: true },
  ),
  apps("Deployment", "deployments", () => workload()),
  apps("ReplicaSet", "replicasets", () => workload()),
  apps("StatefulSet", "statefulsets", () => workload({ serviceName: "compat" })),
  apps("DaemonSet", "daemonsets", () => workload()),
  // kube requires a revision's data (any object).
  apps("ControllerRevision", "controllerrevisions", () => ({
    data: { compat: "yes" },
    revision: 1,
  })),
  {
    group: "batch",
    version: "v1",
    kind: "Job",
    plural: "jobs",
    namespaced: true,
    sample: () => ({ spec: { template: { spec: podSpec({ restartPolicy: "Never" }) } } }),
  },
  {
    group: "batch",
    version: "v1",
    kind: "CronJob",
    plural: "cronjobs",
    namespaced: true,
    sample: () => ({
      spec: {
        schedule: "*/5 * * * *",
        jobTemplate: { spec: { template: { spec: podSpec({ restartPolicy: "OnFailure" }) } } },
      },
    }),
  },
];
