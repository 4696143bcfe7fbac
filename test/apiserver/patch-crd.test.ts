import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "kontroller/testing";
import { call, configMap, watch } from "./helpers.ts";

const cms = "/api/v1/namespaces/default/configmaps";
const json = { "content-type": "application/json-patch+json" };
const merge = { "content-type": "application/merge-patch+json" };
const smp = { "content-type": "application/strategic-merge-patch+json" };

describe("API server over HTTP: patches", () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ controllers: false });
  });
  after(() => s.close());

  it("applies JSON patches, and refuses failing ones with 422 without changing anything", async () => {
    await call(s.url, "POST", cms, configMap("jp", { data: { a: "1", b: "2" } }));
    const r = await call(
      s.url,
      "PATCH",
      `${cms}/jp`,
      [
        { op: "remove", path: "/data/a" },
        { op: "add", path: "/data/c", value: "3" },
      ],
      json,
    );
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.data, { b: "2", c: "3" });
    const t = await call(
      s.url,
      "PATCH",
      `${cms}/jp`,
      [
        { op: "test", path: "/data/b", value: "nope" },
        { op: "remove", path: "/data/b" },
      ],
      json,
    );
    assert.equal(t.status, 422);
    assert.match(t.body.message, /operation 0 \(test \/data\/b\): testing value failed/);
    assert.deepEqual((await call(s.url, "GET", `${cms}/jp`)).body.data, { b: "2", c: "3" });
    const notArray = await call(s.url, "PATCH", `${cms}/jp`, { op: "add" }, json);
    assert.equal(notArray.status, 400);
    const missing = await call(s.url, "PATCH", `${cms}/nope`, [], json);
    assert.equal(missing.status, 404);
  });

  it("applies merge patches (null deletes) and makes a patch conditional on a resourceVersion in it", async () => {
    const c = (await call(s.url, "POST", cms, configMap("mp", { data: { a: "1", b: "2" } }))).body;
    const r = await call(s.url, "PATCH", `${cms}/mp`, { data: { a: null, z: "9" } }, merge);
    assert.deepEqual(r.body.data, { b: "2", z: "9" });
    const stale = await call(
      s.url,
      "PATCH",
      `${cms}/mp`,
      { metadata: { resourceVersion: c.metadata.resourceVersion }, data: { q: "1" } },
      merge,
    );
    assert.equal(stale.status, 409);
  });

  it("applies strategic merge patches with merge keys and directives to built-in kinds", async () => {
    const pods = "/api/v1/namespaces/default/pods";
    const pod = {
      metadata: { name: "p" },
      spec: {
        containers: [
          { name: "a", image: "a:1", env: [{ name: "X", value: "1" }] },
          { name: "b", image: "b:1" },
        ],
      },
    };
    assert.equal((await call(s.url, "POST", pods, pod)).status, 201);
    const r = await call(
      s.url,
      "PATCH",
      `${pods}/p`,
      { spec: { containers: [{ name: "b", image: "b:2" }] } },
      smp,
    );
    assert.equal(r.status, 200);
    assert.deepEqual(
      r.body.spec.containers.map((c: { name: string; image: string }) => `${c.name}=${c.image}`),
      ["a=a:1", "b=b:2"],
    );
    assert.deepEqual(r.body.spec.containers[0].env, [{ name: "X", value: "1" }]);
    const deploys = "/apis/apps/v1/namespaces/default/deployments";
    const d = {
      metadata: { name: "d" },
      spec: {
        selector: { matchLabels: { a: "b" } },
        template: { metadata: { labels: { a: "b" } }, spec: pod.spec },
      },
    };
    assert.equal((await call(s.url, "POST", deploys, d)).status, 201);
    const del = await call(
      s.url,
      "PATCH",
      `${deploys}/d`,
      {
        metadata: { labels: { x: "y" } },
        spec: {
          template: {
            spec: { containers: [{ name: "a", env: [{ name: "X", $patch: "delete" }] }] },
          },
        },
      },
      smp,
    );
    assert.deepEqual(del.body.spec.template.spec.containers[0].env, []);
    assert.equal(del.body.metadata.labels.x, "y");
    assert.equal(del.body.metadata.generation, 2);
    const order = await call(
      s.url,
      "PATCH",
      `${deploys}/d`,
      {
        spec: {
          template: {
            spec: {
              "$setElementOrder/containers": [{ name: "b" }, { name: "a" }],
              containers: [{ name: "b", image: "b:3" }],
            },
          },
        },
      },
      smp,
    );
    assert.deepEqual(
      order.body.spec.template.spec.containers.map((c: { name: string }) => c.name),
      ["b", "a"],
    );
    const fin = await call(
      s.url,
      "PATCH",
      `${pods}/p`,
      { metadata: { finalizers: ["a.io/x"] } },
      smp,
    );
    const fin2 = await call(
      s.url,
      "PATCH",
      `${pods}/p`,
      { metadata: { finalizers: ["b.io/y"] } },
      smp,
    );
    assert.deepEqual(
      fin2.body.metadata.finalizers,
      ["b.io/y", "a.io/x"],
      "finalizers merge as a set, the added one first (kube's order)",
    );
    assert.equal(fin.status, 200);
    const forbidden = await call(
      s.url,
      "PATCH",
      `${pods}/p`,
      { spec: { restartPolicy: "Never" } },
      smp,
    );
    assert.equal(forbidden.status, 422, "pod specs are mostly immutable");
  });
});

