/**
 * Pods as kube-apiserver stores them, for the protobuf benchmark: Pod `i` of a Deployment's
 * ReplicaSet, scheduled and running (labels, annotations, an owner, managed fields, one or two
 * containers with ports, env, resource quantities, mounts and probes, volumes, tolerations,
 * status with conditions and container statuses).
 */
import type { Container, ContainerStatus, Pod } from "kubernetes-types/core/v1.js";

const APPS = ["checkout", "cart", "search", "payments", "frontend", "inventory", "auth", "mailer"];
const NODES = 64;
/** Go's zero Time, which kube-apiserver stores as null (kubernetes-types has no null for it). */
const ZERO_TIME = null as unknown as string;

/** Seconds past the epoch as RFC 3339, whole seconds (what a Time holds). */
function at(seconds: number): string {
  return new Date((1_795_000_000 + seconds) * 1000).toISOString().replace(".000Z", "Z");
}

/** A hex string of `length` digits, a function of `seed`. */
function hex(seed: number, length: number): string {
  let s = "";
  let x = (seed * 2_654_435_761) >>> 0;
  while (s.length < length) {
    x = (x * 1_103_515_245 + 12_345) >>> 0;
    s += x.toString(16).padStart(8, "0");
  }
  return s.slice(0, length);
}

function uid(seed: number): string {
  const h = hex(seed, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function container(app: string, i: number, sidecar: boolean): Container {
  const name = sidecar ? "envoy" : app;
  return {
    name,
    image: sidecar
      ? "docker.io/envoyproxy/envoy:v1.31.2"
      : `registry.example.com/shop/${app}:1.${i % 40}.${i % 7}`,
    args: sidecar ? ["--config-path", "/etc/envoy/envoy.yaml", "--log-level", "warn"] : undefined,
    ports: [
      { name: sidecar ? "proxy" : "http", containerPort: sidecar ? 15001 : 8080, protocol: "TCP" },
      ...(sidecar ? [] : [{ name: "metrics", containerPort: 9090, protocol: "TCP" }]),
    ],
    env: [
      { name: "APP_NAME", value: app },
      { name: "LOG_LEVEL", value: i % 10 === 0 ? "debug" : "info" },
      {
        name: "POD_NAME",
        valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "metadata.name" } },
      },
      { name: "POD_IP", valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "status.podIP" } } },
    ],
    resources: {
      requests: { cpu: sidecar ? "100m" : "250m", memory: sidecar ? "64Mi" : "256Mi" },
      limits: { cpu: sidecar ? "500m" : "1", memory: sidecar ? "128Mi" : "512Mi" },
    },
    volumeMounts: [
      { name: "config", mountPath: sidecar ? "/etc/envoy" : "/etc/app", readOnly: true },
      {
        name: "kube-api-access",
        mountPath: "/var/run/secrets/kubernetes.io/serviceaccount",
        readOnly: true,
      },
    ],
    livenessProbe: {
      httpGet: { path: "/healthz", port: sidecar ? 15021 : "http", scheme: "HTTP" },
      initialDelaySeconds: 10,
      timeoutSeconds: 2,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
    },
    readinessProbe: {
      tcpSocket: { port: sidecar ? 15001 : 8080 },
      timeoutSeconds: 1,
      periodSeconds: 5,
      successThreshold: 1,
      failureThreshold: 3,
    },
    terminationMessagePath: "/dev/termination-log",
    terminationMessagePolicy: "File",
    imagePullPolicy: "IfNotPresent",
  };
}

function containerStatus(c: Container, i: number, started: number): ContainerStatus {
  return {
    name: c.name,
    state: { running: { startedAt: at(started + 4) } },
    ready: true,
    restartCount: 1 + (i % 3),
    image: c.image!,
    imageID: `${c.image!.split(":")[0]}@sha256:${hex(i ^ c.name.length, 64)}`,
    containerID: `containerd://${hex(i * 31 + c.name.length, 64)}`,
    started: true,
  };
}

