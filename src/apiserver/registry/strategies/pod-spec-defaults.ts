import { eachAt } from "./kind-rules.ts";
import { child, type Json, recordAt, setDefault } from "./util.ts";

/*
 * core/v1's scheme defaults of a pod spec, as kube-apiserver 1.36 applies them to a Pod and to
 * every pod template (a Deployment's, a Job's…), and of the volume sources a PersistentVolume
 * shares with a pod's volumes.
 */

/** The volume source fields of a pod's volume, each of which makes the volume what it is. */
const VOLUME_SOURCES = [
  "hostPath",
  "emptyDir",
  "gcePersistentDisk",
  "awsElasticBlockStore",
  "gitRepo",
  "secret",
  "nfs",
  "iscsi",
  "glusterfs",
  "persistentVolumeClaim",
  "rbd",
  "flexVolume",
  "cinder",
  "cephfs",
  "flocker",
  "downwardAPI",
  "fc",
  "azureFile",
  "configMap",
  "vsphereVolume",
  "quobyte",
  "azureDisk",
  "photonPersistentDisk",
  "projected",
  "portworxVolume",
  "scaleIO",
  "storageos",
  "csi",
  "ephemeral",
  "image",
];

/** The pull policy of an image: always for `latest` (or no tag), else if not present. */
function pullPolicyOf(image: unknown): "Always" | "IfNotPresent" {
  const ref = typeof image === "string" ? image : "";
  if (ref.includes("@")) return "IfNotPresent";
  const tag = ref.split("/").pop()?.split(":")[1];
  return tag === undefined || tag === "latest" ? "Always" : "IfNotPresent";
}

/** A downward API field reference reads the core/v1 object unless told otherwise. */
function defaultFieldRefs(items: Json[]): void {
  for (const item of items) {
    const ref = recordAt(item, "fieldRef");
    if (ref !== undefined) setDefault(ref, "apiVersion", "v1");
  }
}

/**
 * The defaults of the volume sources a PersistentVolume and a pod's volume share: a host path
 * of no particular type, the pool, user and keyring of an RBD volume, the interface of an iSCSI
 * one, the caching, file system, mode and kind of an Azure disk, a ScaleIO volume's storage mode
 * and file system.
 */
export function defaultVolumeSource(source: Json): void {
  const hostPath = recordAt(source, "hostPath");
  if (hostPath !== undefined) setDefault(hostPath, "type", "");
  const rbd = recordAt(source, "rbd");
  if (rbd !== undefined) {
    setDefault(rbd, "pool", "rbd");
    setDefault(rbd, "user", "admin");
    setDefault(rbd, "keyring", "/etc/ceph/keyring");
  }
  const iscsi = recordAt(source, "iscsi");
  if (iscsi !== undefined) setDefault(iscsi, "iscsiInterface", "default");
  const azureDisk = recordAt(source, "azureDisk");
  if (azureDisk !== undefined) {
    setDefault(azureDisk, "cachingMode", "ReadWrite");
    setDefault(azureDisk, "fsType", "ext4");
    setDefault(azureDisk, "readOnly", false);
    setDefault(azureDisk, "kind", "Shared");
  }
  const scaleIO = recordAt(source, "scaleIO");
  if (scaleIO !== undefined) {
    setDefault(scaleIO, "storageMode", "ThinProvisioned");
    setDefault(scaleIO, "fsType", "xfs");
  }
}

/** A pod's volume: an empty dir when it names no source; files 0644, tokens for an hour. */
function defaultVolume(volume: Json): void {
  if (!VOLUME_SOURCES.some((s) => volume[s] !== undefined && volume[s] !== null)) {
    volume.emptyDir = {};
  }
  defaultVolumeSource(volume);
  for (const key of ["secret", "configMap", "downwardAPI", "projected"]) {
    const source = recordAt(volume, key);
    if (source !== undefined) setDefault(source, "defaultMode", 0o644);
  }
  defaultFieldRefs(eachAt(recordAt(volume, "downwardAPI") ?? {}, "items"));
  for (const projection of eachAt(recordAt(volume, "projected") ?? {}, "sources")) {
    defaultFieldRefs(eachAt(recordAt(projection, "downwardAPI") ?? {}, "items"));
    const token = recordAt(projection, "serviceAccountToken");
    if (token !== undefined) setDefault(token, "expirationSeconds", 3600);
  }
  const image = recordAt(volume, "image");
  if (image !== undefined) setDefault(image, "pullPolicy", pullPolicyOf(image.reference));
  const claim = recordAt(recordAt(volume, "ephemeral") ?? {}, "volumeClaimTemplate");
  if (claim !== undefined) {
    child(claim, "metadata");
    setDefault(child(claim, "spec"), "volumeMode", "Filesystem");
  }
}

