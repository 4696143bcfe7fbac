import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "kontroller/testing";
import { call, configMap } from "./helpers.ts";

describe("API server over HTTP: discovery and health", () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ controllers: false });
  });
  after(() => s.close());

  it("serves /version, /api, /apis, group and resource lists, and health checks", async () => {
    const v = await call(s.url, "GET", "/version");
    assert.match(v.body.gitVersion, /^v1\.36\.\d+/);
    const api = await call(s.url, "GET", "/api");
    assert.deepEqual(api.body.versions, ["v1"]);
    const apis = await call(s.url, "GET", "/apis");
    const names = apis.body.groups.map((g: { name: string }) => g.name);
    for (const g of ["apps", "coordination.k8s.io", "events.k8s.io", "apiextensions.k8s.io"])
      assert.ok(names.includes(g), g);
    assert.ok(!names.includes(""), "the core group is only under /api");
    const core = await call(s.url, "GET", "/api/v1");
    const cm = core.body.resources.find((r: { name: string }) => r.name === "configmaps");
    assert.deepEqual(
      { kind: cm.kind, namespaced: cm.namespaced, singular: cm.singularName, short: cm.shortNames },
      { kind: "ConfigMap", namespaced: true, singular: "configmap", short: ["cm"] },
    );
    assert.ok(cm.verbs.includes("watch") && cm.verbs.includes("deletecollection"));
    assert.ok(core.body.resources.some((r: { name: string }) => r.name === "namespaces/finalize"));
    assert.equal((await call(s.url, "GET", "/apis/apps")).body.preferredVersion.version, "v1");
    assert.equal((await call(s.url, "GET", "/apis/apps/v1")).body.groupVersion, "apps/v1");
    for (const p of ["/healthz", "/livez", "/readyz"]) {
      const h = await call(s.url, "GET", p);
      assert.equal(h.status, 200);
      assert.equal(h.body, "ok");
    }
  });

  it("answers unknown paths and resources with a 404 Status", async () => {
    for (const p of ["/nope", "/api/v1/widgets", "/apis/nope/v1", "/apis/apps/v9/deployments"]) {
      const r = await call(s.url, "GET", p);
      assert.equal(r.status, 404, p);
      assert.equal(r.body.kind, "Status");
      assert.equal(r.body.reason, "NotFound");
    }
  });

  it("pre-creates the system namespaces with their label, finalizer and phase", async () => {
    const r = await call(s.url, "GET", "/api/v1/namespaces");
    const names = r.body.items.map((n: { metadata: { name: string } }) => n.metadata.name);
    assert.deepEqual(names, ["default", "kube-node-lease", "kube-public", "kube-system"]);
    const d = r.body.items[0];
    assert.equal(d.metadata.labels["kubernetes.io/metadata.name"], "default");
    assert.deepEqual(d.spec.finalizers, ["kubernetes"]);
    assert.equal(d.status.phase, "Active");
  });
});

