import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ResourceClient } from "../client/index.ts";
import { ApiError, type KubeObject, type OwnerReference } from "../core/index.ts";
import {
  deleteIfUnchanged,
  editOwnerReferences,
  forEachLimited,
  unblocked,
  withoutOwners,
} from "./gc-writes.ts";

const ref = (uid: string, block?: boolean): OwnerReference => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  name: uid,
  uid,
  ...(block === undefined ? {} : { blockOwnerDeletion: block }),
});

const obj = (rv: string, refs: OwnerReference[], uid = "u"): KubeObject => ({
  metadata: { name: "x", namespace: "default", uid, resourceVersion: rv, ownerReferences: refs },
});

const conflict = () => ApiError.of("Conflict", "the object has been modified");
const notFound = () => ApiError.of("NotFound", 'configmaps "x" not found');

type Step = KubeObject | ApiError | undefined;

/** A resource client whose answers are scripted per method, in order; records every call. */
function fake(script: { get?: Step[]; patch?: Step[]; delete?: Step[] }) {
  const calls: { method: string; args: unknown[] }[] = [];
  const answer = (method: "get" | "patch" | "delete", args: unknown[]) => {
    calls.push({ method, args });
    const next = script[method]?.shift();
    if (next instanceof ApiError) return Promise.reject(next);
    return Promise.resolve(next ?? {});
  };
  const api = {
    get: (...args: unknown[]) => answer("get", args),
    patch: (...args: unknown[]) => answer("patch", args),
    delete: (...args: unknown[]) => answer("delete", args),
  } as unknown as ResourceClient<KubeObject>;
  return { api, calls };
}

const signal = new AbortController().signal;

describe("garbage collector writes", () => {
  it("edits owner references with the read resourceVersion, dropping the field when empty", async () => {
    const { api, calls } = fake({});
    const changed = await editOwnerReferences(
      api,
      "x",
      "u",
      withoutOwners(new Set(["a"])),
      signal,
      obj("7", [ref("a")]),
    );
    assert.equal(changed, true);
    assert.deepEqual(
      calls.map((c) => c.method),
      ["patch"],
    );
    assert.deepEqual(calls[0]!.args.slice(0, 3), [
      "x",
      "merge",
      { metadata: { ownerReferences: null, resourceVersion: "7" } },
    ]);
  });

  it("recomputes the edit after a conflict, and gives up after five", async () => {
    const edit = withoutOwners(new Set(["a"]));
    const retried = fake({ patch: [conflict()], get: [obj("8", [ref("a"), ref("b")])] });
    assert.equal(
      await editOwnerReferences(retried.api, "x", "u", edit, signal, obj("7", [ref("a")])),
      true,
    );
    assert.deepEqual(
      retried.calls.map((c) => c.method),
      ["patch", "get", "patch"],
    );
    assert.deepEqual((retried.calls[2]!.args[2] as { metadata: unknown }).metadata, {
      ownerReferences: [ref("b")],
      resourceVersion: "8",
    });
    const fresh = () => obj("9", [ref("a")]);
    const stuck = fake({
      patch: [conflict(), conflict(), conflict(), conflict(), conflict()],
      get: [fresh(), fresh(), fresh(), fresh(), fresh()],
    });
    await assert.rejects(
      editOwnerReferences(stuck.api, "x", "u", edit, signal),
      (e) => e instanceof ApiError && e.code === 409,
    );
    assert.equal(stuck.calls.filter((c) => c.method === "patch").length, 5);
  });

  it("does nothing for an object that is gone, recreated, or needs no change", async () => {
    const edit = withoutOwners(new Set(["a"]));
    assert.equal(
      await editOwnerReferences(fake({ get: [notFound()] }).api, "x", "u", edit, signal),
      false,
    );
    assert.equal(
      await editOwnerReferences(
        fake({ get: [obj("1", [ref("a")], "other")] }).api,
        "x",
        "u",
        edit,
        signal,
      ),
      false,
    );
    const same = fake({});
    assert.equal(
      await editOwnerReferences(same.api, "x", "u", edit, signal, obj("1", [ref("b")])),
      false,
    );
    assert.equal(same.calls.length, 0);
    assert.equal(
      await editOwnerReferences(
        fake({ patch: [notFound()] }).api,
        "x",
        "u",
        edit,
        signal,
        obj("1", [ref("a")]),
      ),
      false,
    );
    await assert.rejects(
      editOwnerReferences(
        fake({ patch: [ApiError.of("Forbidden", "no")] }).api,
        "x",
        "u",
        edit,
        signal,
        obj("1", [ref("a")]),
      ),
      /no/,
    );
  });

  it("deletes on the condition that nothing changed, or that the owner references did not", async () => {
    const latest = obj("5", [ref("a")]);
    const ok = fake({});
    assert.equal(await deleteIfUnchanged(ok.api, latest, "Background", signal), true);
    assert.deepEqual((ok.calls[0]!.args[1] as { preconditions: unknown }).preconditions, {
      uid: "u",
      resourceVersion: "5",
    });
    const touched = fake({ delete: [conflict()], get: [obj("6", [ref("a")])] });
    assert.equal(await deleteIfUnchanged(touched.api, latest, "Foreground", signal), true);
    assert.deepEqual((touched.calls[2]!.args[1] as { preconditions: unknown }).preconditions, {
      uid: "u",
    });
    assert.equal(
      (touched.calls[2]!.args[1] as { propagationPolicy: string }).propagationPolicy,
      "Foreground",
    );
    const moved = fake({ delete: [conflict()], get: [obj("6", [ref("b")])] });
    await assert.rejects(
      deleteIfUnchanged(moved.api, latest, "Background", signal),
      /changed its owner references/,
    );
    assert.equal(
      await deleteIfUnchanged(fake({ delete: [notFound()] }).api, latest, "Orphan", signal),
      false,
    );
    assert.equal(
      await deleteIfUnchanged(
        fake({ delete: [conflict()], get: [notFound()] }).api,
        latest,
        "Orphan",
        signal,
      ),
      false,
    );
    assert.equal(
      await deleteIfUnchanged(
        fake({ delete: [conflict()], get: [obj("6", [ref("a")], "new")] }).api,
        latest,
        "Orphan",
        signal,
      ),
      false,
    );
    assert.equal(
      await deleteIfUnchanged(
        fake({ delete: [conflict(), notFound()], get: [obj("6", [ref("a")])] }).api,
        latest,
        "Orphan",
        signal,
      ),
      false,
    );
    await assert.rejects(
      deleteIfUnchanged(
        fake({ delete: [ApiError.of("Forbidden", "denied")] }).api,
        latest,
        "Orphan",
        signal,
      ),
      /denied/,
    );
  });

  it("unblocks references, and runs work with a limit, naming every failure", async () => {
    assert.deepEqual(unblocked([ref("a", true), ref("b", false), ref("c")]), [
      ref("a", false),
      ref("b", false),
      ref("c"),
    ]);
    let active = 0;
    let most = 0;
    const done: number[] = [];
    await assert.rejects(
      forEachLimited(
        [1, 2, 3, 4, 5, 6],
        2,
        async (n) => {
          active++;
          most = Math.max(most, active);
          await new Promise((r) => setImmediate(r));
          active--;
          if (n % 3 === 0) throw new Error(`bad ${n}`);
          done.push(n);
        },
        "work",
      ),
      (e) => e instanceof AggregateError && /work: 2 failed: bad 3; bad 6/.test(e.message),
    );
    assert.equal(most, 2);
    assert.deepEqual(done.sort(), [1, 2, 4, 5]);
    await forEachLimited([], 4, async () => {}, "nothing");
  });
});