/** An HTTP handler gets `/` over HTTP. */
function defaultHttpGet(handler: Json | undefined): void {
  const get = handler === undefined ? undefined : recordAt(handler, "httpGet");
  if (get === undefined) return;
  setDefault(get, "path", "/");
  setDefault(get, "scheme", "HTTP");
}

/** A probe times out after 1 s, runs every 10 s, passes once, fails after 3. */
function defaultProbe(probe: Json | undefined): void {
  if (probe === undefined) return;
  for (const [key, value] of [
    ["timeoutSeconds", 1],
    ["periodSeconds", 10],
    ["successThreshold", 1],
    ["failureThreshold", 3],
  ] as const) {
    if (probe[key] === undefined || probe[key] === 0) probe[key] = value;
  }
  defaultHttpGet(probe);
  const grpc = recordAt(probe, "grpc");
  if (grpc !== undefined) setDefault(grpc, "service", "");
}

function defaultContainer(container: Json): void {
  setDefault(container, "imagePullPolicy", pullPolicyOf(container.image));
  setDefault(container, "terminationMessagePath", "/dev/termination-log");
  setDefault(container, "terminationMessagePolicy", "File");
  setDefault(container, "resources", {});
  for (const port of eachAt(container, "ports")) setDefault(port, "protocol", "TCP");
  for (const env of eachAt(container, "env")) {
    const from = recordAt(env, "valueFrom");
    if (from === undefined) continue;
    defaultFieldRefs([from]);
    const fileKey = recordAt(from, "fileKeyRef");
    if (fileKey !== undefined) setDefault(fileKey, "optional", false);
  }
  for (const probe of ["livenessProbe", "readinessProbe", "startupProbe"]) {
    defaultProbe(recordAt(container, probe));
  }
  const lifecycle = recordAt(container, "lifecycle");
  if (lifecycle !== undefined) {
    defaultHttpGet(recordAt(lifecycle, "postStart"));
    defaultHttpGet(recordAt(lifecycle, "preStop"));
  }
}

/**
 * kube's `SetDefaults_Pod`, what a Pod gets and a pod template does not: service links, a
 * container's requests from its limits, and on the host network, a host port for each port.
 */
function defaultPodOnly(spec: Json): void {
  setDefault(spec, "enableServiceLinks", true);
  for (const list of ["containers", "initContainers"]) {
    for (const container of eachAt(spec, list)) {
      const resources = recordAt(container, "resources");
      const limits = resources === undefined ? undefined : recordAt(resources, "limits");
      if (resources === undefined || limits === undefined || Object.keys(limits).length === 0)
        continue;
      const requests = child(resources, "requests");
      for (const [name, value] of Object.entries(limits)) setDefault(requests, name, value);
    }
  }
  if (spec.hostNetwork === true) {
    for (const list of ["containers", "initContainers"]) {
      for (const container of eachAt(spec, list)) {
        for (const port of eachAt(container, "ports")) {
          if (port.hostPort === undefined || port.hostPort === 0)
            port.hostPort = port.containerPort;
        }
      }
    }
  }
}

/**
 * core/v1's defaults of a pod spec (kube's `SetObjectDefaults_Pod`, or of a pod template's
 * spec without what only a Pod gets): restart, DNS and scheduling policies, each container's
 * pull policy, termination message, ports, env field references and probes, each volume's
 * source and modes. Mutates `spec`.
 */
export function defaultPodSpec(spec: Json, where: "pod" | "template" = "pod"): void {
  setDefault(spec, "restartPolicy", "Always");
  setDefault(spec, "dnsPolicy", "ClusterFirst");
  setDefault(spec, "terminationGracePeriodSeconds", 30);
  setDefault(spec, "schedulerName", "default-scheduler");
  setDefault(spec, "securityContext", {});
  for (const list of ["containers", "initContainers", "ephemeralContainers"]) {
    for (const container of eachAt(spec, list)) defaultContainer(container);
  }
  for (const volume of eachAt(spec, "volumes")) defaultVolume(volume);
  if (where === "pod") defaultPodOnly(spec);
}
