import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createClient } from "kontroller/client";
import { configMaps } from "kontroller/resources";
import { FakeClock, startTestServer, type TestServer } from "kontroller/testing";
import { call, crdUntil, type Loose, watch } from "./helpers.ts";

/*
 * Server-side apply and managedFields over HTTP, as kube-apiserver answers (reference items
 * 1.3.8, 2.2.5, 6.3, 6.4, 6.5). The server's clock is a FakeClock: entry times are exact.
 */

const cms = "/api/v1/namespaces/default/configmaps";
const APPLY = { "content-type": "application/apply-patch+yaml" };
const merge = { "content-type": "application/merge-patch+json" };
const jsonPatch = { "content-type": "application/json-patch+json" };
const T0 = "2026-01-01T00:00:00Z";

const cm = (name: string, data: Record<string, string>, meta: Record<string, unknown> = {}) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, ...meta },
  data,
});

/** `manager operation[/subresource] fieldsV1` of each managedFields entry. */
const owners = (o: Loose) =>
  (o.metadata.managedFields ?? []).map(
    (e: Loose) =>
      `${e.manager} ${e.operation}${e.subresource ? `/${e.subresource}` : ""} ${JSON.stringify(e.fieldsV1)}`,
  );

describe("server-side apply over HTTP: built-in kinds", () => {
  let s: TestServer;
  let clock: FakeClock;
  const apply = (path: string, body: unknown, query = "fieldManager=a", headers = {}) =>
    call(
      s.url,
      "PATCH",
      `${path}?${query}`,
      typeof body === "string" ? body : JSON.stringify(body),
      {
        ...APPLY,
        ...headers,
      },
    );
  before(async () => {
    clock = new FakeClock();
    s = await startTestServer({ controllers: false, clock });
  });
  after(() => s.close());

  it("creates the object (201) with an Apply entry, then answers 200 without a new revision if nothing changes", async () => {
    const yaml =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c1\n  labels: {app: x}\ndata:\n  a: '1'\n";
    const created = await apply(`${cms}/c1`, yaml, "fieldManager=tool");
    assert.equal(created.status, 201);
    assert.deepEqual(created.body.data, { a: "1" });
    assert.deepEqual(created.body.metadata.managedFields, [
      {
        manager: "tool",
        operation: "Apply",
        apiVersion: "v1",
        time: T0,
        fieldsType: "FieldsV1",
        fieldsV1: { "f:data": { "f:a": {} }, "f:metadata": { "f:labels": { "f:app": {} } } },
      },
    ]);
    const again = await apply(
      `${cms}/c1`,
      cm("c1", { a: "1" }, { labels: { app: "x" } }),
      "fieldManager=tool",
    );
    assert.equal(again.status, 200);
    assert.equal(again.body.metadata.resourceVersion, created.body.metadata.resourceVersion);
  });

  it("needs a fieldManager (422), allows force only on apply, refuses a force that is not a boolean (400)", async () => {
    const none = await apply(`${cms}/c2`, cm("c2", {}), "");
    assert.equal(none.status, 422);
    assert.equal(
      none.body.message,
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );
    assert.deepEqual(none.body.details.causes, [
      {
        reason: "FieldValueRequired",
        message: "Required value: is required for apply patch",
        field: "fieldManager",
      },
    ]);
    assert.equal((await apply(`${cms}/c2`, cm("c2", {}), "fieldManager=a&force=true")).status, 201);
    const bogus = await apply(`${cms}/c2`, cm("c2", {}), "fieldManager=a&force=maybe");
    assert.equal(bogus.status, 400);
    assert.match(bogus.body.message, /force/);
    const mergeForce = await call(s.url, "PATCH", `${cms}/c2?force=true`, { data: {} }, merge);
    assert.equal(mergeForce.status, 422);
  });

  it("lists apply-patch among accepted patch types (415), except on /scale", async () => {
    const r = await call(s.url, "PATCH", `${cms}/c1`, "{}", { "content-type": "text/plain" });
    assert.equal(r.status, 415);
    assert.match(
      r.body.message,
      /application\/json-patch\+json, application\/merge-patch\+json, application\/strategic-merge-patch\+json, application\/apply-patch\+yaml$/,
    );
  });

  it("conflicts (409) on fields another manager owns, with kube's causes and message; force takes them", async () => {
    await apply(`${cms}/c3`, cm("c3", { a: "1", b: "1" }), "fieldManager=one");
    const c = await apply(`${cms}/c3`, cm("c3", { a: "2", b: "2" }), "fieldManager=two");
    assert.equal(c.status, 409);
    assert.equal(c.body.reason, "Conflict");
    assert.equal(
      c.body.message,
      'Apply failed with 2 conflicts: conflicts with "one":\n- .data.a\n- .data.b',
    );
    assert.deepEqual(c.body.details, {
      causes: [
        { reason: "FieldManagerConflict", message: 'conflict with "one"', field: ".data.a" },
        { reason: "FieldManagerConflict", message: 'conflict with "one"', field: ".data.b" },
      ],
    });
    const forced = await apply(`${cms}/c3`, cm("c3", { a: "2" }), "fieldManager=two&force=true");
    assert.equal(forced.status, 200);
    assert.deepEqual(forced.body.data, { a: "2", b: "1" });
    assert.deepEqual(owners(forced.body), [
      'one Apply {"f:data":{"f:b":{}}}',
      'two Apply {"f:data":{"f:a":{}}}',
    ]);
    // The same value is no conflict: both own it.
    const shared = await apply(`${cms}/c3`, cm("c3", { a: "2", b: "1" }), "fieldManager=one");
    assert.equal(shared.status, 200);
    assert.deepEqual(owners(shared.body), [
      'one Apply {"f:data":{"f:a":{},"f:b":{}}}',
      'two Apply {"f:data":{"f:a":{}}}',
    ]);
  });

  it("removes a field its applier alone owned and dropped from its configuration, keeps one others own", async () => {
    await apply(`${cms}/c4`, cm("c4", { a: "1", b: "1", c: "1" }), "fieldManager=one");
    await apply(`${cms}/c4`, cm("c4", { c: "1" }), "fieldManager=two");
    const r = await apply(`${cms}/c4`, cm("c4", { a: "1" }), "fieldManager=one");
    assert.deepEqual(r.body.data, { a: "1", c: "1" });
    const none = await apply(`${cms}/c4`, cm("c4", {}), "fieldManager=two");
    assert.deepEqual(none.body.data, { a: "1" });
  });

  it("records creates, replaces and patches as Update entries under fieldManager, else the User-Agent's product", async () => {
    clock.advance(1000);
    const c = await call(s.url, "POST", `${cms}?fieldManager=maker`, cm("u1", { a: "1" }));
    assert.deepEqual(c.body.metadata.managedFields, [
      {
        manager: "maker",
        operation: "Update",
        apiVersion: "v1",
        time: "2026-01-01T00:00:01Z",
        fieldsType: "FieldsV1",
        fieldsV1: { "f:data": { ".": {}, "f:a": {} } },
      },
    ]);
    const agent = { "user-agent": "kubectl/v1.32.0 (linux/amd64) kubernetes/abc" };
    const p = await call(s.url, "PATCH", `${cms}/u1`, { data: { b: "2" } }, { ...merge, ...agent });
    assert.deepEqual(owners(p.body), [
      'kubectl Update {"f:data":{"f:b":{}}}',
      'maker Update {"f:data":{".":{},"f:a":{}}}',
    ]);
    const put = await call(
      s.url,
      "PUT",
      `${cms}/u1`,
      { ...p.body, data: { a: "9" } },
      { "user-agent": "/none" },
    );
    assert.deepEqual(
      owners(put.body),
      ['maker Update {"f:data":{}}', 'unknown Update {"f:data":{"f:a":{}}}'],
      "b went with its value; a changed hands; no product in the User-Agent is unknown",
    );
  });

  it("takes managedFields from the request: [] clears them (and updates stay untracked), bad ones are ignored, a JSON patch may rewrite them", async () => {
    const c = (await call(s.url, "POST", `${cms}?fieldManager=m`, cm("r1", { a: "1" }))).body;
    const bad = await call(s.url, "PUT", `${cms}/r1`, {
      ...c,
      metadata: {
        ...c.metadata,
        managedFields: [{ manager: "x", operation: "Delete", apiVersion: "v1" }],
      },
    });
    assert.deepEqual(owners(bad.body), owners(c), "undecodable: the stored ones stay");
    const rewritten = await call(
      s.url,
      "PATCH",
      `${cms}/r1`,
      [{ op: "replace", path: "/metadata/managedFields/0/manager", value: "renamed" }],
      jsonPatch,
    );
    assert.deepEqual(owners(rewritten.body), ['renamed Update {"f:data":{".":{},"f:a":{}}}']);
    const reset = await call(
      s.url,
      "PATCH",
      `${cms}/r1`,
      { metadata: { managedFields: [] } },
      merge,
    );
    assert.equal(reset.body.metadata.managedFields, undefined);
    const untracked = await call(
      s.url,
      "PATCH",
      `${cms}/r1?fieldManager=m`,
      { data: { b: "2" } },
      merge,
    );
    assert.equal(untracked.body.metadata.managedFields, undefined);
    // The first apply gives what is there to before-first-apply, which then owns it.
    const first = await apply(`${cms}/r1`, cm("r1", { a: "changed" }), "fieldManager=applier");
    assert.equal(first.status, 409);
    assert.equal(
      first.body.details.causes[0].message,
      'conflict with "before-first-apply" using v1',
    );
  });

  it("refuses an apply patch of another kind or version, with managedFields, with unknown fields or that does not parse (400)", async () => {
    const cases: [unknown, RegExp][] = [
      [{ ...cm("b1", {}), apiVersion: "v2" }, /^invalid object type: \/v2, Kind=ConfigMap$/],
      [{ ...cm("b1", {}), kind: "Secret" }, /^invalid object type: \/v1, Kind=Secret$/],
      [cm("b1", {}, { managedFields: [] }), /^metadata\.managedFields must be nil$/],
      [
        { ...cm("b1", {}), dat: { a: "1" } },
        /^failed to create typed patch object \(\/b1; \/v1, Kind=ConfigMap\): \.dat: field not declared in schema$/,
      ],
      ["a: [unclosed", /^error decoding YAML: /],
      [
        "- a\n- b\n",
        /^error decoding YAML: an apply patch must be a YAML or JSON object, got a list$/,
      ],
      [
        cm("other", {}),
        /^the name of the object \(other\) does not match the name on the URL \(b1\)$/,
      ],
    ];
    for (const [body, message] of cases) {
      const r = await apply(`${cms}/b1`, body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.match(r.body.message, message);
    }
    assert.equal((await call(s.url, "GET", `${cms}/b1`)).status, 404);
  });

  it("reports keys given twice: 400 with fieldValidation=Strict (nothing stored), a warning by default", async () => {
    const twice =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d1\ndata:\n  a: '1'\n  a: '2'\n";
    const strict = await apply(`${cms}/d1`, twice, "fieldManager=m&fieldValidation=Strict");
    assert.equal(strict.status, 400);
    assert.match(
      strict.body.message,
      /^error strict decoding YAML: .*line 7: key "a" already set in map/s,
    );
    assert.equal((await call(s.url, "GET", `${cms}/d1`)).status, 404);
    const warn = await apply(`${cms}/d1`, twice, "fieldManager=m");
    assert.equal(warn.status, 201);
    assert.deepEqual(warn.body.data, { a: "2" });
    assert.match(warn.headers.get("warning") ?? "", /line 7: key \\"a\\" already set in map/);
    const ignore = await apply(`${cms}/d1`, twice, "fieldManager=m&fieldValidation=Ignore");
    assert.equal(ignore.headers.get("warning"), null);
  });

  it("dry-runs an apply (create and update) without storing it", async () => {
    const dry = await apply(`${cms}/dry`, cm("dry", { a: "1" }), "fieldManager=m&dryRun=All");
    assert.equal(dry.status, 201);
    assert.equal(dry.body.metadata.managedFields[0].manager, "m");
    assert.equal((await call(s.url, "GET", `${cms}/dry`)).status, 404);
    await apply(`${cms}/dry`, cm("dry", { a: "1" }), "fieldManager=m");
    const upd = await apply(`${cms}/dry`, cm("dry", { a: "2" }), "fieldManager=m&dryRun=All");
    assert.deepEqual(upd.body.data, { a: "2" });
    assert.deepEqual((await call(s.url, "GET", `${cms}/dry`)).body.data, { a: "1" });
  });

  it("is conditional on a resourceVersion in the applied configuration (409 when stale)", async () => {
    const c = (await apply(`${cms}/rv`, cm("rv", { a: "1" }))).body;
    const rv = c.metadata.resourceVersion;
    const ok = await apply(`${cms}/rv`, cm("rv", { a: "2" }, { resourceVersion: rv }));
    assert.equal(ok.status, 200);
    const stale = await apply(`${cms}/rv`, cm("rv", { a: "3" }, { resourceVersion: rv }));
    assert.equal(stale.status, 409);
    assert.match(stale.body.message, /the object has been modified/);
  });

  it("merges lists by their keys: two managers each own their container of a Deployment", async () => {
    const deploys = "/apis/apps/v1/namespaces/default/deployments";
    const d = (containers: unknown[]) => ({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web" },
      spec: {
        selector: { matchLabels: { app: "web" } },
        template: { metadata: { labels: { app: "web" } }, spec: { containers } },
      },
    });
    const one = await apply(
      `${deploys}/web`,
      d([{ name: "app", image: "app:1" }]),
      "fieldManager=one",
    );
    assert.equal(one.status, 201);
    const two = await apply(
      `${deploys}/web`,
      d([{ name: "sidecar", image: "side:1" }]),
      "fieldManager=two",
    );
    assert.equal(two.status, 200);
    const names = (o: Loose) => o.spec.template.spec.containers.map((c: Loose) => c.name);
    assert.deepEqual(names(two.body), ["app", "sidecar"]);
    const gone = await apply(`${deploys}/web`, d([]), "fieldManager=one");
    assert.deepEqual(names(gone.body), ["sidecar"]);
    // The status subresource takes only status; its applier owns it under subresource "status".
    const st = await apply(
      `${deploys}/web/status`,
      {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "web" },
        status: { replicas: 3 },
        spec: { replicas: 9 },
      },
      "fieldManager=ctl",
    );
    assert.equal(st.status, 200);
    assert.equal(st.body.status.replicas, 3);
    assert.equal(
      st.body.spec.replicas,
      gone.body.spec.replicas,
      "spec is not taken through /status",
    );
    assert.ok(owners(st.body).includes('ctl Apply/status {"f:status":{"f:replicas":{}}}'));
    const main = await apply(
      `${deploys}/web`,
      { ...d([]), status: { replicas: 7 } },
      "fieldManager=one",
    );
    assert.equal(main.body.status.replicas, 3, "the main resource does not take status");
    const missing = await apply(`${deploys}/nope/status`, d([]), "fieldManager=ctl");
    assert.equal(missing.status, 404, "an apply through /status creates nothing (404 first)");
  });

  it("applies cluster-scoped kinds, and kontroller's own client applies", async () => {
    const ns = await apply("/api/v1/namespaces/applied", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "applied" },
    });
    assert.equal(ns.status, 201);
    await using client = createClient({ url: s.url });
    const got = await client
      .resource(configMaps, { namespace: "default" })
      .patch("by-client", "apply", cm("by-client", { k: "v" }), {
        fieldManager: "kontroller-test",
      });
    assert.deepEqual(got.data, { k: "v" });
    assert.equal(got.metadata?.managedFields?.[0]?.manager, "kontroller-test");
  });
});

