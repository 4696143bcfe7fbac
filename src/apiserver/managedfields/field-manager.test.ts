import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError, type KubeObject, type ManagedFieldsEntry } from "../../core/index.ts";
import { FakeClock } from "../../testing/index.ts";
import { builtinType } from "./builtin-schema.ts";
import { crdType } from "./crd-schema.ts";
import { FieldManager } from "./field-manager.ts";
import { LAST_APPLIED } from "./last-applied.ts";

type Obj = KubeObject & Record<string, unknown>;

function setup(kind = "ConfigMap", statusSubresource = false) {
  const clock = new FakeClock({ startMs: Date.parse("2026-01-02T03:04:05.600Z") });
  const apiVersion = kind === "Deployment" ? "apps/v1" : "v1";
  const fm = new FieldManager({
    apiVersion,
    kind,
    type: builtinType(kind === "Deployment" ? "apps" : "", "v1", kind)!,
    clock,
    statusSubresource,
  });
  const obj = (body: Record<string, unknown>, meta: Record<string, unknown> = {}): Obj =>
    ({ apiVersion, kind, metadata: { name: "x", namespace: "ns", ...meta }, ...body }) as Obj;
  return { clock, fm, obj };
}

const entries = (o: KubeObject) => o.metadata?.managedFields ?? [];
const summary = (o: KubeObject) =>
  entries(o).map(
    (e) =>
      `${e.manager} ${e.operation}${e.subresource ? ` ${e.subresource}` : ""} ${JSON.stringify(e.fieldsV1)}`,
  );

function conflict(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError && err.code === 409) return err;
    throw err;
  }
  assert.fail("no conflict");
}

describe("FieldManager updates (create, replace, patch)", () => {
  it("records a create as an Update entry: manager, apiVersion, second-precision time, FieldsV1", () => {
    const { fm, obj } = setup();
    const o = obj({ data: { a: "1" } }, { labels: { app: "x" }, uid: "u", resourceVersion: "5" });
    fm.update(undefined, o, "kubectl-create");
    assert.deepEqual(entries(o), [
      {
        manager: "kubectl-create",
        operation: "Update",
        apiVersion: "v1",
        time: "2026-01-02T03:04:05Z",
        fieldsType: "FieldsV1",
        fieldsV1: {
          "f:data": { ".": {}, "f:a": {} },
          "f:metadata": { "f:labels": { ".": {}, "f:app": {} } },
        },
      },
    ] satisfies ManagedFieldsEntry[]);
  });

  it("names an empty manager unknown, and a subresource write's entry by its subresource", () => {
    const { fm, obj } = setup("Deployment", true);
    const live = obj({ spec: { replicas: 1 } });
    fm.update(undefined, live, "");
    const next = obj(
      { spec: { replicas: 1 }, status: { replicas: 1 } },
      { managedFields: entries(live) },
    );
    fm.update(live, next, "ctrl", "status");
    // Entries are sorted by operation, time, then manager.
    assert.deepEqual(summary(next), [
      'ctrl Update status {"f:status":{"f:replicas":{}}}',
      'unknown Update {"f:spec":{"f:replicas":{}}}',
    ]);
  });

  it("gives changed fields to the writer and takes removed ones from everyone", () => {
    const { fm, obj, clock } = setup();
    const live = obj({ data: { a: "1", b: "2" } });
    fm.update(undefined, live, "one");
    clock.advance(1000);
    const next = obj({ data: { a: "9" } }, { managedFields: entries(live) });
    fm.update(live, next, "two");
    assert.deepEqual(summary(next), [
      'one Update {"f:data":{}}',
      'two Update {"f:data":{"f:a":{}}}',
    ]);
    assert.equal(entries(next)[1]!.time, "2026-01-02T03:04:06Z");
  });

  it("keeps the time of a writer that changed nothing, and does not add it", () => {
    const { fm, obj, clock } = setup();
    const live = obj({ data: { a: "1" } });
    fm.update(undefined, live, "one");
    clock.advance(5000);
    const next = obj({ data: { a: "1" } }, { resourceVersion: "9" });
    fm.update(live, next, "two");
    assert.deepEqual(entries(next), entries(live));
  });

  it("starts from the request's managedFields, clears them for [], and ignores bad ones", () => {
    const { fm, obj } = setup();
    const live = obj({ data: { a: "1" } });
    fm.update(undefined, live, "one");
    const rewritten = [{ ...entries(live)[0]!, manager: "renamed" }];
    const a = obj({ data: { a: "1" } }, { managedFields: rewritten });
    fm.update(live, a, "two");
    assert.deepEqual(summary(a), ['renamed Update {"f:data":{".":{},"f:a":{}}}']);
    const reset = obj({ data: { a: "2" } }, { managedFields: [] });
    fm.update(live, reset, "two");
    assert.equal(
      reset.metadata?.managedFields,
      undefined,
      "cleared, and this update is not tracked",
    );
    const bad = obj(
      { data: { a: "1" } },
      { managedFields: [{ manager: "m", operation: "Delete" }] },
    );
    fm.update(live, bad, "two");
    assert.deepEqual(entries(bad), entries(live), "undecodable managedFields: the stored ones");
  });

  it("does not track updates of an object nobody owns anything of", () => {
    const { fm, obj } = setup();
    const next = obj({ data: { a: "1" } });
    fm.update(obj({}), next, "one");
    assert.equal(next.metadata?.managedFields, undefined);
  });

  it("keeps at most 10 update managers, merging the oldest into ancient-changes", () => {
    const { fm, obj, clock } = setup();
    let live = obj({ data: { k0: "v" } });
    fm.update(undefined, live, "m0");
    for (let i = 1; i <= 11; i++) {
      clock.advance(1000);
      const next = obj(
        { data: { ...(live.data as object), [`k${i}`]: "v" } },
        { managedFields: entries(live) },
      );
      fm.update(live, next, `m${i}`);
      live = next;
    }
    const names = entries(live).map((e) => e.manager);
    assert.equal(names.length, 10);
    assert.ok(names.includes("ancient-changes"));
    assert.ok(!names.includes("m1") && !names.includes("m2") && names.includes("m3"));
  });

  it("keeps the stored managedFields when the object does not fit the schema", () => {
    const { fm, obj } = setup();
    const live = obj({ data: { a: "1" } });
    fm.update(undefined, live, "one");
    const next = obj({ data: { a: "1" }, nonsense: 1 });
    fm.update(live, next, "two");
    assert.deepEqual(entries(next), entries(live));
  });
});

