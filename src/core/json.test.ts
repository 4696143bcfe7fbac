import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { deepEqual } from "./json.ts";

describe("deepEqual", () => {
  it("compares JSON values structurally, property order aside", () => {
    assert.equal(deepEqual({ a: 1, b: [1, { c: "x" }] }, { b: [1, { c: "x" }], a: 1 }), true);
    assert.equal(deepEqual(null, null), true);
    assert.equal(deepEqual("1", "1"), true);
  });

  it("tells apart values, lengths, arrays from objects, null from objects", () => {
    assert.equal(deepEqual({ a: 1 }, { a: 2 }), false);
    assert.equal(deepEqual([1, 2], [1, 2, 3]), false);
    assert.equal(deepEqual([], {}), false);
    assert.equal(deepEqual(null, {}), false);
    assert.equal(deepEqual({ a: 1 }, { a: 1, b: 2 }), false);
    assert.equal(deepEqual(1, "1"), false);
  });

  it("treats a property set to undefined as absent", () => {
    assert.equal(deepEqual({ a: 1, b: undefined }, { a: 1 }), true);
    assert.equal(deepEqual({ b: undefined }, { c: undefined }), true);
  });
});