const crd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "gadgets.ssa.example.com" },
  spec: {
    group: "ssa.example.com",
    scope: "Namespaced",
    names: { plural: "gadgets", singular: "gadget", kind: "Gadget" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                properties: {
                  size: { type: "integer", default: 1 },
                  ports: {
                    type: "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    items: {
                      type: "object",
                      required: ["name"],
                      properties: { name: { type: "string" }, port: { type: "integer" } },
                    },
                  },
                  tags: {
                    type: "array",
                    "x-kubernetes-list-type": "set",
                    items: { type: "string" },
                  },
                  args: { type: "array", items: { type: "string" } },
                  selector: {
                    type: "object",
                    "x-kubernetes-map-type": "atomic",
                    additionalProperties: { type: "string" },
                  },
                  extra: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
                },
              },
              status: { type: "object", properties: { ready: { type: "boolean" } } },
            },
          },
        },
      },
    ],
  },
};

describe("server-side apply over HTTP: custom resources", () => {
  let s: TestServer;
  const gadgets = "/apis/ssa.example.com/v1/namespaces/default/gadgets";
  const g = (spec: unknown, extra: Record<string, unknown> = {}) => ({
    apiVersion: "ssa.example.com/v1",
    kind: "Gadget",
    metadata: { name: "g" },
    spec,
    ...extra,
  });
  const apply = (path: string, body: unknown, manager: string, more = "") =>
    call(s.url, "PATCH", `${path}?fieldManager=${manager}${more}`, JSON.stringify(body), APPLY);
  before(async () => {
    // On the fake clock too: entries are ordered by their time to the second, so on the real
    // clock two writes either side of a second boundary would change the order.
    s = await startTestServer({ controllers: false, clock: new FakeClock() });
    assert.equal(
      (await call(s.url, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd))
        .status,
      201,
    );
    await crdUntil(s.url, crd.metadata.name, (o: Loose) =>
      o.status?.conditions?.some((c: Loose) => c.type === "Established" && c.status === "True"),
    );
  });
  after(() => s.close());

  it("merges by the structural schema: map lists by key, sets by value, atomic lists and maps whole", async () => {
    const one = await apply(
      `${gadgets}/g`,
      g({ ports: [{ name: "http", port: 80 }], tags: ["a"], args: ["x"], selector: { k: "1" } }),
      "one",
    );
    assert.equal(one.status, 201);
    assert.equal(one.body.spec.size, 1, "defaults apply after the merge, and are nobody's");
    assert.deepEqual(owners(one.body), [
      'one Apply {"f:spec":{"f:args":{},"f:ports":{"k:{\\"name\\":\\"http\\"}":{".":{},"f:name":{},"f:port":{}}},"f:selector":{},"f:tags":{"v:\\"a\\"":{}}}}',
    ]);
    const two = await apply(
      `${gadgets}/g`,
      g({ ports: [{ name: "metrics", port: 9090 }], tags: ["b"] }),
      "two",
    );
    assert.equal(two.status, 200);
    assert.deepEqual(two.body.spec.ports, [
      { name: "http", port: 80 },
      { name: "metrics", port: 9090 },
    ]);
    assert.deepEqual(two.body.spec.tags, ["a", "b"]);
    const args = await apply(`${gadgets}/g`, g({ args: ["y"] }), "two");
    assert.equal(args.status, 409, "an atomic list is one field");
    assert.deepEqual(
      args.body.details.causes.map((c: Loose) => c.field),
      [".spec.args"],
    );
    const sel = await apply(`${gadgets}/g`, g({ selector: { other: "2" } }), "two");
    assert.deepEqual(
      sel.body.details.causes.map((c: Loose) => c.field),
      [".spec.selector"],
    );
    const dropped = await apply(`${gadgets}/g`, g({ tags: ["a"] }), "one");
    assert.deepEqual(dropped.body.spec, {
      ports: [{ name: "metrics", port: 9090 }],
      tags: ["a", "b"],
      size: 1,
    });
  });

  it("refuses fields the schema does not have (unless it preserves unknown fields) and items without their key", async () => {
    const unknown = await apply(
      `${gadgets}/u`,
      { ...g({ nope: 1 }), metadata: { name: "u" } },
      "m",
    );
    assert.equal(unknown.status, 400);
    assert.equal(
      unknown.body.message,
      "failed to create typed patch object (/u; ssa.example.com/v1, Kind=Gadget): .spec.nope: field not declared in schema",
    );
    const keyless = await apply(
      `${gadgets}/u`,
      { ...g({ ports: [{ port: 1 }] }), metadata: { name: "u" } },
      "m",
    );
    assert.equal(keyless.status, 400);
    assert.match(keyless.body.message, /omits key field "name"/);
    const free = await apply(
      `${gadgets}/u`,
      { ...g({ extra: { any: { thing: [1] } } }), metadata: { name: "u" } },
      "m",
    );
    assert.equal(free.status, 201);
    assert.deepEqual(free.body.spec.extra, { any: { thing: [1] } });
  });

  it("applies status through /status only, under its own entry", async () => {
    await apply(`${gadgets}/s`, { ...g({ size: 2 }), metadata: { name: "s" } }, "one");
    const st = await apply(
      `${gadgets}/s/status`,
      { ...g({ size: 5 }, { status: { ready: true } }), metadata: { name: "s" } },
      "ctl",
    );
    assert.equal(st.status, 200);
    assert.deepEqual(st.body.status, { ready: true });
    assert.equal(st.body.spec.size, 2);
    assert.deepEqual(owners(st.body), [
      'ctl Apply/status {"f:status":{"f:ready":{}}}',
      'one Apply {"f:spec":{"f:size":{}}}',
    ]);
  });

  it("records a /scale write under subresource scale", async () => {
    // A CRD with a scale subresource: reuse the widgets shape of patch-crd.test.ts, minimal.
    const scaled = {
      ...crd,
      metadata: { name: "scalers.ssa.example.com" },
      spec: {
        ...crd.spec,
        names: { plural: "scalers", singular: "scaler", kind: "Scaler" },
        versions: [
          {
            ...crd.spec.versions[0],
            subresources: {
              status: {},
              scale: { specReplicasPath: ".spec.size", statusReplicasPath: ".status.size" },
            },
          },
        ],
      },
    };
    await call(s.url, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", scaled);
    await crdUntil(s.url, scaled.metadata.name, (o: Loose) =>
      o.status?.conditions?.some((c: Loose) => c.type === "Established" && c.status === "True"),
    );
    const path = "/apis/ssa.example.com/v1/namespaces/default/scalers";
    await call(s.url, "POST", `${path}?fieldManager=maker`, {
      apiVersion: "ssa.example.com/v1",
      kind: "Scaler",
      metadata: { name: "x" },
      spec: { size: 1 },
    });
    await call(
      s.url,
      "PATCH",
      `${path}/x/scale?fieldManager=hpa`,
      { spec: { replicas: 3 } },
      merge,
    );
    const got = (await call(s.url, "GET", `${path}/x`)).body;
    assert.deepEqual(owners(got), [
      'hpa Update/scale {"f:spec":{"f:size":{}}}',
      'maker Update {"f:spec":{}}',
    ]);
    const w = await watch(s.url, `${path}?watch=1`);
    const e = await w.next();
    w.close();
    assert.equal(e.object.metadata.managedFields.length, 2, "watch events carry managedFields");
  });
});
