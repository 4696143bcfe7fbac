import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { FieldSet } from "./field-set.ts";
import { fromFieldsV1, toFieldsV1 } from "./fields-v1.ts";
import {
  fieldElement as f,
  indexElement as i,
  keyElement as k,
  type Path,
  pathString,
  valueElement as v,
} from "./path-element.ts";

/** FieldsV1 as kube writes it (the bytes of `fieldsV1`). */
const json = (set: FieldSet) => JSON.stringify(toFieldsV1(set));

describe("FieldsV1 encoding", () => {
  it("writes a member as {} and a member with members below as '.' first", () => {
    const set = FieldSet.of(
      [f("data"), f("a")],
      [f("metadata"), f("labels"), f("app")],
      [f("metadata"), f("labels")],
    );
    assert.equal(json(set), '{"f:data":{"f:a":{}},"f:metadata":{"f:labels":{".":{},"f:app":{}}}}');
  });

  it("orders fields by name, then keys, then values, then indexes — as kube does", () => {
    const set = FieldSet.of(
      [i(2)],
      [v("b")],
      [v(10)],
      [v("a")],
      [k([["name", "z"]])],
      [
        k([
          ["containerPort", 80],
          ["protocol", "TCP"],
        ]),
      ],
      [
        k([
          ["containerPort", 9],
          ["protocol", "UDP"],
        ]),
      ],
      [f("zeta")],
      [f("Alpha")],
      [i(10)],
    );
    assert.deepEqual(Object.keys(toFieldsV1(set)), [
      "f:Alpha",
      "f:zeta",
      'k:{"containerPort":9,"protocol":"UDP"}',
      'k:{"containerPort":80,"protocol":"TCP"}',
      'k:{"name":"z"}',
      "v:10",
      'v:"a"',
      'v:"b"',
      "i:2",
      "i:10",
    ]);
  });

  it("writes key fields sorted by name, and strings as Go escapes them", () => {
    assert.equal(
      k([
        ["protocol", "TCP"],
        ["port", 80],
      ]).key,
      'k:{"port":80,"protocol":"TCP"}',
    );
    assert.equal(v("<a&b>").key, 'v:"\\u003ca\\u0026b\\u003e"');
  });

  it("reads what kube writes and writes it back byte for byte", () => {
    for (const text of [
      '{"f:metadata":{"f:finalizers":{".":{},"v:\\"example.com/x\\"":{}},"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\\"name\\":\\"c\\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{".":{},"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{}}}}}}}}}',
      '{"f:data":{".":{},"f:a":{}}}',
      "{}",
    ]) {
      assert.equal(json(fromFieldsV1(JSON.parse(text))), text);
    }
  });

  it("reads a key holding only '.' or nothing as a member, and drops unknown element types", () => {
    const set = fromFieldsV1({
      "f:a": { ".": {} },
      "f:b": {},
      "x:future": {},
      "f:c": { "y:z": {} },
    });
    assert.deepEqual(
      set.paths().map(pathString),
      [".a", ".b", ".c"],
      "a subtree of only unknown keys is a member, as kube reads it",
    );
  });

  it("refuses malformed FieldsV1, saying where", () => {
    assert.throws(() => fromFieldsV1([]), /fieldsV1 must be a JSON object/);
    assert.throws(() => fromFieldsV1({ "f:a": 1 }), /fieldsV1\["f:a"\] must be a JSON object/);
    assert.throws(() => fromFieldsV1({ "k:[1]": {} }), /parsing key as path element/);
    assert.throws(() => fromFieldsV1({ "v:nope": {} }), /parsing key as path element/);
    assert.throws(() => fromFieldsV1({ "i:x": {} }), /an index element must hold an integer/);
    assert.throws(() => fromFieldsV1({ abc: {} }), /missing colon/);
  });

  it("prints paths as kube's conflicts do", () => {
    assert.equal(
      pathString([f("spec"), f("containers"), k([["name", "c"]]), f("image")]),
      '.spec.containers[name="c"].image',
    );
    assert.equal(
      pathString([f("metadata"), f("finalizers"), v("x")]),
      '.metadata.finalizers[="x"]',
    );
    assert.equal(
      pathString([
        f("ports"),
        k([
          ["protocol", "TCP"],
          ["port", 80],
        ]),
      ]),
      '.ports[port=80,protocol="TCP"]',
    );
    assert.equal(pathString([f("l"), i(3)]), ".l[3]");
  });
});

/** A path from a small alphabet, as a string key and its elements. */
const element = fc.oneof(
  fc.constantFrom("a", "b", "spec", "é").map(f),
  fc.constantFrom("x", "y").map((n) => k([["name", n]])),
  fc.constantFrom(1, "1", true).map(v),
  fc.nat(3).map(i),
);
const path = fc.array(element, { minLength: 1, maxLength: 4 });
const paths = fc.array(path, { maxLength: 12 });
const keyOf = (p: Path) => p.map((e) => e.key).join("/");
const model = (ps: Path[]) => new Set(ps.map(keyOf));
const members = (s: FieldSet) => new Set(s.paths().map(keyOf));

describe("FieldSet", () => {
  it("is the set of its paths: union, intersection, difference, has (property)", () => {
    fc.assert(
      fc.property(paths, paths, (a, b) => {
        const sa = FieldSet.of(...a);
        const sb = FieldSet.of(...b);
        const ma = model(a);
        const mb = model(b);
        assert.deepEqual(members(sa.union(sb)), new Set([...ma, ...mb]));
        assert.deepEqual(members(sa.intersection(sb)), new Set([...ma].filter((x) => mb.has(x))));
        assert.deepEqual(members(sa.difference(sb)), new Set([...ma].filter((x) => !mb.has(x))));
        for (const p of [...a, ...b]) assert.equal(sa.has(p), ma.has(keyOf(p)));
        assert.equal(sa.isEmpty(), ma.size === 0);
        assert.ok(sa.union(sb).equals(sb.union(sa)));
      }),
      { numRuns: 300 },
    );
  });

  it("removes whole subtrees in a recursive difference, and only members in a plain one (property)", () => {
    fc.assert(
      fc.property(paths, paths, (a, b) => {
        const got = members(FieldSet.of(...a).recursiveDifference(FieldSet.of(...b)));
        const bs = b.map(keyOf);
        const want = new Set(
          a.map(keyOf).filter((x) => !bs.some((y) => x === y || x.startsWith(`${y}/`))),
        );
        assert.deepEqual(got, want);
      }),
      { numRuns: 300 },
    );
  });

  it("round-trips through FieldsV1 (property)", () => {
    fc.assert(
      fc.property(paths, (a) => {
        const s = FieldSet.of(...a);
        const back = fromFieldsV1(JSON.parse(JSON.stringify(toFieldsV1(s))));
        assert.ok(back.equals(s));
        assert.equal(json(back), json(s));
      }),
      { numRuns: 300 },
    );
  });
});
