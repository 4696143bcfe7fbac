import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { duplicateFields } from "./duplicate-fields.ts";

describe("duplicateFields", () => {
  for (const [text, want] of [
    ['{"a":1,"b":2}', []],
    ['{"a":1,"a":2}', ["a"]],
    ['{"a":1,"a":2,"a":3}', ["a", "a"]],
    ['{"metadata":{"name":"x","name":"y"},"spec":{}}', ["metadata.name"]],
    ['{"a":{"x":1},"b":{"x":1}}', []],
    [
      '{"spec":{"containers":[{"name":"a"},{"name":"b","image":"i","image":"j"}]}}',
      ["spec.containers[1].image"],
    ],
    ['{"l":[[{"k":1}],[{"k":1,"k":2}]]}', ["l[1][0].k"]],
    ['{"s":"a \\" \\\\","s":"{\\"x\\":1,\\"x\\":2}"}', ["s"]],
    ['{"\\u0061":1,"a":2}', ["a"]],
    ['{"a\\\\":1,"a\\\\":2}', ["a\\"]],
    [' { "a" : [ 1 , { "b" : null , "b" : true } ] } ', ["a[1].b"]],
    ["[1,2]", []],
    ['"just a string"', []],
  ] as const) {
    it(`finds ${JSON.stringify(want)} in ${text}`, () => {
      assert.deepEqual(duplicateFields(text), want);
    });
  }

  it("finds exactly the repeated keys of any JSON document (property)", () => {
    // A value whose objects are lists of entries, so that a key may repeat.
    type Tree = null | number | string | Tree[] | { entries: [string, Tree][] };
    const key = fc.constantFrom("a", "b", "c", 'q"', "\\", "é", "");
    const { tree } = fc.letrec<{ tree: Tree }>((rec) => ({
      tree: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        fc.constant(null),
        fc.integer(),
        fc.string({ maxLength: 6 }),
        fc.array(rec("tree"), { maxLength: 4 }),
        fc.record({ entries: fc.array(fc.tuple(key, rec("tree")), { maxLength: 5 }) }),
      ),
    }));
    const render = (t: Tree): string =>
      Array.isArray(t)
        ? `[${t.map(render).join(",")}]`
        : t !== null && typeof t === "object"
          ? `{${t.entries.map(([k, v]) => `${JSON.stringify(k)} : ${render(v)}`).join(",")}}`
          : JSON.stringify(t);
    const expected = (t: Tree, path: string, out: string[]): string[] => {
      if (Array.isArray(t)) {
        for (const [i, v] of t.entries()) expected(v, `${path}[${i}]`, out);
      } else if (t !== null && typeof t === "object") {
        const seen = new Set<string>();
        for (const [k, v] of t.entries) {
          const p = path === "" ? k : `${path}.${k}`;
          if (seen.has(k)) out.push(p);
          seen.add(k);
          expected(v, p, out);
        }
      }
      return out;
    };
    fc.assert(
      fc.property(tree, (t) => {
        const text = render(t);
        JSON.parse(text); // valid JSON
        // Order: by where the repeat appears, which a depth-first walk also gives.
        assert.deepEqual(duplicateFields(text), expected(t, "", []));
      }),
      { numRuns: 500 },
    );
  });

  it("ends on any text, JSON or not (a string that never closes included), and names what it saw", () => {
    assert.deepEqual(duplicateFields('{"a":1,"a":"never closed'), ["a"]);
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("{", "}", "[", "]", '"', "\\", ",", ":", "a") }),
        (text) => {
          assert.ok(Array.isArray(duplicateFields(text)));
        },
      ),
      { numRuns: 500 },
    );
  });
});
