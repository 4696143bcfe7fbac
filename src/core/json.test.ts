import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { cloneJson, deepEqual } from "./json.ts";

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

describe("cloneJson", () => {
  it("copies any JSON value into an equal one that shares nothing with it (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const copy = cloneJson(value);
        assert.deepEqual(copy, value);
        assert.equal(JSON.stringify(copy), JSON.stringify(value));
        const shared = (a: unknown, b: unknown): boolean =>
          typeof a === "object" &&
          a !== null &&
          (a === b ||
            Object.keys(a).some((k) =>
              shared((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
            ));
        assert.ok(!shared(copy, value), "no object or array is shared");
      }),
    );
  });

  it("leaves out undefined properties, as a JSON round trip does", () => {
    assert.deepEqual(cloneJson({ a: 1, b: undefined, c: [undefined] }), { a: 1, c: [undefined] });
  });

  it("keeps a __proto__ key as an own property, not as the copy's prototype", () => {
    const value = JSON.parse('{"__proto__":{"polluted":true},"a":1}') as Record<string, unknown>;
    const copy = cloneJson(value);
    assert.equal(Object.getPrototypeOf(copy), Object.prototype);
    assert.deepEqual(Object.keys(copy), ["__proto__", "a"]);
    assert.equal(JSON.stringify(copy), '{"__proto__":{"polluted":true},"a":1}');
    assert.equal(({} as { polluted?: boolean }).polluted, undefined);
  });

  it("copies a value nested as deep as structuredClone can", () => {
    const depth = 4000;
    const deep = JSON.parse(`${"[".repeat(depth)}1${"]".repeat(depth)}`) as unknown;
    const copy = cloneJson(deep);
    assert.notEqual(copy, deep);
    let v: unknown = copy;
    for (let i = 0; i < depth; i++) v = (v as unknown[])[0];
    assert.equal(v, 1);
  });
});
