/**
 * Write semantics over HTTP that the other suites leave out: write options, dry runs of every
 * verb, generic metadata validation, what deletion does to generation and deletionTimestamp,
 * and what watchers see of a deletion held by a finalizer.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "kontroller/testing";
import { call, cond, configMap, crdUntil, watch } from "./helpers.ts";

const cms = "/api/v1/namespaces/default/configmaps";
const deploys = "/apis/apps/v1/namespaces/default/deployments";
const merge = { "content-type": "application/merge-patch+json" };

function deployment(name: string, finalizers?: string[]) {
  return {
    metadata: { name, ...(finalizers ? { finalizers } : {}) },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: "c", image: "nginx:1" }] },
      },
    },
  };
}

describe("API server over HTTP: write options", () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ controllers: false });
    await call(s.url, "POST", cms, configMap("opts"));
  });
  after(() => s.close());

  it("refuses bad write options with 422 on the options kind", async () => {
    const force = await call(s.url, "PATCH", `${cms}/opts?force=true`, { data: { a: "1" } }, merge);
    assert.equal(force.status, 422);
    assert.equal(
      force.body.message,
      'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
    );
    const validation = await call(
      s.url,
      "PUT",
      `${cms}/opts?fieldValidation=Loose`,
      configMap("opts"),
    );
    assert.equal(validation.status, 422);
    assert.equal(validation.body.details.kind, "UpdateOptions");
    assert.equal(validation.body.details.causes[0].field, "fieldValidation");
    const manager = await call(
      s.url,
      "POST",
      `${cms}?fieldManager=${"m".repeat(129)}`,
      configMap("m"),
    );
    assert.equal(manager.status, 422);
    assert.equal(manager.body.details.causes[0].field, "fieldManager");
    const policy = await call(s.url, "DELETE", `${cms}/opts`, { dryRun: ["Sometimes"] });
    assert.equal(policy.status, 422);
    assert.equal(policy.body.details.kind, "DeleteOptions");
    assert.equal((await call(s.url, "GET", `${cms}/opts`)).status, 200, "nothing was written");
  });

  it("dry-runs updates, patches and deletes (query or DeleteOptions body) without storing", async () => {
    const c = (await call(s.url, "GET", `${cms}/opts`)).body;
    const rv = c.metadata.resourceVersion;
    const u = await call(s.url, "PUT", `${cms}/opts?dryRun=All`, { ...c, data: { k: "dry" } });
    assert.equal(u.status, 200);
    assert.deepEqual(u.body.data, { k: "dry" }, "the answer is the object as it would be");
    const bad = await call(s.url, "PUT", `${cms}/opts?dryRun=All`, {
      ...c,
      metadata: { ...c.metadata, labels: { "a b": "x" } },
    });
    assert.equal(bad.status, 422, "a dry run validates");
    const p = await call(s.url, "PATCH", `${cms}/opts?dryRun=All`, { data: { p: "1" } }, merge);
    assert.equal(p.status, 200);
    assert.equal(p.body.data.p, "1");
    const d1 = await call(s.url, "DELETE", `${cms}/opts?dryRun=All`);
    assert.equal(d1.status, 200);
    const d2 = await call(s.url, "DELETE", `${cms}/opts`, {
      kind: "DeleteOptions",
      apiVersion: "v1",
      dryRun: ["All"],
    });
    assert.equal(d2.status, 200);
    const after = await call(s.url, "GET", `${cms}/opts`);
    assert.equal(after.status, 200);
    assert.equal(after.body.metadata.resourceVersion, rv);
    assert.deepEqual(after.body.data, { k: "v" });
    const exists = await call(s.url, "POST", `${cms}?dryRun=All`, configMap("opts"));
    assert.equal(exists.status, 409, "a dry-run create still hits AlreadyExists");
  });

  it("refuses a Table on a write with 406", async () => {
    const r = await call(s.url, "POST", cms, configMap("table"), {
      accept: "application/json;as=Table;v=v1;g=meta.k8s.io",
    });
    assert.equal(r.status, 406);
    assert.equal(r.body.reason, "NotAcceptable");
    assert.equal((await call(s.url, "GET", `${cms}/table`)).status, 404);
  });
});

describe("API server over HTTP: unknown fields of built-in kinds", () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ controllers: false });
  });
  after(() => s.close());

  const typo = (name: string) => ({
    metadata: { name, colour: "red" },
    data: { k: "v" },
    dat: { k: "typo" },
  });

  it("drops them with a warning by default, refuses them with Strict, ignores them with Ignore", async () => {
    const warned = await call(s.url, "POST", cms, typo("warned"));
    assert.equal(warned.status, 201);
    assert.equal(
      warned.headers.get("warning"),
      '299 - "unknown field \\"metadata.colour\\"", 299 - "unknown field \\"dat\\""',
    );
    assert.equal(warned.body.dat, undefined);
    assert.equal(warned.body.metadata.colour, undefined);
    const stored = await call(s.url, "GET", `${cms}/warned`);
    assert.deepEqual(Object.keys(stored.body).sort(), ["apiVersion", "data", "kind", "metadata"]);
    const strict = await call(s.url, "POST", `${cms}?fieldValidation=Strict`, typo("strict"));
    assert.equal(strict.status, 400);
    assert.equal(
      strict.body.message,
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "metadata.colour", unknown field "dat"',
    );
    assert.equal((await call(s.url, "GET", `${cms}/strict`)).status, 404);
    const ignored = await call(s.url, "POST", `${cms}?fieldValidation=Ignore`, typo("ignored"));
    assert.equal(ignored.status, 201);
    assert.equal(ignored.headers.get("warning"), null);
    assert.equal(ignored.body.dat, undefined);
  });

  it("finds them deep in a pod spec and in patches; known fields and maps stay", async () => {
    const pods = "/api/v1/namespaces/default/pods";
    const pod = {
      metadata: { name: "p", labels: { any: "label" } },
      spec: {
        nodeSelector: { "any/key": "v" },
        containers: [
          {
            name: "c",
            image: "i",
            imagePullPolicyy: "Always",
            resources: { limits: { cpu: "1" } },
            env: [{ name: "A", value: "1", valueFromm: {} }],
          },
        ],
      },
    };
    const strict = await call(s.url, "POST", `${pods}?fieldValidation=Strict`, pod);
    assert.equal(strict.status, 400);
    assert.match(
      strict.body.message,
      /unknown field "spec.containers\[0\].imagePullPolicyy", unknown field "spec.containers\[0\].env\[0\].valueFromm"$/,
    );
    const created = await call(s.url, "POST", pods, pod);
    assert.equal(created.status, 201);
    const c = created.body.spec.containers[0];
    assert.equal(c.imagePullPolicyy, undefined);
    assert.deepEqual(c.env, [{ name: "A", value: "1" }]);
    assert.deepEqual(c.resources.limits, { cpu: "1" });
    assert.deepEqual(created.body.spec.nodeSelector, { "any/key": "v" });
    const patch = await call(
      s.url,
      "PATCH",
      `${cms}/warned?fieldValidation=Strict`,
      { dataa: { x: "1" } },
      merge,
    );
    assert.equal(patch.status, 400);
    assert.match(patch.body.message, /strict decoding error: unknown field "dataa"/);
    const warnedPatch = await call(s.url, "PATCH", `${cms}/warned`, { dataa: { x: "1" } }, merge);
    assert.equal(warnedPatch.status, 200);
    assert.equal(warnedPatch.headers.get("warning"), '299 - "unknown field \\"dataa\\""');
    assert.equal(warnedPatch.body.dataa, undefined);
  });
});

describe("API server over HTTP: duplicate fields", () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ controllers: false });
  });
  after(() => s.close());

  // JSON.parse keeps the last of two equal keys; kube's strict decoder names each repeat.
  const twice = (name: string) =>
    `{"metadata":{"name":"${name}","labels":{"a":"1","a":"2"}},"data":{"k":"v"},"data":{"k":"w"}}`;

  it("warns about them by default, refuses them with Strict, ignores them with Ignore", async () => {
    const warned = await call(s.url, "POST", cms, twice("dup-warned"));
    assert.equal(warned.status, 201);
    assert.equal(
      warned.headers.get("warning"),
      '299 - "duplicate field \\"metadata.labels.a\\"", 299 - "duplicate field \\"data\\""',
    );
    assert.deepEqual(warned.body.data, { k: "w" }, "the last one counts, as in kube");
    const strict = await call(s.url, "POST", `${cms}?fieldValidation=Strict`, twice("dup-strict"));
    assert.equal(strict.status, 400);
    assert.equal(strict.body.reason, "BadRequest");
    assert.equal(
      strict.body.message,
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "metadata.labels.a", duplicate field "data"',
    );
    assert.equal((await call(s.url, "GET", `${cms}/dup-strict`)).status, 404, "nothing stored");
    const ignored = await call(s.url, "POST", `${cms}?fieldValidation=Ignore`, twice("dup-ign"));
    assert.equal(ignored.status, 201);
    assert.equal(ignored.headers.get("warning"), null);
  });

  it("counts with unknown fields, in updates, and in merge patches but not JSON patches", async () => {
    const put = await call(
      s.url,
      "PUT",
      `${cms}/dup-warned?fieldValidation=Strict`,
      '{"metadata":{"name":"dup-warned"},"dat":{},"data":{"x":"1","x":"2"}}',
    );
    assert.equal(put.status, 400);
    assert.match(
      put.body.message,
      /strict decoding error: unknown field "dat", duplicate field "data.x"$/,
    );
    const patch = await call(
      s.url,
      "PATCH",
      `${cms}/dup-warned?fieldValidation=Strict`,
      '{"data":{"x":"1","x":"2"}}',
      merge,
    );
    assert.equal(patch.status, 400);
    assert.match(patch.body.message, /strict decoding error: duplicate field "data.x"$/);
    const ops = await call(
      s.url,
      "PATCH",
      `${cms}/dup-warned?fieldValidation=Strict`,
      '[{"op":"add","path":"/data/y","value":"1","value":"2"}]',
      { "content-type": "application/json-patch+json" },
    );
    assert.equal(ops.status, 200);
    assert.equal(ops.body.data.y, "2");
  });

  it("reports them for custom resources too", async () => {
    const crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    const crd = {
      metadata: { name: "gadgets.example.com" },
      spec: {
        group: "example.com",
        scope: "Namespaced",
        names: { plural: "gadgets", singular: "gadget", kind: "Gadget", listKind: "GadgetList" },
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: "object",
                properties: {
                  spec: { type: "object", properties: { size: { type: "integer" } } },
                },
              },
            },
          },
        ],
      },
    };
    assert.equal((await call(s.url, "POST", crds, crd)).status, 201);
    await crdUntil(s.url, "gadgets.example.com", (o) => cond(o, "Established")?.status === "True");
    const gadgets = "/apis/example.com/v1/namespaces/default/gadgets";
    const body =
      '{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g"},"spec":{"size":1,"size":2}}';
    const strict = await call(s.url, "POST", `${gadgets}?fieldValidation=Strict`, body);
    assert.equal(strict.status, 400);
    assert.match(
      strict.body.message,
      /^Gadget in version "v1" cannot be handled as a Gadget: strict decoding error: duplicate field "spec.size"$/,
    );
  });
});

describe("API server over HTTP: metadata", () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ controllers: false });
  });
  after(() => s.close());

  it("validates annotations, finalizers and owner references with field paths", async () => {
    const owner = { apiVersion: "v1", kind: "ConfigMap", name: "o", uid: "u1", controller: true };
    const r = await call(s.url, "POST", cms, {
      metadata: {
        name: "meta",
        annotations: { big: "x".repeat(256 * 1024) },
        finalizers: ["not a qualified name"],
        ownerReferences: [owner, { ...owner, uid: "u2" }, { kind: "ConfigMap", name: "p" }],
      },
    });
    assert.equal(r.status, 422);
    const fields = r.body.details.causes.map((c: { field: string }) => c.field).sort();
    assert.deepEqual(fields, [
      "metadata.annotations",
      "metadata.finalizers[0]",
      "metadata.ownerReferences",
      "metadata.ownerReferences[2].apiVersion",
      "metadata.ownerReferences[2].uid",
    ]);
  });

  it("overwrites uid and creationTimestamp on create and clears a namespace on a cluster-scoped object", async () => {
    const r = await call(s.url, "POST", "/api/v1/namespaces", {
      metadata: {
        name: "sys",
        namespace: "default",
        uid: "mine",
        creationTimestamp: "2000-01-01T00:00:00Z",
      },
    });
    assert.equal(r.status, 201);
    assert.equal(r.body.metadata.namespace, undefined);
    assert.notEqual(r.body.metadata.uid, "mine");
    assert.notEqual(r.body.metadata.creationTimestamp, "2000-01-01T00:00:00Z");
  });

  it("lets built-ins update without a resourceVersion, but not CRDs", async () => {
    const c = (await call(s.url, "POST", cms, configMap("uncond"))).body;
    const { resourceVersion: _, ...meta } = c.metadata;
    const u = await call(s.url, "PUT", `${cms}/uncond`, { ...c, metadata: meta, data: { k: "2" } });
    assert.equal(u.status, 200);
    assert.deepEqual(u.body.data, { k: "2" });
    const crd = await call(
      s.url,
      "POST",
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
      {
        metadata: { name: "nos.example.com" },
        spec: {
          group: "example.com",
          scope: "Cluster",
          names: { plural: "nos", kind: "No" },
          versions: [
            {
              name: "v1",
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: "object" } },
            },
          ],
        },
      },
    );
    assert.equal(crd.status, 201);
    const { resourceVersion: _r, ...crdMeta } = crd.body.metadata;
    const put = await call(
      s.url,
      "PUT",
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/nos.example.com",
      { ...crd.body, metadata: crdMeta },
    );
    assert.equal(put.status, 422);
    assert.match(
      put.body.message,
      /metadata.resourceVersion: Invalid value: 0x0: must be specified for an update/,
    );
  });
});

describe("API server over HTTP: deletion", () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ controllers: false });
  });
  after(() => s.close());

  it("bumps generation once when deletion starts; a second DELETE keeps the timestamp", async () => {
    const c = await call(s.url, "POST", deploys, deployment("gen", ["example.com/hold"]));
    assert.equal(c.body.metadata.generation, 1);
    const d1 = await call(s.url, "DELETE", `${deploys}/gen`);
    assert.equal(d1.status, 200);
    assert.equal(d1.body.metadata.generation, 2);
    assert.equal(d1.body.metadata.deletionGracePeriodSeconds, 0);
    const d2 = await call(s.url, "DELETE", `${deploys}/gen`);
    assert.equal(d2.status, 200);
    assert.equal(d2.body.metadata.deletionTimestamp, d1.body.metadata.deletionTimestamp);
    assert.equal(d2.body.metadata.generation, 2);
    assert.equal(d2.body.metadata.resourceVersion, d1.body.metadata.resourceVersion, "no write");
    const again = await call(s.url, "POST", deploys, deployment("gen"));
    assert.equal(again.status, 409);
    assert.equal(
      again.body.message,
      'object is being deleted: deployments.apps "gen" already exists',
    );
  });

  it("answers 202 to a cascading delete (orphanDependents=false) that finalizers hold", async () => {
    await call(
      s.url,
      "POST",
      cms,
      configMap("held", { metadata: { name: "held", finalizers: ["x.io/y"] } }),
    );
    const d = await call(s.url, "DELETE", `${cms}/held`, { orphanDependents: false });
    assert.equal(d.status, 202);
    assert.ok(d.body.metadata.deletionTimestamp);
    await call(s.url, "POST", cms, configMap("free"));
    const gone = await call(s.url, "DELETE", `${cms}/free?orphanDependents=false`);
    assert.equal(gone.status, 200, "deleted at once: 200");
  });

  it("shows watchers MODIFIED when deletion starts and DELETED, at the deletion's resourceVersion, once the finalizer goes", async () => {
    await call(
      s.url,
      "POST",
      cms,
      configMap("w", { metadata: { name: "w", finalizers: ["x.io/y"] } }),
    );
    const rv = (await call(s.url, "GET", cms)).body.metadata.resourceVersion;
    const w = await watch(
      s.url,
      `${cms}?watch=1&resourceVersion=${rv}&fieldSelector=metadata.name%3Dw`,
    );
    await call(s.url, "DELETE", `${cms}/w`);
    const unheld = await call(
      s.url,
      "PATCH",
      `${cms}/w`,
      { metadata: { finalizers: null } },
      merge,
    );
    assert.equal(unheld.status, 200);
    const marked = await w.next();
    const deleted = await w.next();
    assert.equal(marked.type, "MODIFIED");
    assert.ok(marked.object.metadata.deletionTimestamp);
    assert.equal(deleted.type, "DELETED");
    assert.equal(deleted.object.metadata.resourceVersion, unheld.body.metadata.resourceVersion);
    assert.ok(
      Number(deleted.object.metadata.resourceVersion) >
        Number(marked.object.metadata.resourceVersion),
    );
    w.close();
    assert.equal((await call(s.url, "GET", `${cms}/w`)).status, 404);
  });
});
