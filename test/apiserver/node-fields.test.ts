/**
 * A Node as kube-apiserver 1.36 returns it: TaintNodesByCondition taints a created node
 * not-ready (NoSchedule) unless it has a taint with that key and effect, on create only, and
 * nobody owns the taint; the status fields Go writes even when empty (the kubelet endpoint's
 * port, the node info's strings) are on every node, owned by nobody either. Runs on both
 * backends.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "kontroller/testing";
import { call, type Loose } from "./helpers.ts";

const NOT_READY = { key: "node.kubernetes.io/not-ready", effect: "NoSchedule" };
const NODE_INFO = {
  machineID: "",
  systemUUID: "",
  bootID: "",
  kernelVersion: "",
  osImage: "",
  containerRuntimeVersion: "",
  kubeletVersion: "",
  kubeProxyVersion: "",
  operatingSystem: "",
  architecture: "",
};

let s: TestServer;
before(async () => {
  s = await startTestServer({ controllers: false });
});
after(() => s.close());

function node(name: string, extra: Record<string, unknown> = {}) {
  return { apiVersion: "v1", kind: "Node", metadata: { name }, ...extra };
}

async function create(body: unknown): Promise<Loose> {
  const created = await call(s.url, "POST", "/api/v1/nodes?fieldManager=writer", body);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body;
}

const fieldsOf = (n: Loose, manager: string) =>
  n.metadata.managedFields?.find((m: { manager: string }) => m.manager === manager)?.fieldsV1;

describe("a created Node", () => {
  it("is tainted not-ready, owned by nobody, and has Go's empty status fields", async () => {
    const n = await create(node("fields-plain"));
    assert.deepEqual(n.spec.taints, [NOT_READY]);
    assert.deepEqual(n.status, {
      daemonEndpoints: { kubeletEndpoint: { Port: 0 } },
      nodeInfo: NODE_INFO,
    });
    assert.equal(n.metadata.managedFields, undefined, "the writer wrote nothing to own");
    const got = (await call(s.url, "GET", "/api/v1/nodes/fields-plain")).body;
    assert.deepEqual(got.spec.taints, [NOT_READY]);
    assert.deepEqual(got.status.nodeInfo, NODE_INFO);
  });

  it("keeps its own not-ready NoSchedule taint, whatever its value, and appends to others", async () => {
    const own = { key: NOT_READY.key, value: "x", effect: "NoSchedule" };
    const kept = await create(node("fields-own", { spec: { taints: [own] } }));
    assert.deepEqual(kept.spec.taints, [own]);
    const other = [
      { key: "a", effect: "NoExecute" },
      { key: NOT_READY.key, effect: "NoExecute" },
    ];
    const appended = await create(node("fields-other", { spec: { taints: other } }));
    assert.deepEqual(appended.spec.taints, [...other, NOT_READY]);
    assert.deepEqual(fieldsOf(appended, "writer"), { "f:spec": { "f:taints": {} } });
  });

  it("is tainted on an apply that creates it too, and given status is kept with Go's zeroes", async () => {
    const applied = await call(
      s.url,
      "PATCH",
      "/api/v1/nodes/fields-applied?fieldManager=applier",
      node("fields-applied", {
        status: { capacity: { cpu: "2" }, nodeInfo: { machineID: "m" } },
      }),
      { "content-type": "application/apply-patch+yaml" },
    );
    assert.equal(applied.status, 201, JSON.stringify(applied.body));
    assert.deepEqual(applied.body.spec.taints, [NOT_READY]);
    assert.deepEqual(applied.body.status.nodeInfo, { ...NODE_INFO, machineID: "m" });
    assert.deepEqual(applied.body.status.daemonEndpoints, { kubeletEndpoint: { Port: 0 } });
  });
});

describe("an updated Node", () => {
  it("is not tainted again, and a status write keeps Go's empty fields", async () => {
    await create(node("fields-updated"));
    const put = await call(
      s.url,
      "PUT",
      "/api/v1/nodes/fields-updated?fieldManager=updater",
      node("fields-updated", { spec: {} }),
    );
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal(put.body.spec.taints, undefined);
    const status = await call(
      s.url,
      "PUT",
      "/api/v1/nodes/fields-updated/status",
      node("fields-updated", { status: { capacity: { cpu: "1" } } }),
    );
    assert.equal(status.status, 200, JSON.stringify(status.body));
    assert.deepEqual(status.body.status, {
      capacity: { cpu: "1" },
      allocatable: { cpu: "1" },
      daemonEndpoints: { kubeletEndpoint: { Port: 0 } },
      nodeInfo: NODE_INFO,
    });
  });
});
