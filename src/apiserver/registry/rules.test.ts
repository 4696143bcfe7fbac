import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError, errors, type KubeObject } from "../../core/index.ts";
import { StorageError } from "../storage/storage-error.ts";
import type { MutableMeta } from "./codec.ts";
import { toServedForm, toStoredForm, transformInServedForm } from "./conversion.ts";
import { checkPreconditions, finalizersForDeletion, timestamp } from "./deletion.ts";
import { fieldValidationWarnings } from "./field-validation.ts";
import { generateName } from "./generate-name.ts";
import { omitEmpty } from "./omit-empty.ts";
import { MAX_UPDATE_ATTEMPTS, retryOnConflict } from "./retry.ts";
import * as systemFields from "./system-fields.ts";

const { checkNamespace, keepSystemFields, markForDeletion, prepareCreateMeta } = systemFields;
const { specChanged, withStatusOf } = systemFields;

const NOW = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
const gr = { group: "", resource: "configmaps" };

/** The ApiError `fn` throws (fails if it throws none, or something else). */
function apiErrorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApiError, String(err));
    return err;
  }
  assert.fail("expected an ApiError");
}

describe("system fields on create", () => {
  const cases: {
    name: string;
    meta: MutableMeta;
    namespaced: boolean;
    trackGeneration: boolean;
    want: MutableMeta;
  }[] = [
    {
      name: "a namespaced object gets the URL's namespace, a uid and the creation time",
      meta: { name: "a", namespace: "other" },
      namespaced: true,
      trackGeneration: false,
      want: { name: "a", namespace: "ns", uid: "u1", creationTimestamp: "2026-01-02T03:04:05Z" },
    },
    {
      name: "a cluster-scoped object loses any namespace",
      meta: { name: "a", namespace: "ns" },
      namespaced: false,
      trackGeneration: false,
      want: { name: "a", uid: "u1", creationTimestamp: "2026-01-02T03:04:05Z" },
    },
    {
      name: "what a client may not set is cleared, and generation starts at 1 where tracked",
      meta: {
        name: "a",
        resourceVersion: "",
        deletionTimestamp: "2020-01-01T00:00:00Z",
        deletionGracePeriodSeconds: 30,
        selfLink: "/x",
        generation: 7,
        uid: "client",
      },
      namespaced: true,
      trackGeneration: true,
      want: {
        name: "a",
        namespace: "ns",
        uid: "u1",
        creationTimestamp: "2026-01-02T03:04:05Z",
        generation: 1,
      },
    },
    {
      name: "generation is dropped where the kind does not track it",
      meta: { name: "a", generation: 3 },
      namespaced: true,
      trackGeneration: false,
      want: { name: "a", namespace: "ns", uid: "u1", creationTimestamp: "2026-01-02T03:04:05Z" },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const meta = { ...c.meta };
      prepareCreateMeta(meta, {
        namespace: "ns",
        namespaced: c.namespaced,
        trackGeneration: c.trackGeneration,
        uid: "u1",
        nowMs: NOW,
      });
      assert.deepEqual(meta, c.want);
    });
  }

  it("refuses a create that names a resourceVersion, as kube does (500)", () => {
    const err = apiErrorOf(() =>
      prepareCreateMeta(
        { name: "a", resourceVersion: "5" },
        { namespace: "", namespaced: false, trackGeneration: false, uid: "u", nowMs: NOW },
      ),
    );
    assert.equal(err.code, 500);
  });

  it("refuses a body whose namespace is not the URL's, for namespaced kinds only", () => {
    assert.equal(apiErrorOf(() => checkNamespace(true, "a", "b")).code, 400);
    checkNamespace(true, "a", "a");
    checkNamespace(true, "a", undefined);
    checkNamespace(false, "", "b");
  });
});

