import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "kontroller/testing";
import { call, type Loose, watch } from "./helpers.ts";

/** What client-go and kubectl 1.32 send on `/api` and `/apis` (`acceptDiscoveryFormats`). */
const CLIENT_GO_ACCEPT =
  "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
const V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
const crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

/** A cluster-scoped CRD with status and scale, its beta version listed first. */
const crd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "gizmos.example.com" },
  spec: {
    group: "example.com",
    scope: "Cluster",
    names: { plural: "gizmos", singular: "gizmo", kind: "Gizmo", categories: ["all"] },
    versions: ["v1beta1", "v1"].map((name) => ({
      name,
      served: true,
      storage: name === "v1",
      subresources: {
        status: {},
        scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas" },
      },
      schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
    })),
  },
};

/** Watches the CRD from `rv` until `done` accepts an event. */
async function until(s: TestServer, rv: string, done: (e: Loose) => boolean): Promise<void> {
  const w = await watch(
    s.url,
    `${crds}?watch=1&resourceVersion=${rv}&fieldSelector=metadata.name%3Dgizmos.example.com`,
  );
  try {
    for (;;) {
      const e = await w.next();
      assert.ok(e !== undefined, "the watch ended first");
      if (done(e)) return;
    }
  } finally {
    w.close();
  }
}

describe("API server over HTTP: aggregated discovery", () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ controllers: false });
  });
  after(() => s.close());

  it("answers client-go's Accept header on /api with the core group as APIGroupDiscoveryList v2", async () => {
    const r = await call(s.url, "GET", "/api", undefined, { accept: CLIENT_GO_ACCEPT });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("content-type"), V2);
    assert.equal(r.headers.get("vary"), "Accept");
    assert.equal(r.body.kind, "APIGroupDiscoveryList");
    assert.equal(r.body.apiVersion, "apidiscovery.k8s.io/v2");
    assert.deepEqual(r.body.metadata, {});
    // The core group: no name (ObjectMeta leaves an empty one out).
    assert.deepEqual(
      r.body.items.map((g: Loose) => g.metadata),
      [{}],
    );
    const v1 = r.body.items[0].versions;
    assert.deepEqual(
      v1.map((v: Loose) => [v.version, v.freshness]),
      [["v1", "Current"]],
    );
    const cm = v1[0].resources.find((x: Loose) => x.resource === "configmaps");
    // A built-in kind's group and version are left empty, as kube-apiserver leaves them.
    assert.deepEqual(cm.responseKind, { group: "", version: "", kind: "ConfigMap" });
    assert.equal(cm.scope, "Namespaced");
    assert.deepEqual(cm.shortNames, ["cm"]);
    const ns = v1[0].resources.find((x: Loose) => x.resource === "namespaces");
    assert.equal(ns.scope, "Cluster");
    assert.ok(ns.subresources.some((x: Loose) => x.subresource === "finalize"));
  });

  it("answers /apis with every group but the core one, agreeing with the legacy list", async () => {
    const r = await call(s.url, "GET", "/apis", undefined, { accept: CLIENT_GO_ACCEPT });
    assert.equal(r.headers.get("content-type"), V2);
    const legacy = (await call(s.url, "GET", "/apis")).body;
    assert.deepEqual(
      r.body.items.map((g: Loose) => [g.metadata.name, g.versions.map((v: Loose) => v.version)]),
      legacy.groups.map((g: Loose) => [g.name, g.versions.map((v: Loose) => v.version)]),
    );
    const apps = r.body.items.find((g: Loose) => g.metadata.name === "apps");
    const deploy = apps.versions[0].resources.find((x: Loose) => x.resource === "deployments");
    // Sorted by name; a built-in subresource's group and version named only where they differ.
    assert.deepEqual(deploy.subresources, [
      {
        subresource: "scale",
        responseKind: { group: "autoscaling", version: "v1", kind: "Scale" },
        verbs: ["get", "patch", "update"],
      },
      {
        subresource: "status",
        responseKind: { group: "", version: "", kind: "Deployment" },
        verbs: ["get", "patch", "update"],
      },
    ]);
  });

  it("serves no v2beta1, as kube-apiserver 1.36: the next range, or 406 when none is left", async () => {
    const v2beta1 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";
    for (const path of ["/api", "/apis"]) {
      const alone = await call(s.url, "GET", path, undefined, { accept: v2beta1 });
      assert.equal(alone.status, 406, path);
      assert.equal(
        alone.body.message,
        "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf",
      );
      const then = await call(s.url, "GET", path, undefined, {
        accept: `${v2beta1},application/json`,
      });
      assert.equal(then.headers.get("content-type"), "application/json", path);
      assert.equal(then.body.kind, path === "/api" ? "APIVersions" : "APIGroupList", path);
    }
  });

  it("keeps the legacy answers for plain JSON and for no Accept header", async () => {
    // fetch sends `Accept: */*` when given none.
    const cases: Record<string, string>[] = [{ accept: "application/json" }, {}];
    for (const headers of cases) {
      const api = await call(s.url, "GET", "/api", undefined, headers);
      assert.equal(api.headers.get("content-type"), "application/json");
      assert.equal(api.body.kind, "APIVersions");
      const apis = await call(s.url, "GET", "/apis", undefined, headers);
      assert.equal(apis.headers.get("content-type"), "application/json");
      assert.equal(apis.body.kind, "APIGroupList");
    }
  });

  it("lists a CRD once it is Established, preferred version first, and drops it once deleted", async () => {
    const discovered = async () => {
      const r = await call(s.url, "GET", "/apis", undefined, { accept: CLIENT_GO_ACCEPT });
      return r.body.items.find((g: Loose) => g.metadata.name === "example.com");
    };
    assert.equal(await discovered(), undefined);
    const created = await call(s.url, "POST", crds, crd);
    assert.equal(created.status, 201);
    await until(s, created.body.metadata.resourceVersion, (e) =>
      e.object.status?.conditions?.some(
        (c: Loose) => c.type === "Established" && c.status === "True",
      ),
    );
    const group = await discovered();
    assert.deepEqual(
      group.versions.map((v: Loose) => v.version),
      ["v1", "v1beta1"],
    );
    const gizmos = group.versions[0].resources[0];
    assert.deepEqual(
      { ...gizmos, subresources: undefined },
      {
        resource: "gizmos",
        responseKind: { group: "example.com", version: "v1", kind: "Gizmo" },
        scope: "Cluster",
        singularResource: "gizmo",
        verbs: gizmos.verbs,
        categories: ["all"],
        subresources: undefined,
      },
    );
    assert.deepEqual(gizmos.subresources, [
      {
        subresource: "status",
        responseKind: { group: "example.com", version: "v1", kind: "Gizmo" },
        verbs: ["get", "patch", "update"],
      },
      {
        subresource: "scale",
        responseKind: { group: "autoscaling", version: "v1", kind: "Scale" },
        verbs: ["get", "patch", "update"],
      },
    ]);
    assert.ok(gizmos.verbs.includes("list") && gizmos.verbs.includes("watch"));
    const deleted = await call(s.url, "DELETE", `${crds}/gizmos.example.com`);
    assert.equal(deleted.status, 200);
    await until(s, deleted.body.metadata.resourceVersion, (e) => e.type === "DELETED");
    assert.equal(await discovered(), undefined);
  });
});
