/**
 * CRDs over HTTP beyond the basics: names in conflict with another CRD of the group, deletion
 * while custom resources are held by finalizers, selectable fields, deprecated versions and
 * storage version hashes.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "kontroller/testing";
import { call, cond, crdUntil, type Loose, watch } from "./helpers.ts";

const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const merge = { "content-type": "application/merge-patch+json" };
const open = { type: "object", "x-kubernetes-preserve-unknown-fields": true };

function crd(
  plural: string,
  names: Record<string, unknown>,
  versions: Record<string, unknown>[] = [
    { name: "v1", served: true, storage: true, schema: { openAPIV3Schema: open } },
  ],
): Loose {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.names.example.com` },
    spec: {
      group: "names.example.com",
      scope: "Namespaced",
      names: { plural, ...names },
      versions,
    },
  };
}

const established = (o: Loose) => cond(o, "Established")?.status === "True";
const namesRejected = (o: Loose) => cond(o, "NamesAccepted")?.status === "False";

describe("API server over HTTP: CRD names", () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ controllers: false });
  });
  after(() => s.close());

  it("does not serve a CRD whose kind another CRD of the group holds, until that one goes", async () => {
    assert.equal(
      (await call(s.url, "POST", CRDS, crd("foos", { kind: "Foo", shortNames: ["fo"] }))).status,
      201,
    );
    await crdUntil(s.url, "foos.names.example.com", established);
    const taken = await call(s.url, "POST", CRDS, crd("bars", { kind: "Foo" }));
    assert.equal(taken.status, 201);
    const bars = await crdUntil(s.url, "bars.names.example.com", namesRejected);
    assert.deepEqual(
      {
        reason: cond(bars, "NamesAccepted").reason,
        message: cond(bars, "NamesAccepted").message,
        established: cond(bars, "Established").reason,
      },
      // kube reports the last conflict it finds: the list kind (FooList) after the kind.
      {
        reason: "ListKindConflict",
        message: '"FooList" is already in use',
        established: "NotAccepted",
      },
    );
    assert.equal(bars.status.acceptedNames.kind, "", "the kind was not accepted");
    assert.equal(bars.status.acceptedNames.plural, "bars");
    const path = "/apis/names.example.com/v1/namespaces/default/bars";
    const create = await call(s.url, "POST", path, { kind: "Foo", metadata: { name: "b" } });
    assert.equal(create.status, 404, "a CRD without its names is not served");
    const list = await call(s.url, "GET", "/apis/names.example.com/v1");
    assert.deepEqual(
      list.body.resources.map((r: { name: string }) => r.name),
      ["foos"],
    );
    // The foos CRD still owns its kind: its custom resources keep being served.
    const foo = await call(s.url, "POST", "/apis/names.example.com/v1/namespaces/default/foos", {
      apiVersion: "names.example.com/v1",
      kind: "Foo",
      metadata: { name: "f" },
    });
    assert.equal(foo.status, 201);
    assert.equal(foo.body.kind, "Foo");

    const short = await call(s.url, "POST", CRDS, crd("bazs", { kind: "Baz", shortNames: ["fo"] }));
    assert.equal(short.status, 201);
    const bazs = await crdUntil(s.url, "bazs.names.example.com", namesRejected);
    assert.equal(cond(bazs, "NamesAccepted").reason, "ShortNamesConflict");
    assert.equal(cond(bazs, "NamesAccepted").message, '"fo" is already in use');
    assert.equal(bazs.status.acceptedNames.kind, "Baz", "the names without conflict are accepted");

    // Deleting foos frees Foo: bars gets it and is served.
    assert.equal((await call(s.url, "DELETE", `${CRDS}/foos.names.example.com`)).status, 200);
    const freed = await crdUntil(s.url, "bars.names.example.com", established);
    assert.equal(cond(freed, "NamesAccepted").reason, "NoConflicts");
    assert.equal(freed.status.acceptedNames.kind, "Foo");
    const now = await call(s.url, "POST", path, {
      apiVersion: "names.example.com/v1",
      kind: "Foo",
      metadata: { name: "b" },
    });
    assert.equal(now.status, 201);
    const bazsFreed = await crdUntil(s.url, "bazs.names.example.com", (o) =>
      o.status?.acceptedNames?.shortNames?.includes("fo"),
    );
    assert.equal(cond(bazsFreed, "NamesAccepted").status, "True");
  });
});

const widgets = crd("widgets", { kind: "Widget" }, [
  {
    name: "v1",
    served: true,
    storage: true,
    selectableFields: [{ jsonPath: ".spec.color" }, { jsonPath: ".spec.size" }],
    schema: {
      openAPIV3Schema: {
        type: "object",
        properties: {
          spec: {
            type: "object",
            properties: {
              color: { type: "string" },
              size: { type: "integer" },
              tags: { type: "array", items: { type: "string" } },
            },
          },
        },
      },
    },
  },
  {
    name: "v1beta1",
    served: true,
    storage: false,
    deprecated: true,
    schema: { openAPIV3Schema: open },
  },
]);

describe("API server over HTTP: CRD versions and selectable fields", () => {
  let s: TestServer;
  const path = "/apis/names.example.com/v1/namespaces/default/widgets";
  before(async () => {
    s = await startTestServer({ controllers: false });
    assert.equal((await call(s.url, "POST", CRDS, widgets)).status, 201);
    await crdUntil(s.url, "widgets.names.example.com", established);
    for (const [name, color, size] of [
      ["a", "red", 1],
      ["b", "blue", 2],
      ["c", "red", 3],
    ] as const) {
      const r = await call(s.url, "POST", path, {
        apiVersion: "names.example.com/v1",
        kind: "Widget",
        metadata: { name },
        spec: { color, size },
      });
      assert.equal(r.status, 201);
    }
    await call(s.url, "POST", path, {
      apiVersion: "names.example.com/v1",
      kind: "Widget",
      metadata: { name: "plain" },
    });
  });
  after(() => s.close());

  const names = (r: Loose) =>
    r.body.items.map((i: { metadata: { name: string } }) => i.metadata.name);

  it("lists and watches by a CRD's selectable fields", async () => {
    assert.deepEqual(names(await call(s.url, "GET", `${path}?fieldSelector=spec.color%3Dred`)), [
      "a",
      "c",
    ]);
    assert.deepEqual(
      names(await call(s.url, "GET", `${path}?fieldSelector=spec.color!%3Dred,spec.size!%3D2`)),
      ["plain"],
      "an absent field is the empty string",
    );
    assert.deepEqual(names(await call(s.url, "GET", `${path}?fieldSelector=spec.size%3D3`)), ["c"]);
    assert.deepEqual(
      names(await call(s.url, "GET", `${path}?fieldSelector=spec.color%3Dred&limit=1`)),
      ["a"],
      "a paged read from storage selects the same way",
    );
    const other = await call(s.url, "GET", `${path}?fieldSelector=spec.tags%3Dx`);
    assert.equal(other.status, 400);
    assert.equal(other.body.message, "field label not supported: spec.tags");
    const beta = await call(
      s.url,
      "GET",
      "/apis/names.example.com/v1beta1/namespaces/default/widgets?fieldSelector=spec.color%3Dred",
    );
    assert.equal(beta.status, 400, "v1beta1 declares no selectable fields");

    const rv = (await call(s.url, "GET", path)).body.metadata.resourceVersion;
    const w = await watch(
      s.url,
      `${path}?watch=1&resourceVersion=${rv}&fieldSelector=spec.color%3Dblue`,
    );
    await call(s.url, "PATCH", `${path}/a`, { spec: { color: "blue" } }, merge);
    await call(s.url, "PATCH", `${path}/a`, { spec: { color: "green" } }, merge);
    const added = await w.next();
    const gone = await w.next();
    assert.deepEqual([added.type, added.object.metadata.name], ["ADDED", "a"]);
    assert.deepEqual([gone.type, gone.object.spec.color], ["DELETED", "blue"]);
    w.close();
  });

  it("refuses selectable fields that are too many, not scalars, or not in the schema", async () => {
    const bad = structuredClone(widgets);
    bad.metadata.name = "gadgets.names.example.com";
    bad.spec.names = { plural: "gadgets", kind: "Gadget" };
    bad.spec.versions[0]!.selectableFields = [
      { jsonPath: ".spec.tags" },
      { jsonPath: ".spec.nothing" },
      { jsonPath: "spec.color" },
      { jsonPath: ".spec.size" },
      { jsonPath: ".spec.size" },
      ...Array.from({ length: 4 }, () => ({ jsonPath: ".spec.color" })),
    ];
    const r = await call(s.url, "POST", CRDS, bad);
    assert.equal(r.status, 422);
    const causes = r.body.details.causes.map((c: { field: string; reason: string }) => [
      c.field,
      c.reason,
    ]);
    const p = "spec.versions[0].selectableFields";
    for (const want of [
      [p, "FieldValueTooMany"],
      [`${p}[0].jsonPath`, "FieldValueInvalid"],
      [`${p}[1].jsonPath`, "FieldValueInvalid"],
      [`${p}[2].jsonPath`, "FieldValueInvalid"],
      [`${p}[4].jsonPath`, "FieldValueDuplicate"],
    ])
      assert.ok(
        causes.some((c: string[]) => c[0] === want[0] && c[1] === want[1]),
        JSON.stringify(want),
      );
  });

  it("refuses printer columns and scale paths kube refuses, under spec when every version declares them alike", async () => {
    const bad = {
      additionalPrinterColumns: [
        { name: "A", type: "foo", format: "bar", jsonPath: "status.x" },
        { name: "", type: "", jsonPath: "" },
        { name: "Fine", type: "integer", jsonPath: ".spec.size" },
      ],
      subresources: {
        scale: {
          specReplicasPath: "spec.r",
          statusReplicasPath: ".spec.r",
          labelSelectorPath: ".metadata.x",
        },
      },
    };
    const other = {
      additionalPrinterColumns: [{ name: "B", type: "date", jsonPath: "x" }],
      subresources: { scale: { specReplicasPath: "", statusReplicasPath: ".status.r" } },
    };
    const version = (name: string, storage: boolean, extra: Record<string, unknown>) => ({
      name,
      served: true,
      storage,
      schema: { openAPIV3Schema: open },
      ...extra,
    });
    const problems = (at: string) => [
      `${at}.subresources.scale.specReplicasPath: Invalid value: "spec.r": must be a simple json path starting with .`,
      `${at}.subresources.scale.statusReplicasPath: Invalid value: ".spec.r": should be a json path under .status`,
      `${at}.subresources.scale.labelSelectorPath: Invalid value: ".metadata.x": should be a json path under either .spec or .status`,
      `${at}.additionalPrinterColumns[0].type: Invalid value: "foo": must be one of boolean,date,integer,number,string`,
      `${at}.additionalPrinterColumns[0].format: Invalid value: "bar": must be one of byte,date,date-time,double,float,int32,int64,password`,
      `${at}.additionalPrinterColumns[0].JSONPath: Invalid value: "status.x": must be a simple json path starting with .`,
      `${at}.additionalPrinterColumns[1].name: Required value`,
      `${at}.additionalPrinterColumns[1].type: Required value: must be one of boolean,date,integer,number,string`,
      `${at}.additionalPrinterColumns[1].JSONPath: Required value`,
    ];
    const causesOf = async (versions: unknown[]) => {
      const r = await call(s.url, "POST", CRDS, {
        ...crd("columns", { kind: "Column" }),
        spec: { ...crd("columns", { kind: "Column" }).spec, versions },
      });
      assert.equal(r.status, 422, JSON.stringify(r.body));
      return r.body.details.causes.map((c: Loose) => `${c.field}: ${c.message}`);
    };
    assert.deepEqual(await causesOf([version("v1", true, bad)]), problems("spec"));
    assert.deepEqual(await causesOf([version("v1", true, bad), version("v2", false, other)]), [
      ...problems("spec.versions[0]"),
      "spec.versions[1].subresources.scale.specReplicasPath: Required value",
      'spec.versions[1].additionalPrinterColumns[0].JSONPath: Invalid value: "x": must be a simple json path starting with .',
    ]);
    assert.equal((await call(s.url, "GET", `${CRDS}/columns.names.example.com`)).status, 404);
  });

  it("warns on requests to a deprecated version, and hashes the storage version in discovery", async () => {
    const beta = await call(
      s.url,
      "GET",
      "/apis/names.example.com/v1beta1/namespaces/default/widgets/b",
    );
    assert.equal(beta.status, 200);
    assert.equal(
      beta.headers.get("warning"),
      '299 - "names.example.com/v1beta1 Widget is deprecated"',
    );
    const v1 = await call(s.url, "GET", `${path}/b`);
    assert.equal(v1.headers.get("warning"), null);
    const hash = async (version: string) =>
      (await call(s.url, "GET", `/apis/names.example.com/${version}`)).body.resources.find(
        (r: { name: string }) => r.name === "widgets",
      ).storageVersionHash;
    assert.equal(await hash("v1beta1"), await hash("v1"), "both are stored as v1");
  });
});

describe("API server over HTTP: reading custom resources with the CRD's current schema", () => {
  it("applies a default added later, and prunes a field no longer specified, on every read", async () => {
    await using s = await startTestServer({ controllers: false });
    const schema = (spec: Record<string, unknown>) => ({
      type: "object",
      properties: { spec: { type: "object", ...spec } },
    });
    const def = crd("knobs", { kind: "Knob" }, [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: { openAPIV3Schema: schema({ "x-kubernetes-preserve-unknown-fields": true }) },
      },
    ]);
    const name = "knobs.names.example.com";
    assert.equal((await call(s.url, "POST", CRDS, def)).status, 201);
    await crdUntil(s.url, name, established);
    const path = "/apis/names.example.com/v1/namespaces/default/knobs";
    const created = await call(s.url, "POST", path, {
      apiVersion: "names.example.com/v1",
      kind: "Knob",
      metadata: { name: "k" },
      spec: { extra: "kept for now" },
    });
    assert.deepEqual(created.body.spec, { extra: "kept for now" });
    const current = (await call(s.url, "GET", `${CRDS}/${name}`)).body;
    current.spec.versions[0].schema.openAPIV3Schema = schema({
      properties: { level: { type: "integer", default: 3 } },
    });
    // A new storage schema means a new watch cache (kube recreates the CRD's storage): the
    // watches on the old one end, and what is served after that reads with the new schema.
    const old = await watch(s.url, `${path}?watch=1`);
    assert.equal((await old.next()).object.metadata.name, "k");
    assert.equal((await call(s.url, "PUT", `${CRDS}/${name}`, current)).status, 200);
    await old.ended();
    const read = await call(s.url, "GET", `${path}/k`);
    assert.deepEqual(read.body.spec, { level: 3 });
    const list = await call(s.url, "GET", path);
    assert.deepEqual(list.body.items[0].spec, { level: 3 });
    const paged = await call(s.url, "GET", `${path}?limit=1`);
    assert.deepEqual(paged.body.items[0].spec, { level: 3 }, "a paged read from storage too");
  });
});

describe("API server over HTTP: deleting a CRD", () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ controllers: false });
  });
  after(() => s.close());

  it("is Terminating while a custom resource's finalizer holds it, refusing creates, then goes", async () => {
    const def = crd("things", { kind: "Thing" });
    assert.equal((await call(s.url, "POST", CRDS, def)).status, 201);
    const name = "things.names.example.com";
    await crdUntil(s.url, name, established);
    const path = "/apis/names.example.com/v1/namespaces/default/things";
    const thing = (n: string, extra: object = {}) => ({
      apiVersion: "names.example.com/v1",
      kind: "Thing",
      metadata: { name: n, ...extra },
    });
    assert.equal(
      (await call(s.url, "POST", path, thing("held", { finalizers: ["x.io/hold"] }))).status,
      201,
    );
    assert.equal((await call(s.url, "POST", path, thing("free"))).status, 201);

    const del = await call(s.url, "DELETE", `${CRDS}/${name}`);
    assert.equal(del.status, 200);
    assert.equal(cond(del.body, "Terminating").reason, "InstanceDeletionPending");
    const terminating = await crdUntil(
      s.url,
      name,
      (o) => cond(o, "Terminating")?.reason === "InstanceDeletionInProgress",
    );
    assert.equal(cond(terminating, "Terminating").status, "True");
    assert.equal(cond(terminating, "Established").status, "True");

    const refused = await call(s.url, "POST", path, thing("late"));
    assert.equal(refused.status, 405);
    assert.equal(refused.body.reason, "MethodNotAllowed");
    assert.equal(
      refused.body.message,
      "create not allowed while custom resource definition is terminating",
    );
    const discovery = await call(s.url, "GET", "/apis/names.example.com/v1");
    const verbs = discovery.body.resources.find((r: { name: string }) => r.name === "things").verbs;
    assert.deepEqual(verbs, ["delete", "deletecollection", "get", "list", "watch"]);

    // The free one is deleted; the held one is only marked, and holds the CRD.
    const rv = (await call(s.url, "GET", path)).body.metadata.resourceVersion;
    const left = await call(s.url, "GET", path);
    assert.deepEqual(
      left.body.items.map((i: Loose) => [i.metadata.name, Boolean(i.metadata.deletionTimestamp)]),
      [["held", true]],
    );
    assert.equal((await call(s.url, "GET", `${CRDS}/${name}`)).status, 200, "the CRD waits");

    const w = await watch(
      s.url,
      `${CRDS}?watch=1&resourceVersion=${rv}&fieldSelector=metadata.name%3D${name}`,
    );
    const unheld = await call(
      s.url,
      "PATCH",
      `${path}/held`,
      { metadata: { finalizers: null } },
      merge,
    );
    assert.equal(unheld.status, 200);
    for (;;) {
      const e = await w.next();
      assert.ok(e !== undefined, "the watch ended before the CRD went");
      if (e.type === "DELETED") break;
    }
    w.close();
    assert.equal((await call(s.url, "GET", path)).status, 404);
    assert.equal(
      (await s.server.registry.storage.list("/registry/names.example.com/things/")).kvs.length,
      0,
    );

    // Created again, the CRD starts empty and is served normally.
    assert.equal((await call(s.url, "POST", CRDS, def)).status, 201);
    await crdUntil(s.url, name, established);
    assert.deepEqual((await call(s.url, "GET", path)).body.items, []);
    assert.equal((await call(s.url, "POST", path, thing("again"))).status, 201);
  });
});