describe("system fields on update", () => {
  const old: MutableMeta = {
    name: "a",
    namespace: "ns",
    uid: "u1",
    creationTimestamp: "2026-01-01T00:00:00Z",
    resourceVersion: "9",
    generation: 2,
  };
  /** What every update of `old` keeps of it. */
  const kept: MutableMeta = {
    name: "a",
    namespace: "ns",
    uid: "u1",
    creationTimestamp: "2026-01-01T00:00:00Z",
    generation: 2,
  };
  const cases: { name: string; meta: MutableMeta; old: MutableMeta; want: MutableMeta }[] = [
    {
      name: "name, namespace, uid, creation time and generation come from the stored object",
      meta: { resourceVersion: "9", creationTimestamp: "2026-01-01T00:00:00.000Z", generation: 5 },
      old,
      want: kept,
    },
    {
      name: "deletion fields stay as stored: set if stored, cleared if not",
      meta: { name: "a", deletionTimestamp: "2026-02-01T00:00:00Z" },
      old,
      want: kept,
    },
    {
      name: "a deleting object keeps its deletion time, and no grace period when none was stored",
      meta: { name: "a", deletionGracePeriodSeconds: 0 },
      old: { ...old, deletionTimestamp: "2026-01-05T00:00:00Z", generation: undefined },
      want: {
        name: "a",
        namespace: "ns",
        uid: "u1",
        creationTimestamp: "2026-01-01T00:00:00Z",
        deletionTimestamp: "2026-01-05T00:00:00Z",
      },
    },
    {
      name: "a deleting object keeps the grace period stored",
      meta: { name: "a" },
      old: {
        ...old,
        deletionTimestamp: "2026-01-05T00:00:00Z",
        deletionGracePeriodSeconds: 30,
        generation: undefined,
      },
      want: {
        name: "a",
        namespace: "ns",
        uid: "u1",
        creationTimestamp: "2026-01-01T00:00:00Z",
        deletionTimestamp: "2026-01-05T00:00:00Z",
        deletionGracePeriodSeconds: 30,
      },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const meta = { ...c.meta };
      keepSystemFields(meta, c.old, true);
      assert.deepEqual(meta, c.want);
    });
  }

  it("tells a spec change from a change of metadata (and of status, with its subresource)", () => {
    const a = { apiVersion: "v1", kind: "X", metadata: { name: "a" }, spec: { n: 1 } };
    const table: [KubeObject, KubeObject, boolean, boolean][] = [
      [a, { ...a, metadata: { name: "a", labels: { x: "y" } } }, false, false],
      [a, { ...a, spec: { n: 2 } } as KubeObject, false, true],
      [a, { ...a, status: { ok: true } } as KubeObject, true, false],
      [a, { ...a, status: { ok: true } } as KubeObject, false, true],
    ];
    for (const [x, y, ignoreStatus, want] of table)
      assert.equal(specChanged(x, y, ignoreStatus), want, JSON.stringify([y, ignoreStatus]));
  });

  it("a status write takes only the body's status, and an apply's managedFields", () => {
    const stored = { apiVersion: "v1", kind: "X", metadata: { name: "a" }, spec: 1, status: 1 };
    const body = { apiVersion: "v1", kind: "X", metadata: { name: "b", managedFields: [] } };
    assert.deepEqual(withStatusOf({ ...stored }, { ...body, status: 2 } as KubeObject), {
      ...stored,
      status: 2,
    });
    assert.deepEqual(withStatusOf({ ...stored }, body), {
      apiVersion: "v1",
      kind: "X",
      metadata: { name: "a" },
      spec: 1,
    });
    const applied = withStatusOf({ ...stored, metadata: { name: "a" } }, body, { entries: [] });
    assert.deepEqual(applied.metadata, { name: "a", managedFields: [] });
  });
});

