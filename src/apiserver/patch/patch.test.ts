import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { statusCode } from "../../core/index.ts";
import { applyJsonPatch, MAX_JSON_PATCH_OPERATIONS } from "./json-patch.ts";
import { applyMergePatch } from "./merge-patch.ts";

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return statusCode(err);
  }
  return undefined;
};

describe("applyJsonPatch", () => {
  it("adds, removes, replaces, moves, copies and tests without touching the input", () => {
    const doc = { a: { b: [1, 2] }, c: "x" };
    const out = applyJsonPatch(doc, [
      { op: "add", path: "/a/b/-", value: 3 },
      { op: "add", path: "/a/b/0", value: 0 },
      { op: "replace", path: "/c", value: "y" },
      { op: "copy", from: "/c", path: "/d" },
      { op: "move", from: "/d", path: "/e~1f" },
      { op: "remove", path: "/a/b/1" },
      { op: "test", path: "/c", value: "y" },
    ]);
    assert.deepEqual(out, { a: { b: [0, 2, 3] }, c: "y", "e/f": "y" });
    assert.deepEqual(doc, { a: { b: [1, 2] }, c: "x" });
  });

  it("is 400 for a malformed patch, 413 for too many operations, 422 for one that fails", () => {
    assert.equal(
      code(() => applyJsonPatch({}, { op: "add" })),
      400,
    );
    assert.equal(
      code(() => applyJsonPatch({}, [{ op: "frobnicate", path: "/a" }])),
      400,
    );
    assert.equal(
      code(() => applyJsonPatch({}, [{ path: "/a" }])),
      400,
    );
    assert.equal(
      code(() =>
        applyJsonPatch(
          {},
          Array(MAX_JSON_PATCH_OPERATIONS + 1).fill({ op: "test", path: "", value: {} }),
        ),
      ),
      413,
    );
    assert.equal(
      code(() => applyJsonPatch({}, [{ op: "remove", path: "/missing" }])),
      422,
    );
    assert.equal(
      code(() => applyJsonPatch({ a: [1] }, [{ op: "add", path: "/a/5", value: 1 }])),
      422,
    );
    assert.equal(
      code(() => applyJsonPatch({}, [{ op: "replace", path: "no-slash", value: 1 }])),
      422,
    );
    assert.equal(
      code(() => applyJsonPatch({ a: 1 }, [{ op: "test", path: "/a", value: 2 }])),
      422,
    );
  });
});

describe("applyMergePatch", () => {
  it("merges objects, deletes with null and replaces lists (RFC 7386)", () => {
    assert.deepEqual(
      applyMergePatch({ a: { b: 1, c: 2 }, l: [1, 2] }, { a: { b: null, d: 3 }, l: [3] }),
      { a: { c: 2, d: 3 }, l: [3] },
    );
    assert.deepEqual(applyMergePatch({ a: 1 }, "x"), "x");
  });
});
