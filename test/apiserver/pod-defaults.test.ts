/**
 * Pods and pod templates read back as kube-apiserver 1.36 returns them: the scheme's pod spec
 * defaults (probes, volumes, env field references, host ports), what its default admission adds
 * to a pod (tolerations, priority) and the QoS class of its first status. The expectations are
 * kube's answers to these requests; runs on both backends.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "kontroller/testing";
import { call } from "./helpers.ts";

const PODS = "/api/v1/namespaces/default/pods";
const fieldRef = { fieldPath: "metadata.name" };
const claimSpec = { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } };

const container = {
  name: "a",
  image: "busybox:1.36",
  ports: [{ containerPort: 8080 }],
  env: [{ name: "N", valueFrom: { fieldRef } }],
  livenessProbe: { httpGet: { port: 8080 } },
  readinessProbe: { grpc: { port: 9090 }, periodSeconds: 5 },
  startupProbe: { exec: { command: ["true"] } },
  lifecycle: { preStop: { httpGet: { port: 8080 } } },
  resources: { limits: { cpu: "100m", memory: "64Mi" } },
};
const volumes = [
  { name: "e" },
  { name: "s", secret: { secretName: "x" } },
  { name: "c", configMap: { name: "x" } },
  { name: "d", downwardAPI: { items: [{ path: "n", fieldRef }] } },
  { name: "p", projected: { sources: [{ downwardAPI: { items: [{ path: "n", fieldRef }] } }] } },
  { name: "h", hostPath: { path: "/tmp" } },
  { name: "eph", ephemeral: { volumeClaimTemplate: { spec: claimSpec } } },
];

const probe = { timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 };
const v1Ref = { apiVersion: "v1", ...fieldRef };
const http = { path: "/", port: 8080, scheme: "HTTP" };
const defaultedContainer = {
  ...container,
  ports: [{ containerPort: 8080, hostPort: 8080, protocol: "TCP" }],
  env: [{ name: "N", valueFrom: { fieldRef: v1Ref } }],
  livenessProbe: { ...probe, httpGet: http },
  readinessProbe: { ...probe, grpc: { port: 9090, service: "" }, periodSeconds: 5 },
  startupProbe: { ...probe, exec: { command: ["true"] } },
  lifecycle: { preStop: { httpGet: http } },
  resources: {
    limits: { cpu: "100m", memory: "64Mi" },
    requests: { cpu: "100m", memory: "64Mi" },
  },
  terminationMessagePath: "/dev/termination-log",
  terminationMessagePolicy: "File",
  imagePullPolicy: "IfNotPresent",
};
const defaultedVolumes = [
  { name: "e", emptyDir: {} },
  { name: "s", secret: { secretName: "x", defaultMode: 420 } },
  { name: "c", configMap: { name: "x", defaultMode: 420 } },
  { name: "d", downwardAPI: { items: [{ path: "n", fieldRef: v1Ref }], defaultMode: 420 } },
  {
    name: "p",
    projected: {
      sources: [{ downwardAPI: { items: [{ path: "n", fieldRef: v1Ref }] } }],
      defaultMode: 420,
    },
  },
  { name: "h", hostPath: { path: "/tmp", type: "" } },
  {
    name: "eph",
    ephemeral: {
      volumeClaimTemplate: { metadata: {}, spec: { ...claimSpec, volumeMode: "Filesystem" } },
    },
  },
];
const tolerated = (key: string) => ({
  key: `node.kubernetes.io/${key}`,
  operator: "Exists",
  effect: "NoExecute",
  tolerationSeconds: 300,
});

describe("pods read back as kube-apiserver returns them", () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ controllers: false });
  });
  after(() => s.close());

  const create = async (name: string, spec: Record<string, unknown>) => {
    const body = { apiVersion: "v1", kind: "Pod", metadata: { name }, spec };
    const res = await call(s.url, "POST", PODS, body);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body;
  };

  it("defaults a pod's containers and volumes, and admits it as kube's default plugins do", async () => {
    const pod = await create("full", { hostNetwork: true, containers: [container], volumes });
    assert.deepEqual(pod.spec, {
      hostNetwork: true,
      containers: [defaultedContainer],
      volumes: defaultedVolumes,
      restartPolicy: "Always",
      terminationGracePeriodSeconds: 30,
      dnsPolicy: "ClusterFirst",
      securityContext: {},
      schedulerName: "default-scheduler",
      tolerations: [tolerated("not-ready"), tolerated("unreachable")],
      priority: 0,
      enableServiceLinks: true,
      preemptionPolicy: "PreemptLowerPriority",
    });
    assert.deepEqual(pod.status, { phase: "Pending", qosClass: "Guaranteed" });
    assert.equal(pod.metadata.generation, 1);
    // Admission runs after field management: the writer owns no toleration or priority.
    const owned = pod.metadata.managedFields[0].fieldsV1["f:spec"];
    assert.equal(owned["f:priority"], undefined);
    assert.equal(owned["f:tolerations"], undefined);
    assert.ok(owned["f:volumes"]['k:{"name":"s"}']["f:secret"]["f:defaultMode"]);
  });

  it("adds only the tolerations a pod lacks, and a system class's priority", async () => {
    const notReady = {
      key: "node.kubernetes.io/not-ready",
      operator: "Exists",
      effect: "NoExecute",
    };
    const pod = await create("critical", {
      priorityClassName: "system-node-critical",
      tolerations: [notReady],
      containers: [{ name: "a", image: "busybox", resources: { requests: { cpu: "100m" } } }],
    });
    assert.deepEqual(pod.spec.tolerations, [notReady, tolerated("unreachable")]);
    assert.equal(pod.spec.priority, 2000001000);
    assert.equal(pod.spec.preemptionPolicy, "PreemptLowerPriority");
    assert.deepEqual(pod.status, { phase: "Pending", qosClass: "Burstable" });
  });

  it("keeps a pod's priority and raises its generation when its image changes", async () => {
    const pod = await create("updated", { containers: [{ name: "a", image: "busybox:1" }] });
    assert.equal(pod.status.qosClass, "BestEffort");
    const spec = { ...pod.spec, containers: [{ ...pod.spec.containers[0], image: "busybox:2" }] };
    delete spec.priority;
    delete spec.tolerations;
    const updated = await call(s.url, "PUT", `${PODS}/updated`, { ...pod, spec });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    assert.equal(updated.body.metadata.generation, 2);
    assert.equal(updated.body.spec.priority, 0);
    assert.deepEqual(updated.body.spec.tolerations, pod.spec.tolerations);
  });

  it("defaults a template's pod spec without what only a pod gets", async () => {
    const labels = { app: "t" };
    const res = await call(s.url, "POST", "/api/v1/namespaces/default/podtemplates", {
      apiVersion: "v1",
      kind: "PodTemplate",
      metadata: { name: "t" },
      template: {
        metadata: { labels },
        spec: { hostNetwork: true, containers: [container], volumes: [{ name: "e" }] },
      },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const [c] = res.body.template.spec.containers;
    assert.deepEqual(c.ports, [{ containerPort: 8080, protocol: "TCP" }]);
    assert.deepEqual(c.resources, container.resources);
    assert.deepEqual(c.livenessProbe, { ...probe, httpGet: http });
    assert.deepEqual(res.body.template.spec.volumes, [{ name: "e", emptyDir: {} }]);
    assert.equal(res.body.template.spec.enableServiceLinks, undefined);
    assert.equal(res.body.template.spec.tolerations, undefined);
  });
});