/** Pod `i` of a Deployment's ReplicaSet, scheduled and running, as kube-apiserver stores it. */
export function pod(i: number): Pod {
  const app = APPS[i % APPS.length]!;
  const hash = hex(i % APPS.length, 10).replace(/[0-3]/g, "b");
  const name = `${app}-${hash}-${hex(i + 7, 5)}`;
  const created = i * 3;
  const containers = [container(app, i, false), ...(i % 2 === 0 ? [container(app, i, true)] : [])];
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      generateName: `${app}-${hash}-`,
      namespace: `team-${i % 20}`,
      uid: uid(i),
      resourceVersion: String(1_000_000 + i * 17),
      creationTimestamp: at(created),
      labels: { app, "pod-template-hash": hash, tier: i % 3 === 0 ? "backend" : "web" },
      annotations: {
        "kubectl.kubernetes.io/restartedAt": at(created - 600),
        "prometheus.io/scrape": "true",
        "prometheus.io/port": "9090",
      },
      ownerReferences: [
        {
          apiVersion: "apps/v1",
          kind: "ReplicaSet",
          name: `${app}-${hash}`,
          uid: uid(1_000_000 + (i % APPS.length)),
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
      managedFields: [
        {
          manager: "kube-controller-manager",
          operation: "Update",
          apiVersion: "v1",
          time: at(created),
          fieldsType: "FieldsV1",
          fieldsV1: {
            "f:metadata": {
              "f:generateName": {},
              "f:labels": { ".": {}, "f:app": {}, "f:pod-template-hash": {}, "f:tier": {} },
              "f:ownerReferences": {
                ".": {},
                [`k:{"uid":"${uid(1_000_000 + (i % APPS.length))}"}`]: {},
              },
            },
            "f:spec": Object.fromEntries(
              containers.map((c) => [`k:{"name":"${c.name}"}`, { ".": {}, "f:image": {} }]),
            ),
          },
        },
        {
          manager: "kubelet",
          operation: "Update",
          apiVersion: "v1",
          time: at(created + 5),
          fieldsType: "FieldsV1",
          fieldsV1: {
            "f:status": {
              "f:conditions": { ".": {}, 'k:{"type":"Ready"}': { ".": {}, "f:status": {} } },
              "f:containerStatuses": {},
              "f:podIP": {},
              "f:startTime": {},
            },
          },
          subresource: "status",
        },
      ],
    },
    spec: {
      volumes: [
        { name: "config", configMap: { name: `${app}-config`, defaultMode: 420 } },
        {
          name: "kube-api-access",
          projected: {
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
              {
                configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] },
              },
            ],
            defaultMode: 420,
          },
        },
      ],
      containers,
      restartPolicy: "Always",
      terminationGracePeriodSeconds: 30,
      dnsPolicy: "ClusterFirst",
      serviceAccountName: app,
      serviceAccount: app,
      nodeName: `node-${i % NODES}`,
      securityContext: { runAsNonRoot: true, runAsUser: 10001, fsGroup: 10001 },
      schedulerName: "default-scheduler",
      tolerations: [
        {
          key: "node.kubernetes.io/not-ready",
          operator: "Exists",
          effect: "NoExecute",
          tolerationSeconds: 300,
        },
        {
          key: "node.kubernetes.io/unreachable",
          operator: "Exists",
          effect: "NoExecute",
          tolerationSeconds: 300,
        },
      ],
      priority: 1000,
      enableServiceLinks: true,
      preemptionPolicy: "PreemptLowerPriority",
    },
    status: {
      phase: "Running",
      conditions: ["Initialized", "Ready", "ContainersReady", "PodScheduled"].map((type, k) => ({
        type,
        status: "True",
        lastProbeTime: ZERO_TIME,
        lastTransitionTime: at(created + (k === 3 ? 0 : 2 + k)),
      })),
      hostIP: `10.0.${i % NODES}.10`,
      podIP: `10.244.${(i >> 8) % 256}.${i % 256}`,
      podIPs: [{ ip: `10.244.${(i >> 8) % 256}.${i % 256}` }],
      startTime: at(created + 1),
      containerStatuses: containers.map((c) => containerStatus(c, i, created)),
      qosClass: "Burstable",
    },
  };
}