describe("API server over HTTP: writes", () => {
  let s: TestServer;
  const cms = "/api/v1/namespaces/default/configmaps";
  before(async () => {
    s = await startTestServer({ controllers: false });
  });
  after(() => s.close());

  it("creates with uid, creationTimestamp and a resourceVersion from the storage revision", async () => {
    const r = await call(s.url, "POST", cms, configMap("meta"));
    assert.equal(r.status, 201);
    const m = r.body.metadata;
    assert.match(m.uid, /^[0-9a-f-]{36}$/);
    assert.match(m.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.match(m.resourceVersion, /^[1-9]\d*$/);
    assert.equal(m.namespace, "default");
    assert.equal(m.generation, undefined, "configmaps do not track generation");
    const again = await call(s.url, "POST", cms, configMap("meta"));
    assert.equal(again.status, 409);
    assert.equal(again.body.reason, "AlreadyExists");
    assert.equal(again.body.message, 'configmaps "meta" already exists');
  });

  it("generates names from generateName", async () => {
    const r = await call(s.url, "POST", cms, { metadata: { generateName: "gen-" }, data: {} });
    assert.equal(r.status, 201);
    assert.match(r.body.metadata.name, /^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    // A long generateName is cut to 58 characters before the suffix: a 63-character name.
    const long = "x".repeat(70);
    const cut = await call(s.url, "POST", cms, { metadata: { generateName: long }, data: {} });
    assert.equal(cut.status, 201);
    assert.match(
      cut.body.metadata.name,
      new RegExp(`^${"x".repeat(58)}[bcdfghjklmnpqrstvwxz2456789]{5}$`),
    );
    assert.equal(cut.body.metadata.generateName, long);
  });

  it("refuses invalid objects with 422 and field-path causes", async () => {
    const r = await call(s.url, "POST", cms, {
      metadata: { name: "Bad_Name", labels: { "a b": "x" } },
      data: { "bad key!": "v" },
    });
    assert.equal(r.status, 422);
    assert.equal(r.body.reason, "Invalid");
    assert.equal(r.body.details.kind, "ConfigMap");
    const fields = r.body.details.causes.map((c: { field: string }) => c.field);
    assert.deepEqual(fields.sort(), ["data[bad key!]", "metadata.labels", "metadata.name"]);
    assert.match(r.body.message, /^ConfigMap "Bad_Name" is invalid: \[/);
    const noName = await call(s.url, "POST", cms, { data: {} });
    assert.equal(noName.status, 422);
    assert.match(
      noName.body.message,
      /metadata.name: Required value: name or generateName is required/,
    );
  });

  it("refuses a resourceVersion on create, a namespace mismatch and a wrong apiVersion", async () => {
    const rv = await call(s.url, "POST", cms, { metadata: { name: "x", resourceVersion: "5" } });
    assert.equal(rv.status, 500);
    assert.match(rv.body.message, /resourceVersion should not be set on objects to be created/);
    const ns = await call(s.url, "POST", cms, { metadata: { name: "x", namespace: "other" } });
    assert.equal(ns.status, 400);
    assert.match(ns.body.message, /does not match the namespace sent on the request/);
    const av = await call(s.url, "POST", cms, {
      apiVersion: "apps/v1",
      kind: "ConfigMap",
      metadata: { name: "x" },
    });
    // apps/v1 has no ConfigMap: kube's decoder does not know the type the body declares.
    assert.equal(av.status, 400);
    assert.equal(
      av.body.message,
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version "apps/v1" in scheme "pkg/api/legacyscheme/scheme.go:30"',
    );
  });

  it("updates with optimistic concurrency: 409 on a stale resourceVersion; no-op writes keep it", async () => {
    const c = (await call(s.url, "POST", cms, configMap("occ"))).body;
    const u1 = await call(s.url, "PUT", `${cms}/occ`, { ...c, data: { k: "2" } });
    assert.equal(u1.status, 200);
    assert.ok(Number(u1.body.metadata.resourceVersion) > Number(c.metadata.resourceVersion));
    const stale = await call(s.url, "PUT", `${cms}/occ`, { ...c, data: { k: "3" } });
    assert.equal(stale.status, 409);
    assert.equal(stale.body.reason, "Conflict");
    assert.match(
      stale.body.message,
      /the object has been modified; please apply your changes to the latest version and try again/,
    );
    const same = await call(s.url, "PUT", `${cms}/occ`, u1.body);
    assert.equal(same.body.metadata.resourceVersion, u1.body.metadata.resourceVersion);
    const uid = await call(s.url, "PUT", `${cms}/occ`, {
      ...u1.body,
      metadata: { ...u1.body.metadata, uid: "changed" },
    });
    assert.equal(uid.status, 422);
    const missing = await call(s.url, "PUT", `${cms}/nope`, configMap("nope"));
    assert.equal(missing.status, 404);
    const mismatch = await call(s.url, "PUT", `${cms}/occ`, configMap("other"));
    assert.equal(mismatch.status, 400);
  });

  it("dryRun=All validates and answers without storing", async () => {
    const r = await call(s.url, "POST", `${cms}?dryRun=All`, configMap("dry"));
    assert.equal(r.status, 201);
    assert.equal((await call(s.url, "GET", `${cms}/dry`)).status, 404);
    const bad = await call(s.url, "POST", `${cms}?dryRun=Maybe`, configMap("dry"));
    assert.equal(bad.status, 422);
    assert.equal(
      bad.body.message,
      'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Maybe"]: supported values: "All"',
    );
  });

  it("keeps an object with finalizers until they are removed; no finalizer may be added while deleting", async () => {
    await call(
      s.url,
      "POST",
      cms,
      configMap("fin", { metadata: { name: "fin", finalizers: ["example.com/keep"] } }),
    );
    const d = await call(s.url, "DELETE", `${cms}/fin`);
    assert.equal(d.status, 200);
    assert.ok(d.body.metadata.deletionTimestamp, "the object comes back marked");
    const got = (await call(s.url, "GET", `${cms}/fin`)).body;
    assert.equal(got.metadata.deletionTimestamp, d.body.metadata.deletionTimestamp);
    const add = await call(s.url, "PUT", `${cms}/fin`, {
      ...got,
      metadata: { ...got.metadata, finalizers: ["example.com/keep", "example.com/new"] },
    });
    assert.equal(add.status, 422);
    assert.match(add.body.message, /no new finalizers can be added if the object is being deleted/);
    const remove = await call(s.url, "PUT", `${cms}/fin`, {
      ...got,
      metadata: { ...got.metadata, finalizers: [] },
    });
    assert.equal(remove.status, 200);
    assert.equal((await call(s.url, "GET", `${cms}/fin`)).status, 404);
  });

  it("maps propagationPolicy to the orphan and foregroundDeletion finalizers", async () => {
    await call(s.url, "POST", cms, configMap("orphan"));
    const o = await call(s.url, "DELETE", `${cms}/orphan`, { propagationPolicy: "Orphan" });
    assert.deepEqual(o.body.metadata.finalizers, ["orphan"]);
    await call(s.url, "POST", cms, configMap("fg"));
    const f = await call(s.url, "DELETE", `${cms}/fg?propagationPolicy=Foreground`);
    assert.deepEqual(f.body.metadata.finalizers, ["foregroundDeletion"]);
    await call(s.url, "POST", cms, configMap("bg"));
    const b = await call(s.url, "DELETE", `${cms}/bg`, { propagationPolicy: "Background" });
    assert.equal(b.body.kind, "Status");
    assert.equal(b.body.status, "Success");
    assert.equal(b.body.details.name, "bg");
    const bad = await call(s.url, "DELETE", `${cms}/fg`, { propagationPolicy: "Sideways" });
    assert.equal(bad.status, 422);
  });

  it("checks delete preconditions", async () => {
    const c = (await call(s.url, "POST", cms, configMap("pre"))).body;
    const r = await call(s.url, "DELETE", `${cms}/pre`, { preconditions: { uid: "someone-else" } });
    assert.equal(r.status, 409);
    assert.match(r.body.message, /Precondition failed: UID in precondition/);
    const ok = await call(s.url, "DELETE", `${cms}/pre`, {
      preconditions: { uid: c.metadata.uid },
    });
    assert.equal(ok.status, 200);
  });

  it("deletes a collection by selector", async () => {
    await call(s.url, "POST", "/api/v1/namespaces", { metadata: { name: "dc" } });
    for (const n of ["a", "b", "c"])
      await call(
        s.url,
        "POST",
        "/api/v1/namespaces/dc/configmaps",
        configMap(n, {}, { group: n === "c" ? "keep" : "drop" }),
      );
    const r = await call(
      s.url,
      "DELETE",
      "/api/v1/namespaces/dc/configmaps?labelSelector=group%3Ddrop",
    );
    assert.equal(r.status, 200);
    assert.equal(r.body.kind, "ConfigMapList");
    assert.equal(r.body.items.length, 2);
    const left = await call(s.url, "GET", "/api/v1/namespaces/dc/configmaps");
    assert.deepEqual(
      left.body.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      ["c"],
    );
  });

  it("tracks generation for kinds with a status subresource; the main endpoint ignores status", async () => {
    const deploy = {
      metadata: { name: "web" },
      spec: {
        selector: { matchLabels: { app: "web" } },
        template: {
          metadata: { labels: { app: "web" } },
          spec: { containers: [{ name: "c", image: "nginx:1" }] },
        },
      },
      status: { replicas: 5 },
    };
    const path = "/apis/apps/v1/namespaces/default/deployments";
    const c = await call(s.url, "POST", path, deploy);
    assert.equal(c.status, 201);
    assert.equal(c.body.metadata.generation, 1);
    assert.deepEqual(c.body.status, {}, "create replaces the status sent, as kube does");
    assert.equal(c.body.spec.replicas, 1, "defaulted");
    const st = await call(s.url, "PUT", `${path}/web/status`, {
      ...c.body,
      spec: { ...c.body.spec, replicas: 9 },
      status: { replicas: 1 },
    });
    assert.equal(st.status, 200);
    assert.equal(st.body.status.replicas, 1);
    assert.equal(st.body.spec.replicas, 1, "/status ignores spec");
    assert.equal(st.body.metadata.generation, 1);
    const sp = await call(s.url, "PUT", `${path}/web`, {
      ...st.body,
      spec: { ...st.body.spec, replicas: 3 },
      status: { replicas: 7 },
    });
    assert.equal(sp.body.metadata.generation, 2);
    assert.equal(sp.body.status.replicas, 1, "the main endpoint keeps the stored status");
    const invalid = await call(s.url, "POST", path, {
      metadata: { name: "bad" },
      spec: {
        selector: { matchLabels: { app: "x" } },
        template: { metadata: { labels: { app: "y" } }, spec: { containers: [{ name: "c" }] } },
      },
    });
    assert.equal(invalid.status, 422);
    const fields = invalid.body.details.causes.map((c: { field: string }) => c.field);
    assert.ok(fields.includes("spec.template.metadata.labels"));
    assert.ok(fields.includes("spec.template.spec.containers[0].image"));
  });
});

describe("API server over HTTP: namespaces lifecycle", () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ controllers: false });
  });
  after(() => s.close());

  it("needs the namespace of a namespaced object to exist", async () => {
    const r = await call(s.url, "POST", "/api/v1/namespaces/missing/configmaps", configMap("a"));
    assert.equal(r.status, 404);
    assert.equal(r.body.message, 'namespaces "missing" not found');
  });

  it("terminates a namespace until spec and metadata finalizers are empty, refusing creates inside it", async () => {
    await call(s.url, "POST", "/api/v1/namespaces", {
      metadata: { name: "gone", finalizers: ["example.com/x"] },
    });
    const d = await call(s.url, "DELETE", "/api/v1/namespaces/gone");
    assert.equal(d.status, 200);
    assert.equal(d.body.status.phase, "Terminating");
    const create = await call(s.url, "POST", "/api/v1/namespaces/gone/configmaps", configMap("a"));
    assert.equal(create.status, 403);
    assert.equal(create.body.details.causes[0].reason, "NamespaceTerminating");
    assert.match(
      create.body.message,
      /unable to create new content in namespace gone because it is being terminated/,
    );
    const ns = (await call(s.url, "GET", "/api/v1/namespaces/gone")).body;
    const fin = await call(s.url, "PUT", "/api/v1/namespaces/gone/finalize", {
      ...ns,
      spec: { finalizers: [] },
    });
    assert.equal(fin.status, 200);
    assert.deepEqual(fin.body.spec.finalizers, []);
    assert.equal(
      (await call(s.url, "GET", "/api/v1/namespaces/gone")).status,
      200,
      "metadata.finalizers still hold it",
    );
    const last = (await call(s.url, "GET", "/api/v1/namespaces/gone")).body;
    await call(s.url, "PUT", "/api/v1/namespaces/gone", {
      ...last,
      metadata: { ...last.metadata, finalizers: [] },
    });
    assert.equal((await call(s.url, "GET", "/api/v1/namespaces/gone")).status, 404);
  });

  it("refuses to delete the system namespaces", async () => {
    const r = await call(s.url, "DELETE", "/api/v1/namespaces/default");
    assert.equal(r.status, 403);
    assert.match(r.body.message, /this namespace may not be deleted/);
  });
});