const crd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.example.com" },
  spec: {
    group: "example.com",
    scope: "Namespaced",
    names: { plural: "widgets", singular: "widget", kind: "Widget", shortNames: ["wd"] },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        subresources: {
          status: {},
          scale: {
            specReplicasPath: ".spec.replicas",
            statusReplicasPath: ".status.replicas",
            labelSelectorPath: ".status.selector",
          },
        },
        additionalPrinterColumns: [
          { name: "Replicas", type: "integer", jsonPath: ".spec.replicas" },
          { name: "Color", type: "string", jsonPath: ".spec.color" },
        ],
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                required: ["color"],
                properties: {
                  replicas: { type: "integer", minimum: 0, default: 1 },
                  color: { type: "string", enum: ["red", "blue"] },
                  free: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
                },
              },
              status: {
                type: "object",
                properties: { replicas: { type: "integer" }, selector: { type: "string" } },
              },
            },
          },
        },
      },
      {
        name: "v1beta1",
        served: true,
        storage: false,
        schema: {
          openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
        },
      },
    ],
  },
};

describe("API server over HTTP: custom resources", () => {
  let s: TestServer;
  const widgets = "/apis/example.com/v1/namespaces/default/widgets";
  before(async () => {
    s = await startTestServer({ controllers: false });
    const r = await call(
      s.url,
      "POST",
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
      crd,
    );
    assert.equal(r.status, 201);
    const w = await watch(
      s.url,
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions?watch=1&fieldSelector=metadata.name%3Dwidgets.example.com",
    );
    for (;;) {
      const e = await w.next();
      if (
        e.object.status?.conditions?.some(
          (c: { type: string; status: string }) => c.type === "Established" && c.status === "True",
        )
      )
        break;
    }
    w.close();
  });
  after(() => s.close());

  it("establishes the CRD: conditions, accepted names, stored versions and discovery", async () => {
    const got = (
      await call(
        s.url,
        "GET",
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com",
      )
    ).body;
    const conds = Object.fromEntries(
      got.status.conditions.map((c: { type: string; reason: string }) => [c.type, c.reason]),
    );
    assert.deepEqual(conds, { NamesAccepted: "NoConflicts", Established: "InitialNamesAccepted" });
    assert.equal(got.status.acceptedNames.kind, "Widget");
    assert.deepEqual(got.status.storedVersions, ["v1"]);
    // kube adds the cleanup finalizer as deletion starts, not on create.
    assert.equal(got.metadata.finalizers, undefined);
    const d = await call(s.url, "GET", "/apis/example.com/v1");
    const names = d.body.resources.map((r: { name: string }) => r.name);
    assert.deepEqual(names, ["widgets", "widgets/status", "widgets/scale"]);
    const g = await call(s.url, "GET", "/apis/example.com");
    assert.equal(g.body.preferredVersion.version, "v1");
  });

  it("validates against the schema with field paths, prunes unknown fields and applies defaults", async () => {
    const bad = await call(s.url, "POST", widgets, {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "bad" },
      spec: { color: "green", replicas: "many" },
    });
    assert.equal(bad.status, 422);
    const fields = bad.body.details.causes.map((c: { field: string }) => c.field).sort();
    assert.deepEqual(fields, ["spec.color", "spec.replicas"]);
    assert.match(bad.body.message, /^Widget.example.com "bad" is invalid/);
    const ok = await call(s.url, "POST", widgets, {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w" },
      spec: { color: "red", junk: 1, free: { any: { thing: 1 } } },
      status: { replicas: 4 },
    });
    assert.equal(ok.status, 201);
    assert.deepEqual(ok.body.spec, { color: "red", free: { any: { thing: 1 } }, replicas: 1 });
    assert.equal(
      ok.body.status,
      undefined,
      "status is dropped on create with the status subresource",
    );
    assert.equal(ok.body.metadata.generation, 1);
    const strict = await call(s.url, "POST", `${widgets}?fieldValidation=Strict`, {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "s" },
      spec: { color: "red", junk: 1 },
    });
    assert.equal(strict.status, 400);
    assert.match(strict.body.message, /strict decoding error: unknown field "spec.junk"/);
  });

  it("needs resourceVersion on update, refuses strategic merge patch, and serves status and scale", async () => {
    const w = (await call(s.url, "GET", `${widgets}/w`)).body;
    const { resourceVersion: _, ...meta } = w.metadata;
    const unconditional = await call(s.url, "PUT", `${widgets}/w`, { ...w, metadata: meta });
    assert.equal(unconditional.status, 422);
    assert.match(unconditional.body.message, /must be specified for an update/);
    const smpR = await call(s.url, "PATCH", `${widgets}/w`, { spec: { color: "blue" } }, smp);
    assert.equal(smpR.status, 415);
    const st = await call(
      s.url,
      "PATCH",
      `${widgets}/w/status`,
      { status: { replicas: 2, junk: true }, spec: { color: "blue" } },
      merge,
    );
    assert.deepEqual(st.body.status, { replicas: 2 }, "a status write is pruned too");
    assert.equal(st.headers.get("warning"), '299 - "unknown field \\"status.junk\\""');
    assert.equal(st.body.spec.color, "red", "/status changes only status");
    assert.equal(st.body.metadata.generation, 1);
    const sp = await call(s.url, "PATCH", `${widgets}/w`, { spec: { color: "blue" } }, merge);
    assert.equal(sp.body.metadata.generation, 2);
    const scale = await call(s.url, "GET", `${widgets}/w/scale`);
    assert.deepEqual(
      { kind: scale.body.kind, spec: scale.body.spec, status: scale.body.status },
      { kind: "Scale", spec: { replicas: 1 }, status: { replicas: 2 } },
    );
    const scaled = await call(
      s.url,
      "PATCH",
      `${widgets}/w/scale`,
      { spec: { replicas: 5 } },
      merge,
    );
    assert.equal(scaled.body.spec.replicas, 5);
    assert.equal((await call(s.url, "GET", `${widgets}/w`)).body.spec.replicas, 5);
    // labelSelectorPath: the status' selector, as the Scale's status.selector string.
    await call(s.url, "PATCH", `${widgets}/w/status`, { status: { selector: "app=w" } }, merge);
    const selected = await call(s.url, "GET", `${widgets}/w/scale`);
    assert.deepEqual(selected.body.status, { replicas: 2, selector: "app=w" });
  });

  it("serves every served version from the storage version and prints the CRD's columns", async () => {
    const beta = await call(s.url, "GET", "/apis/example.com/v1beta1/namespaces/default/widgets/w");
    assert.equal(beta.body.apiVersion, "example.com/v1beta1");
    const list = await call(s.url, "GET", "/apis/example.com/v1beta1/widgets");
    assert.equal(list.body.items[0].apiVersion, "example.com/v1beta1");
    const t = await call(s.url, "GET", widgets, undefined, {
      accept: "application/json;as=Table;v=v1;g=meta.k8s.io",
    });
    assert.deepEqual(
      t.body.columnDefinitions.map((c: { name: string }) => c.name),
      ["Name", "Replicas", "Color"],
    );
    assert.deepEqual(t.body.rows[0].cells, ["w", 5, "blue"]);
    const fs = await call(s.url, "GET", `${widgets}?fieldSelector=spec.color%3Dred`);
    assert.equal(fs.status, 400);
    assert.equal(fs.body.message, "field label not supported: spec.color");
  });

  it("refuses invalid CRDs with 422 and field paths", async () => {
    const bad = structuredClone(crd);
    bad.metadata.name = "wrong.example.com";
    bad.spec.versions[1]!.storage = true;
    const r = await call(
      s.url,
      "POST",
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
      bad,
    );
    assert.equal(r.status, 422);
    const fields = r.body.details.causes.map((c: { field: string }) => c.field);
    assert.ok(fields.includes("metadata.name"));
    assert.ok(fields.includes("spec.versions"));
  });

  it("stops serving and removes the custom resources when the CRD is deleted", async () => {
    const path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    const rv = (await call(s.url, "GET", `${path}/widgets.example.com`)).body.metadata
      .resourceVersion;
    const w = await watch(s.url, `${path}?watch=1&resourceVersion=${rv}`);
    const d = await call(s.url, "DELETE", `${path}/widgets.example.com`);
    assert.equal(d.status, 200);
    assert.ok(d.body.metadata.deletionTimestamp, "the cleanup finalizer holds it first");
    for (;;) {
      const e = await w.next();
      assert.ok(e !== undefined, "the watch ended before the CRD was deleted");
      if (e.type === "DELETED") break;
    }
    w.close();
    assert.equal((await call(s.url, "GET", widgets)).status, 404);
    assert.equal(
      (await s.server.registry.storage.list("/registry/example.com/widgets/")).kvs.length,
      0,
    );
  });
});