describe("deletion rules", () => {
  it("marks for deletion once: the first deletion time stays, generation moves on", () => {
    const meta: MutableMeta = { name: "a", generation: 3, finalizers: ["x"] };
    markForDeletion(meta, ["x", "orphan"], NOW);
    assert.deepEqual(meta, {
      name: "a",
      generation: 4,
      finalizers: ["x", "orphan"],
      deletionTimestamp: "2026-01-02T03:04:05Z",
      deletionGracePeriodSeconds: 0,
    });
    markForDeletion(meta, [], NOW + 60_000);
    assert.equal(meta.deletionTimestamp, "2026-01-02T03:04:05Z");
    assert.equal(meta.generation, 4);
    assert.equal(meta.finalizers, undefined);
  });

  it("adds or removes the garbage collector's finalizers by propagation policy", () => {
    const table: [Parameters<typeof finalizersForDeletion>[1], string[]][] = [
      [{}, ["a", "orphan"]],
      [{ propagationPolicy: "Orphan" }, ["a", "orphan"]],
      [{ propagationPolicy: "Foreground" }, ["a", "foregroundDeletion"]],
      [{ propagationPolicy: "Background" }, ["a"]],
      [{ orphanDependents: true }, ["a", "orphan"]],
      [{ orphanDependents: false }, ["a"]],
    ];
    for (const [options, want] of table)
      assert.deepEqual(finalizersForDeletion(["a", "orphan"], options), want);
  });

  it("refuses a delete whose preconditions the stored object does not meet (409)", () => {
    const meta = { uid: "u1", resourceVersion: "4" };
    checkPreconditions(gr, "a", meta, { preconditions: { uid: "u1", resourceVersion: "4" } });
    const uid = apiErrorOf(() =>
      checkPreconditions(gr, "a", meta, { preconditions: { uid: "u2" } }),
    );
    assert.equal(uid.code, 409);
    assert.match(uid.message, /UID in precondition: u2, UID in object meta: u1/);
    const rv = apiErrorOf(() =>
      checkPreconditions(gr, "a", meta, { preconditions: { resourceVersion: "3" } }),
    );
    assert.match(rv.message, /ResourceVersion in precondition: 3/);
  });

  it("writes times as metav1.Time does: whole seconds, UTC", () => {
    assert.equal(timestamp(NOW), "2026-01-02T03:04:05Z");
    assert.equal(timestamp(Date.UTC(2026, 0, 1)), "2026-01-01T00:00:00Z");
  });
});

describe("field validation", () => {
  const as = { kind: "ConfigMap", version: "v1" };
  const table: [string, Parameters<typeof fieldValidationWarnings>[2], string[]][] = [
    ["nothing to report, whatever the setting", "Strict", []],
    ["Ignore drops silently", "Ignore", []],
    ["Warn (the default) warns", undefined, ['unknown field "spec.x"', 'duplicate field "y"']],
    ["Warn warns", "Warn", ['unknown field "spec.x"', 'duplicate field "y"']],
  ];
  for (const [name, validation, want] of table) {
    it(name, () => {
      const none = name.startsWith("nothing");
      const got = fieldValidationWarnings(
        none ? [] : ["spec.x"],
        none ? [] : ["y"],
        validation,
        as,
      );
      assert.deepEqual(got, want);
    });
  }

  it("Strict refuses with kube's strict decoding error (400)", () => {
    const err = apiErrorOf(() => fieldValidationWarnings(["spec.x"], [], "Strict", as));
    assert.equal(err.code, 400);
    assert.equal(
      err.message,
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "spec.x"',
    );
  });
});