describe("FieldManager applies", () => {
  const cm = (data: Record<string, string>, meta: Record<string, unknown> = {}) =>
    ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", ...meta }, data }) as Obj;

  it("owns exactly what it applies, without the metadata system fields", () => {
    const { fm } = setup();
    const o = fm.apply(
      undefined,
      cm({ a: "1" }, { labels: { l: "v" }, namespace: "ns" }),
      "mgr",
      false,
    );
    assert.deepEqual(summary(o), [
      'mgr Apply {"f:data":{"f:a":{}},"f:metadata":{"f:labels":{"f:l":{}}}}',
    ]);
    assert.equal(entries(o)[0]!.apiVersion, "v1");
  });

  it("conflicts on a field another manager set to another value, with kube's message and causes", () => {
    const { fm } = setup();
    const live = fm.apply(undefined, cm({ a: "1", b: "1" }), "one", false);
    const err = conflict(() => fm.apply(live, cm({ a: "2", b: "2" }), "two", false));
    assert.equal(
      err.message,
      'Apply failed with 2 conflicts: conflicts with "one":\n- .data.a\n- .data.b',
    );
    assert.deepEqual(err.details, {
      causes: [
        { reason: "FieldManagerConflict", message: 'conflict with "one"', field: ".data.a" },
        { reason: "FieldManagerConflict", message: 'conflict with "one"', field: ".data.b" },
      ],
    });
    const single = conflict(() => fm.apply(live, cm({ a: "2" }), "two", false));
    assert.equal(single.message, 'Apply failed with 1 conflict: conflict with "one": .data.a');
  });

  it("names an updater by its apiVersion in a conflict", () => {
    const { fm, obj } = setup();
    const live = obj({ data: { a: "1" } });
    fm.update(undefined, live, "ctl");
    const err = conflict(() => fm.apply(live, cm({ a: "2" }), "two", false));
    assert.equal(err.details?.causes?.[0]?.message, 'conflict with "ctl" using v1');
  });

  it("shares a field applied with the same value; force takes it", () => {
    const { fm } = setup();
    const live = fm.apply(undefined, cm({ a: "1" }), "one", false);
    const shared = fm.apply(live, cm({ a: "1" }), "two", false);
    // "two" changed nothing: its entry has no time, and sorts first.
    assert.deepEqual(summary(shared), [
      'two Apply {"f:data":{"f:a":{}}}',
      'one Apply {"f:data":{"f:a":{}}}',
    ]);
    assert.equal(entries(shared)[0]!.time, undefined);
    const forced = fm.apply(shared, cm({ a: "2" }), "two", true);
    assert.deepEqual((forced as Obj).data, { a: "2" });
    assert.deepEqual(summary(forced), ['two Apply {"f:data":{"f:a":{}}}']);
  });

  it("removes a field its applier alone owned and no longer applies; keeps one others own", () => {
    const { fm } = setup();
    let live = fm.apply(undefined, cm({ a: "1", b: "1", c: "1" }), "one", false);
    live = fm.apply(live, cm({ c: "1" }), "two", false);
    live = fm.apply(live, cm({ a: "1" }), "one", false);
    assert.deepEqual((live as Obj).data, { a: "1", c: "1" });
    assert.deepEqual(summary(live), [
      'two Apply {"f:data":{"f:c":{}}}',
      'one Apply {"f:data":{"f:a":{}}}',
    ]);
  });

  it("gives what an untracked object has to before-first-apply, which then conflicts", () => {
    const { fm, obj } = setup();
    const live = obj({ data: { a: "1" } });
    const err = conflict(() => fm.apply(live, cm({ a: "2" }), "one", false));
    assert.equal(err.details?.causes?.[0]?.message, 'conflict with "before-first-apply" using v1');
    const ok = fm.apply(live, cm({ b: "2" }), "one", false);
    assert.deepEqual(summary(ok), [
      'one Apply {"f:data":{"f:b":{}}}',
      'before-first-apply Update {"f:data":{".":{},"f:a":{}}}',
    ]);
  });

  it("leaves the time alone when an apply changes nothing", () => {
    const { fm, clock } = setup();
    const live = fm.apply(undefined, cm({ a: "1" }), "one", false);
    clock.advance(60_000);
    const again = fm.apply(live, cm({ a: "1" }), "one", false);
    assert.deepEqual(entries(again), entries(live));
  });

  it("refuses another kind or version, managedFields, and fields the schema does not have (400)", () => {
    const { fm } = setup();
    const bad: [Obj, string][] = [
      [{ ...cm({}), apiVersion: "v2" }, "invalid object type: /v2, Kind=ConfigMap"],
      [
        { ...cm({}), apiVersion: "apps/v1", kind: "Deployment" },
        "invalid object type: apps/v1, Kind=Deployment",
      ],
      [{ metadata: { name: "x" } } as Obj, "invalid object type: /, Kind="],
      [cm({}, { managedFields: [] }), "metadata.managedFields must be nil"],
      [
        { ...cm({}), dat: { a: "1" } },
        "failed to create typed patch object (/x; /v1, Kind=ConfigMap): .dat: field not declared in schema",
      ],
    ];
    for (const [config, message] of bad) {
      assert.throws(
        () => fm.apply(undefined, config, "m", false),
        (e: unknown) => e instanceof ApiError && e.code === 400 && e.message === message,
        message,
      );
    }
  });

  it("ignores status on the main resource and spec on /status when the kind has a status subresource", () => {
    const { fm } = setup("Deployment", true);
    const d = (body: Record<string, unknown>) =>
      ({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "x" }, ...body }) as Obj;
    const main = fm.apply(
      undefined,
      d({ spec: { replicas: 1 }, status: { replicas: 5 } }),
      "m",
      false,
    );
    assert.deepEqual(summary(main), ['m Apply {"f:spec":{"f:replicas":{}}}']);
    const status = fm.apply(
      main,
      d({ spec: { replicas: 9 }, status: { replicas: 2 } }),
      "s",
      false,
      "status",
    );
    assert.deepEqual(summary(status), [
      'm Apply {"f:spec":{"f:replicas":{}}}',
      's Apply status {"f:status":{"f:replicas":{}}}',
    ]);
  });

  it("keeps kubectl's last-applied annotation in step when kubectl applies", () => {
    const { fm, obj } = setup();
    const live = obj({ data: { a: "1" } }, { annotations: { [LAST_APPLIED]: "{}" } });
    fm.update(undefined, live, "kubectl-client-side-apply");
    const config = cm({ a: "1", b: "2" }, { annotations: { note: "n" } });
    const out = fm.apply(live, config, "kubectl", true);
    assert.equal(
      out.metadata?.annotations?.[LAST_APPLIED],
      '{"apiVersion":"v1","data":{"a":"1","b":"2"},"kind":"ConfigMap","metadata":{"annotations":{"note":"n"},"name":"x"}}\n',
    );
    const other = fm.apply(live, config, "other", true);
    assert.equal(other.metadata?.annotations?.[LAST_APPLIED], "{}");
  });

  it("merges custom resources by their structural schema (map lists, atomic maps)", () => {
    const clock = new FakeClock();
    const fm = new FieldManager({
      apiVersion: "x.io/v1",
      kind: "Thing",
      clock,
      type: crdType({
        type: "object",
        properties: {
          spec: {
            type: "object",
            properties: {
              items: {
                type: "array",
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["name"],
                items: {
                  type: "object",
                  properties: { name: { type: "string" }, v: { type: "integer" } },
                },
              },
              sel: {
                type: "object",
                "x-kubernetes-map-type": "atomic",
                additionalProperties: { type: "string" },
              },
            },
          },
        },
      }),
    });
    const t = (spec: unknown) =>
      ({ apiVersion: "x.io/v1", kind: "Thing", metadata: { name: "t" }, spec }) as Obj;
    let live = fm.apply(
      undefined,
      t({ items: [{ name: "a", v: 1 }], sel: { x: "1" } }),
      "one",
      false,
    );
    live = fm.apply(live, t({ items: [{ name: "b", v: 2 }], sel: { x: "1" } }), "two", false);
    assert.deepEqual((live as Obj).spec, {
      items: [
        { name: "a", v: 1 },
        { name: "b", v: 2 },
      ],
      sel: { x: "1" },
    });
    const err = conflict(() => fm.apply(live, t({ sel: { y: "2" } }), "two", false));
    assert.deepEqual(
      err.details?.causes?.map((c) => c.field),
      [".spec.sel"],
    );
    live = fm.apply(live, t({ items: [{ name: "b", v: 2 }] }), "one", false);
    assert.deepEqual(
      (live as Obj).spec,
      { items: [{ name: "b", v: 2 }], sel: { x: "1" } },
      "item a, one's alone, went; sel stays, two owns it too",
    );
  });
});
