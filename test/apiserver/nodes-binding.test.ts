/**
 * Nodes and the pods/binding subresource, black-box over HTTP and with kubectl: nodes are
 * cluster-scoped with a status subresource (capacity, allocatable defaulted from it,
 * conditions); a Binding sets a pod's `spec.nodeName` once (409 after that), with kube's
 * preconditions and errors; `spec.nodeName` and `spec.unschedulable` are selectable; kubectl
 * prints the NODE column of `get pods -o wide` and the columns of `get nodes`.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import type { TestServer } from "kontroller/testing";
import { call, watch } from "./helpers.ts";
import { kubectlRig } from "./kubectl-rig.ts";

const PODS = "/api/v1/namespaces/default/pods";

function node(name: string, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name },
    status: {
      capacity: { cpu: "4", memory: "8Gi", pods: "110" },
      conditions: [{ type: "Ready", status: "True" }],
      nodeInfo: { kubeletVersion: "v1.32.0", osImage: "Debian", kernelVersion: "6.1" },
      addresses: [{ type: "InternalIP", address: "10.0.0.1" }],
    },
    ...extra,
  };
}

function pod(name: string, resources: Record<string, unknown> = {}) {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name },
    spec: { containers: [{ name: "c", image: "nginx", resources }] },
  };
}

function binding(name: string, target: string, metadata: Record<string, unknown> = {}) {
  return {
    apiVersion: "v1",
    kind: "Binding",
    metadata: { name, ...metadata },
    target: { apiVersion: "v1", kind: "Node", name: target },
  };
}

describe("API server over HTTP: nodes and pods/binding", () => {
  const rig = kubectlRig("nodes", { controllers: false });
  const { kubectl } = rig;
  let s: TestServer;
  before(() => {
    s = rig.server;
  });

  it("stores nodes cluster-scoped, with status on create and then only through /status", async () => {
    const created = await call(s.url, "POST", "/api/v1/nodes", node("n-store"));
    assert.equal(created.status, 201);
    assert.equal(created.body.metadata.namespace, undefined);
    assert.deepEqual(created.body.status.allocatable, { cpu: "4", memory: "8Gi", pods: "110" });
    assert.equal(created.body.status.conditions[0].type, "Ready");
    const inNs = await call(s.url, "GET", "/api/v1/namespaces/default/nodes/n-store");
    assert.equal(inNs.status, 404);

    const put = await call(s.url, "PUT", "/api/v1/nodes/n-store", {
      ...created.body,
      spec: { unschedulable: true },
      status: { ...created.body.status, capacity: { cpu: "64" } },
    });
    assert.equal(put.status, 200);
    assert.equal(put.body.spec.unschedulable, true);
    assert.equal(put.body.status.capacity.cpu, "4", "the main endpoint keeps the stored status");
    const status = await call(
      s.url,
      "PATCH",
      "/api/v1/nodes/n-store/status",
      {
        status: { allocatable: { cpu: "3500m" } },
      },
      { "content-type": "application/merge-patch+json" },
    );
    assert.equal(status.status, 200);
    assert.equal(status.body.status.allocatable.cpu, "3500m");
    assert.equal(status.body.spec.unschedulable, true);

    const cordoned = await call(
      s.url,
      "GET",
      "/api/v1/nodes?fieldSelector=spec.unschedulable=true",
    );
    assert.deepEqual(
      cordoned.body.items.map((n: { metadata: { name: string } }) => n.metadata.name),
      ["n-store"],
    );
    const namespaceSelector = await call(
      s.url,
      "GET",
      "/api/v1/nodes?fieldSelector=metadata.namespace=default",
    );
    assert.equal(namespaceSelector.status, 400, "nodes have no metadata.namespace field");
  });

  it("refuses nodes with bad quantities or taints", async () => {
    const garbled = await call(
      s.url,
      "POST",
      "/api/v1/nodes",
      node("n-bad", { status: { capacity: { cpu: "four" } } }),
    );
    assert.equal(garbled.status, 400);
    assert.match(garbled.body.message, /quantities must match the regular expression/);
    const negative = await call(
      s.url,
      "POST",
      "/api/v1/nodes",
      node("n-neg", { status: { capacity: { cpu: "-1" } } }),
    );
    assert.equal(negative.status, 422);
    assert.equal(negative.body.details.causes[0].field, "status.capacity[cpu]");
    const taint = await call(
      s.url,
      "POST",
      "/api/v1/nodes",
      node("n-taint", { spec: { taints: [{ key: "k", effect: "Sometimes" }] } }),
    );
    assert.equal(taint.status, 422);
    assert.equal(taint.body.details.causes[0].field, "spec.taints[0].effect");
  });

  it("lists nodes and pods/binding in discovery", async () => {
    const core = await call(s.url, "GET", "/api/v1");
    const byName = (n: string) => core.body.resources.find((r: { name: string }) => r.name === n);
    assert.equal(byName("nodes").namespaced, false);
    assert.deepEqual(byName("nodes").shortNames, ["no"]);
    assert.deepEqual(byName("nodes/status").verbs, ["get", "patch", "update"]);
    assert.deepEqual(
      { kind: byName("pods/binding").kind, verbs: byName("pods/binding").verbs },
      { kind: "Binding", verbs: ["create"] },
    );
  });

  it("binds a pod once: nodeName, PodScheduled and annotations; 409 the second time", async () => {
    await call(s.url, "POST", PODS, pod("web", { limits: { cpu: "500m", memory: "1Gi" } }));
    const before = await call(s.url, "GET", `${PODS}/web`);
    assert.deepEqual(
      before.body.spec.containers[0].resources.requests,
      { cpu: "500m", memory: "1Gi" },
      "requests default to limits",
    );
    const bound = await call(
      s.url,
      "POST",
      `${PODS}/web/binding`,
      binding("web", "n1", { annotations: { "example.com/why": "room" } }),
    );
    assert.equal(bound.status, 201);
    assert.deepEqual(bound.body, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      code: 201,
    });
    const after = (await call(s.url, "GET", `${PODS}/web`)).body;
    assert.equal(after.spec.nodeName, "n1");
    assert.equal(after.metadata.annotations["example.com/why"], "room");
    const scheduled = after.status.conditions.find(
      (c: { type: string }) => c.type === "PodScheduled",
    );
    assert.equal(scheduled.status, "True");
    assert.match(scheduled.lastTransitionTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    for (const target of ["n2", "n1"]) {
      const again = await call(s.url, "POST", `${PODS}/web/binding`, binding("web", target));
      assert.equal(again.status, 409);
      assert.equal(again.body.reason, "Conflict");
      assert.equal(again.body.details.kind, "pods/binding");
      assert.match(again.body.message, /pod web is already assigned to node "n1"/);
    }
    const moved = await call(s.url, "PUT", `${PODS}/web`, {
      ...after,
      spec: { ...after.spec, nodeName: "n2" },
    });
    assert.equal(moved.status, 422, "an update may not move a pod");
  });

  it("answers bad bindings as kube does", async () => {
    await call(s.url, "POST", PODS, pod("bad"));
    const stored = (await call(s.url, "GET", `${PODS}/bad`)).body;
    const post = (body: unknown, name = "bad") =>
      call(s.url, "POST", `${PODS}/${name}/binding`, body);

    const mismatch = await post(binding("other", "n1"));
    assert.equal(mismatch.status, 400);
    assert.match(mismatch.body.message, /name in URL does not match name in Binding object/);
    const noTarget = await post({ ...binding("bad", "n1"), target: { kind: "Node" } });
    assert.equal(noTarget.status, 422);
    assert.equal(noTarget.body.details.causes[0].field, "target.name");
    const wrongKind = await post({ ...binding("bad", "n1"), target: { kind: "Pod", name: "x" } });
    assert.equal(wrongKind.status, 422);
    assert.equal(wrongKind.body.details.causes[0].field, "target.kind");
    const notBinding = await post({ ...binding("bad", "n1"), kind: "Pod" });
    assert.equal(notBinding.status, 400);
    const uid = await post(binding("bad", "n1", { uid: "not-the-uid" }));
    assert.equal(uid.status, 409);
    assert.match(uid.body.message, /Precondition failed: UID in precondition: not-the-uid/);
    const stale = await post(binding("bad", "n1", { resourceVersion: "1" }));
    assert.equal(stale.status, 409);
    const missing = await post(binding("nobody", "n1"), "nobody");
    assert.equal(missing.status, 404);
    const dryRun = await call(
      s.url,
      "POST",
      `${PODS}/bad/binding?dryRun=All`,
      binding("bad", "n1"),
    );
    assert.equal(dryRun.status, 201);
    assert.equal((await call(s.url, "GET", `${PODS}/bad`)).body.spec.nodeName, undefined);
    for (const method of ["GET", "PUT", "PATCH", "DELETE"]) {
      const r = await call(s.url, method, `${PODS}/bad/binding`, method === "GET" ? undefined : {});
      assert.equal(r.status, 405, method);
    }
    const preconditioned = await post(
      binding("bad", "n1", {
        uid: stored.metadata.uid,
        resourceVersion: stored.metadata.resourceVersion,
      }),
    );
    assert.equal(preconditioned.status, 201, "matching preconditions bind");
  });

  it("refuses to bind a pod being deleted or held by scheduling gates", async () => {
    await call(s.url, "POST", PODS, {
      ...pod("leaving"),
      metadata: { name: "leaving", finalizers: ["example.com/hold"] },
    });
    await call(s.url, "DELETE", `${PODS}/leaving`);
    const leaving = await call(s.url, "POST", `${PODS}/leaving/binding`, binding("leaving", "n1"));
    assert.equal(leaving.status, 409);
    assert.match(leaving.body.message, /is being deleted, cannot be assigned to a host/);
    await call(
      s.url,
      "PATCH",
      `${PODS}/leaving`,
      { metadata: { finalizers: null } },
      {
        "content-type": "application/merge-patch+json",
      },
    );

    const gated = pod("gated");
    (gated.spec as Record<string, unknown>).schedulingGates = [{ name: "example.com/wait" }];
    await call(s.url, "POST", PODS, gated);
    const held = await call(s.url, "POST", `${PODS}/gated/binding`, binding("gated", "n1"));
    assert.equal(held.status, 409);
    assert.match(held.body.message, /non-empty \.spec\.schedulingGates/);
  });

  it("selects pods by spec.nodeName in lists and watches", async () => {
    await call(s.url, "POST", PODS, pod("sel"));
    const w = await watch(s.url, `${PODS}?watch=1&fieldSelector=spec.nodeName%3Dn-sel`);
    try {
      await call(s.url, "POST", `${PODS}/sel/binding`, binding("sel", "n-sel"));
      const e = await w.next();
      assert.equal(e.type, "ADDED", "a pod starts matching when it is bound");
      assert.equal(e.object.metadata.name, "sel");
    } finally {
      w.close();
    }
    const onNode = await call(s.url, "GET", `${PODS}?fieldSelector=spec.nodeName%3Dn-sel`);
    assert.deepEqual(
      onNode.body.items.map((p: { metadata: { name: string } }) => p.metadata.name),
      ["sel"],
    );
    const unbound = await call(s.url, "GET", `${PODS}?fieldSelector=spec.nodeName%3D`);
    assert.ok(
      unbound.body.items.every((p: { spec: { nodeName?: string } }) => !p.spec.nodeName),
      "spec.nodeName= selects the pods not bound yet",
    );
  });

  it("prints NODE in kubectl get pods -o wide and the node columns in get nodes", async () => {
    await call(s.url, "POST", "/api/v1/nodes", {
      ...node("k-worker"),
      metadata: { name: "k-worker", labels: { "node-role.kubernetes.io/worker": "" } },
    });
    await call(s.url, "POST", "/api/v1/nodes", {
      ...node("k-cordoned", { spec: { unschedulable: true } }),
      status: { conditions: [{ type: "Ready", status: "False" }] },
    });
    await call(s.url, "POST", PODS, pod("k-pod"));
    await call(s.url, "POST", `${PODS}/k-pod/binding`, binding("k-pod", "k-worker"));

    const wide = await kubectl("get", "pods", "k-pod", "-o", "wide");
    assert.match(
      wide,
      /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES\n/,
    );
    assert.match(
      wide,
      /\nk-pod\s+0\/1\s+Pending\s+0\s+\S+\s+<none>\s+k-worker\s+<none>\s+<none>\n/,
    );
    const narrow = await kubectl("get", "pods", "k-pod");
    assert.match(narrow, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\n/);

    const nodes = await kubectl("get", "nodes", "k-worker", "k-cordoned");
    assert.match(nodes, /^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\n/);
    assert.match(nodes, /\nk-worker\s+Ready\s+worker\s+\S+\s+v1\.32\.0\n/);
    assert.match(nodes, /\nk-cordoned\s+NotReady,SchedulingDisabled\s+<none>\s+\S+\s+\n/);
    const nodesWide = await kubectl("get", "nodes", "k-worker", "-o", "wide");
    assert.match(
      nodesWide,
      /\nk-worker\s+Ready\s+worker\s+\S+\s+v1\.32\.0\s+10\.0\.0\.1\s+<none>\s+Debian\s+6\.1\s+<unknown>\n/,
    );
    const onNode = await kubectl("get", "pods", "--field-selector", "spec.nodeName=k-worker");
    assert.match(onNode, /\nk-pod\s/);
  });
});
