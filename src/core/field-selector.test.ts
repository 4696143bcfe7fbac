import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { parseFieldSelector } from "./field-selector.ts";
import { SelectorError } from "./selector-error.ts";

const F = { "metadata.name": "web", "metadata.namespace": "prod", "status.phase": "Running" };

describe("parseFieldSelector", () => {
  const cases: [string, boolean][] = [
    ["", true],
    ["metadata.name=web", true],
    ["metadata.name==web", true],
    ["metadata.name!=web", false],
    ["metadata.name=db", false],
    ["metadata.name=web,status.phase!=Pending", true],
    ["metadata.name=web,status.phase=Pending", false],
    ["spec.nodeName=", true], // a missing field counts as ""
    ["spec.nodeName!=", false],
    [" metadata.namespace = prod ", true],
  ];
  for (const [input, want] of cases) {
    it(`${JSON.stringify(input)} ${want ? "matches" : "does not match"}`, () => {
      assert.equal(parseFieldSelector(input).matches(F), want);
    });
  }

  it("unescapes \\, \\= and \\\\ and escapes them back", () => {
    const s = parseFieldSelector("a\\=b=c\\,d\\\\e");
    assert.deepEqual(s.requirements, [{ field: "a=b", operator: "=", value: "c,d\\e" }]);
    assert.equal(s.toString(), "a\\=b=c\\,d\\\\e");
    assert.equal(s.matches({ "a=b": "c,d\\e" }), true);
  });

  it("tells the value a field must equal", () => {
    const s = parseFieldSelector("metadata.name=web,status.phase!=Failed");
    assert.equal(s.requiredValue("metadata.name"), "web");
    assert.equal(s.requiredValue("status.phase"), undefined);
  });

  const invalid: [string, number, RegExp][] = [
    ["metadata.name", 0, /has no operator/],
    ["a=b,c", 4, /term "c" has no operator/],
    ["a=b,", 4, /has no operator/],
    ["=x", 0, /needs a field name/],
    ["a=b\\x", 3, /invalid escape sequence '\\x'/],
    ["a=b\\", 3, /invalid escape sequence/],
  ];
  for (const [input, position, message] of invalid) {
    it(`refuses ${JSON.stringify(input)} at position ${position}`, () => {
      assert.throws(
        () => parseFieldSelector(input),
        (e: unknown) => {
          assert.ok(e instanceof SelectorError);
          assert.equal(e.position, position, e.message);
          assert.match(e.message, message);
          return true;
        },
      );
    });
  }

  it("round-trips any requirements through toString (property)", () => {
    const text = fc.string({ unit: fc.constantFrom(..."ab.,=!\\ x".split("")) });
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            // Field names are paths; a "!" right before "=" would read as "!=", as in kube.
            field: text.filter((f) => f.trim() !== "" && f === f.trim() && !f.includes("!")),
            operator: fc.constantFrom("=" as const, "==" as const, "!=" as const),
            value: text.filter((v) => v === v.trim()),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        (generated) => {
          const reqs = generated.map((r) => ({ ...r })); // fast-check records have a null prototype
          const s = parseFieldSelector(
            reqs
              .map(
                (r) =>
                  `${r.field.replace(/[\\,=]/g, (c) => `\\${c}`)}${r.operator}${r.value.replace(/[\\,=]/g, (c) => `\\${c}`)}`,
              )
              .join(","),
          );
          assert.deepEqual(s.requirements, reqs);
          assert.deepEqual(parseFieldSelector(s.toString()).requirements, reqs);
        },
      ),
    );
  });
});