describe("API server over HTTP: bad input", () => {
  let s: TestServer;
  const cms = "/api/v1/namespaces/default/configmaps";
  before(async () => {
    s = await startTestServer({ controllers: false });
  });
  after(() => s.close());

  it("answers malformed JSON, huge bodies, wrong methods and media types with a Status, and keeps serving", async () => {
    const bad = await call(s.url, "POST", cms, "{not json");
    assert.equal(bad.status, 400);
    // kube's wording: its decoder looks for the body's apiVersion and kind first.
    assert.match(
      bad.body.message,
      /^the object provided is unrecognized \(must be of type ConfigMap\): couldn't get version\/kind; json parse error: .* \(\{not json\)$/,
    );
    const arr = await call(s.url, "POST", cms, "[1,2]");
    assert.equal(arr.status, 400);
    const huge = await call(
      s.url,
      "POST",
      cms,
      configMap("huge", { data: { k: "x".repeat(3 * 1024 * 1024 + 10) } }),
    );
    assert.equal(huge.status, 413);
    assert.equal(huge.body.reason, "RequestEntityTooLarge");
    const put = await call(s.url, "PUT", cms, configMap("x"));
    assert.equal(put.status, 405);
    assert.equal(put.body.reason, "MethodNotAllowed");
    const proto = await call(s.url, "POST", cms, "k8s\0...", {
      "content-type": "application/vnd.kubernetes.protobuf",
    });
    assert.equal(proto.status, 400);
    assert.match(proto.body.message, /unrecognized \(must be of type ConfigMap\)/);
    const smp = await call(s.url, "PATCH", `${cms}/x`, "{}", { "content-type": "text/plain" });
    assert.equal(smp.status, 415);
    const accept = await call(s.url, "GET", cms, undefined, {
      accept: "application/x-unknown",
    });
    assert.equal(accept.status, 406);
    assert.equal((await call(s.url, "POST", cms, configMap("after"))).status, 201, "still serving");
  });

  it("refuses a body nested deeper than 1 000 levels with 400, for every write, and takes one at the limit", async () => {
    // The object, then 999 arrays in its "junk" field: 1 000 levels in all.
    const body = (arrays: number) =>
      `{"metadata":{"name":"deep"},"junk":${"[".repeat(arrays)}1${"]".repeat(arrays)}}`;
    const merge = { "content-type": "application/merge-patch+json" };
    assert.equal((await call(s.url, "POST", cms, body(999))).status, 201, "at the limit");
    assert.equal((await call(s.url, "PUT", `${cms}/deep`, body(999))).status, 200);
    for (const [method, path, headers] of [
      ["POST", cms, {}],
      ["PUT", `${cms}/deep`, {}],
      ["PATCH", `${cms}/deep`, merge],
    ] as const) {
      const r = await call(s.url, method, path, body(20_000), headers);
      assert.equal(r.status, 400, `${method}: ${JSON.stringify(r.body).slice(0, 200)}`);
      assert.equal(r.body.reason, "BadRequest");
      assert.match(r.body.message, /nest deeper than 1000 levels/);
    }
    assert.equal((await call(s.url, "POST", cms, body(1000))).status, 400, "one past the limit");
  });

  it("refuses a YAML body too deep for its parser, or nested in itself, with a 400 that says so", async () => {
    const yaml = { "content-type": "application/yaml" };
    const body = (name: string, arrays: number) =>
      `metadata:\n  name: ${name}\njunk: ${"[".repeat(arrays)}1${"]".repeat(arrays)}\n`;
    assert.equal((await call(s.url, "POST", cms, body("deep-yaml", 500), yaml)).status, 201);
    for (const arrays of [1000, 1500, 20_000]) {
      const r = await call(s.url, "POST", cms, body(`deeper-${arrays}`, arrays), yaml);
      assert.equal(r.status, 400, `${arrays}: ${JSON.stringify(r.body).slice(0, 200)}`);
      assert.equal(r.body.reason, "BadRequest");
      assert.match(r.body.message, /not valid YAML: objects and arrays nest too deeply/);
    }
    // An alias of an ancestor nests without end: the parser takes it, the depth check does not.
    const selfNested = "metadata:\n  name: loop\njunk: &a\n  - *a\n";
    const loop = await call(s.url, "POST", cms, selfNested, yaml);
    assert.equal(loop.status, 400, JSON.stringify(loop.body).slice(0, 200));
    assert.match(loop.body.message, /not valid YAML: objects and arrays nest deeper than 1000/);
  });

  it("answers bad selectors with 400 pointing at the problem", async () => {
    const l = await call(s.url, "GET", `${cms}?labelSelector=${encodeURIComponent("a in (b")}`);
    assert.equal(l.status, 400);
    assert.match(l.body.message, /invalid label selector/);
    const f = await call(s.url, "GET", `${cms}?fieldSelector=spec.foo%3Dx`);
    assert.equal(f.status, 400);
    assert.match(
      f.body.message,
      /"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"/,
    );
    const rvm = await call(s.url, "GET", `${cms}?resourceVersionMatch=Exact`);
    assert.equal(rvm.status, 422);
    assert.match(
      rvm.body.message,
      /resourceVersionMatch is forbidden unless resourceVersion is provided/,
    );
  });

  it("requires the bearer token when the server has one", async () => {
    await using t = await startTestServer({ token: "s3cret", controllers: false });
    const no = await call(t.url, "GET", "/api/v1/namespaces");
    assert.equal(no.status, 401);
    assert.equal(no.body.reason, "Unauthorized");
    const yes = await call(t.url, "GET", "/api/v1/namespaces", undefined, {
      authorization: "Bearer s3cret",
    });
    assert.equal(yes.status, 200);
  });
});