describe("version conversion", () => {
  const plain = {
    apiVersion: "example.com/v2",
    kind: "Widget",
    storageApiVersion: "example.com/v1",
  };
  const renamed = {
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    storageApiVersion: "v1",
    toStorage: (o: KubeObject) =>
      ({ ...o, kind: "Event", note: undefined, message: "m" }) as KubeObject,
    fromStorage: (o: KubeObject) =>
      ({ ...o, apiVersion: "events.k8s.io/v1", note: "m" }) as KubeObject,
  };

  it("stores at the storage version with the served kind, whatever the body says", () => {
    const stored = toStoredForm(plain, {
      apiVersion: "x/y",
      kind: "Other",
      metadata: { name: "a" },
    });
    assert.deepEqual(stored, {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "a" },
    });
  });

  it("serves a stored object at the served version, unchanged if already there", () => {
    const stored = { apiVersion: "example.com/v1", kind: "Widget" };
    assert.deepEqual(toServedForm(plain, stored), { apiVersion: "example.com/v2", kind: "Widget" });
    const served = { apiVersion: "example.com/v2", kind: "Widget" };
    assert.equal(toServedForm(plain, served), served);
  });

  it("uses a version's own conversions both ways", () => {
    const stored = toStoredForm(renamed, { apiVersion: "events.k8s.io/v1", kind: "Event" });
    assert.equal(stored.apiVersion, "v1");
    assert.equal("message" in stored ? stored.message : undefined, "m");
    assert.equal((toServedForm(renamed, stored) as { note?: string }).note, "m");
  });

  it("runs a write's transform in the served form and copies its managedFields back", () => {
    const seen: unknown[] = [];
    const object = { apiVersion: "v1", kind: "Event", metadata: { name: "a" } };
    transformInServedForm(
      renamed,
      (stored, o, sub) => {
        seen.push(stored?.apiVersion, o.apiVersion, sub);
        o.metadata = { ...o.metadata, managedFields: [{ manager: "m" }] };
      },
      { apiVersion: "v1", kind: "Event" },
      object,
      "status",
    );
    assert.deepEqual(seen, ["events.k8s.io/v1", "events.k8s.io/v1", "status"]);
    assert.deepEqual(object.metadata, { name: "a", managedFields: [{ manager: "m" }] });
  });
});

describe("generated names", () => {
  it("keeps 58 characters of generateName and adds 5 from kube's alphabet", () => {
    const digits = [0, 0.99, 0.5, 0.25, 0.75];
    let i = 0;
    const name = generateName("x".repeat(70), () => digits[i++ % digits.length]!);
    assert.equal(name, `${"x".repeat(58)}b9rj2`);
    assert.match(generateName("web-", Math.random), /^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });
});

describe("retryOnConflict", () => {
  const at = { key: "k", currentRevision: 2, compactedRevision: 0 };
  const conflict = () => new StorageError("Conflict", "lost the race", at);

  it("runs the attempt again after a conflict, and returns its result", async () => {
    let n = 0;
    const got = await retryOnConflict(gr, "a", async () => {
      if (++n < 3) throw conflict();
      return n;
    });
    assert.equal(got, 3);
  });

  it("gives up with 409 after the last attempt", async () => {
    let n = 0;
    await assert.rejects(
      retryOnConflict(gr, "a", async () => {
        n++;
        throw conflict();
      }),
      (err) => err instanceof ApiError && err.code === 409,
    );
    assert.equal(n, MAX_UPDATE_ATTEMPTS + 1);
  });

  it("turns a storage NotFound into 404 and passes API errors through without retrying", async () => {
    await assert.rejects(
      retryOnConflict(gr, "a", async () => {
        throw new StorageError("NotFound", "gone", at);
      }),
      (err) => err instanceof ApiError && err.code === 404,
    );
    let n = 0;
    const bad = errors.badRequest("no");
    await assert.rejects(
      retryOnConflict(gr, "a", async () => {
        n++;
        throw bad;
      }),
      (err) => err === bad,
    );
    assert.equal(n, 1);
  });
});

describe("omitempty on built-in objects", () => {
  it("drops ObjectMeta's emptied maps and lists and a ConfigMap's emptied data, nothing else", () => {
    const cm = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "a", labels: {}, annotations: { k: "v" }, finalizers: [] },
      data: {},
      binaryData: { b: "AA==" },
    } as KubeObject;
    omitEmpty("ConfigMap", cm);
    assert.deepEqual(cm, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "a", annotations: { k: "v" } },
      binaryData: { b: "AA==" },
    });
    const deployment = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "d", ownerReferences: [] },
      data: {},
    } as KubeObject;
    omitEmpty("Deployment", deployment);
    assert.deepEqual(deployment, {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "d" },
      data: {},
    });
  });
});
