import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { labelSelectorFromSpec, parseLabelSelector } from "./label-selector.ts";
import { SelectorError } from "./selector-error.ts";

const L = { app: "web", tier: "frontend", env: "prod", replicas: "3", empty: "" };

describe("parseLabelSelector", () => {
  const cases: [string, Record<string, string>, boolean][] = [
    ["", L, true],
    ["app=web", L, true],
    ["app==web", L, true],
    ["app=db", L, true && false],
    ["app!=db", L, true],
    ["missing!=x", L, true], // != matches objects without the key
    ["app in (web,db)", L, true],
    ["app in (db)", L, false],
    ["app notin (db,cache)", L, true],
    ["missing notin (a)", L, true], // notin matches objects without the key
    ["app", L, true],
    ["missing", L, false],
    ["!missing", L, true],
    ["!app", L, false],
    ["replicas>2", L, true],
    ["replicas<3", L, false],
    ["app>1", L, false], // a non-integer value never satisfies > or <
    ["missing>1", L, false],
    ["empty=", L, true], // an empty value selects labels whose value is ""
    ["empty", L, true],
    ["app=web,tier=frontend,env in (prod, staging),!legacy", L, true],
    ["app=web,tier=backend", L, false],
    ["  app = web ,  tier  in ( frontend )  ", L, true],
    ["example.com/owner=me", { "example.com/owner": "me" }, true],
  ];
  for (const [input, labels, want] of cases) {
    it(`${JSON.stringify(input)} ${want ? "matches" : "does not match"}`, () => {
      assert.equal(parseLabelSelector(input).matches(labels), want);
    });
  }

  it("prints a canonical form that parses back to the same selector", () => {
    const s = parseLabelSelector("z in (b,a),app=web,!legacy,n>5,x");
    assert.equal(s.toString(), "app=web,!legacy,n>5,x,z in (a,b)");
    assert.deepEqual(parseLabelSelector(s.toString()).requirements, s.requirements);
  });

  it("treats undefined labels as none", () => {
    assert.equal(parseLabelSelector("!a").matches(undefined), true);
    assert.equal(parseLabelSelector("a").matches(undefined), false);
  });

  const invalid: [string, number, RegExp][] = [
    ["=web", 0, /expected a label key/],
    ["app=web,", 8, /expected a requirement after ','/],
    [",app", 0, /expected a label key/],
    ["app web", 4, /expected one of/],
    ["app in web", 7, /expected '\('/],
    ["app in (a", 9, /expected ',' or '\)'/],
    ["app in ()", 8, /needs at least one value/],
    ["app notin ()", 11, /needs at least one value/],
    ["app>x", 4, /expected an integer/],
    ["app<", 4, /expected an integer/],
    ["app=we b", 7, /expected ',' or end of input/],
    ["!app=web", 4, /expected ',' or end of input/],
    ["-bad=x", 0, /invalid label key "-bad"/],
    ["app=-bad", 4, /invalid label value "-bad"/],
    [`app=${"v".repeat(64)}`, 4, /no more than 63 characters/],
    ["a/b/c=x", 0, /invalid label key/],
    ["app=(x)", 4, /expected a label value/],
  ];
  for (const [input, position, message] of invalid) {
    it(`refuses ${JSON.stringify(input)} at position ${position}`, () => {
      assert.throws(
        () => parseLabelSelector(input),
        (e: unknown) => {
          assert.ok(e instanceof SelectorError, `${e}`);
          assert.equal(e.position, position, e.message);
          assert.match(e.message, message);
          assert.match(e.message, /\n {2}.*\n {2} *\^$/); // shows the input with a caret
          return true;
        },
      );
    });
  }
});

describe("labelSelectorFromSpec", () => {
  it("ANDs matchLabels and matchExpressions", () => {
    const s = labelSelectorFromSpec({
      matchLabels: { app: "web" },
      matchExpressions: [
        { key: "env", operator: "In", values: ["prod", "staging"] },
        { key: "legacy", operator: "DoesNotExist" },
        { key: "tier", operator: "Exists" },
        { key: "zone", operator: "NotIn", values: ["b"] },
      ],
    });
    assert.equal(s.matches(L), true);
    assert.equal(s.matches({ ...L, legacy: "1" }), false);
    assert.equal(s.toString(), "app=web,env in (prod,staging),!legacy,tier,zone notin (b)");
  });

  it("selects everything when absent or empty", () => {
    assert.equal(labelSelectorFromSpec(undefined).empty, true);
    assert.equal(labelSelectorFromSpec({}).matches({}), true);
  });

  it("refuses bad expressions, naming where", () => {
    assert.throws(
      () => labelSelectorFromSpec({ matchExpressions: [{ key: "a", operator: "In" }] }),
      /matchExpressions\[0\]\.values: must be specified/,
    );
    assert.throws(
      () =>
        labelSelectorFromSpec({
          matchExpressions: [{ key: "a", operator: "Exists", values: ["x"] }],
        }),
      /matchExpressions\[0\]\.values: may not be specified/,
    );
    assert.throws(
      () => labelSelectorFromSpec({ matchExpressions: [{ key: "a", operator: "Gt" }] }),
      /matchExpressions\[0\]\.operator: unsupported value "Gt"/,
    );
    assert.throws(
      () => labelSelectorFromSpec({ matchLabels: { "-x": "y" } }),
      /matchLabels: invalid key/,
    );
    assert.throws(
      () => labelSelectorFromSpec({ matchLabels: { x: "-y" } }),
      /matchLabels\[x\]: invalid value/,
    );
  });
});

// ---- property: parse(format(requirements)) agrees with a direct reference evaluation -----------

type Req =
  | { op: "=" | "!="; key: string; value: string }
  | { op: "in" | "notin"; key: string; values: string[] }
  | { op: "exists" | "!"; key: string }
  | { op: "gt" | "lt"; key: string; n: number };

const keyArb = fc.constantFrom("a", "b", "c", "example.com/d");
const valueArb = fc.constantFrom("", "x", "y", "1", "5", "10", "07");
const reqArb: fc.Arbitrary<Req> = fc.oneof(
  fc.record({ op: fc.constantFrom("=" as const, "!=" as const), key: keyArb, value: valueArb }),
  fc.record({
    op: fc.constantFrom("in" as const, "notin" as const),
    key: keyArb,
    values: fc.array(
      valueArb.filter((v) => v !== ""),
      { minLength: 1, maxLength: 3 },
    ),
  }),
  fc.record({ op: fc.constantFrom("exists" as const, "!" as const), key: keyArb }),
  fc.record({
    op: fc.constantFrom("gt" as const, "lt" as const),
    key: keyArb,
    n: fc.integer({ min: -5, max: 12 }),
  }),
);

function format(r: Req): string {
  switch (r.op) {
    case "=":
    case "!=":
      return `${r.key}${r.op}${r.value}`;
    case "in":
    case "notin":
      return `${r.key} ${r.op} (${r.values.join(", ")})`;
    case "exists":
      return r.key;
    case "!":
      return `!${r.key}`;
    case "gt":
      return `${r.key}>${r.n}`;
    case "lt":
      return `${r.key}<${r.n}`;
  }
}

/** The semantics of apimachinery's Requirement.Matches, written out directly. */
function reference(r: Req, labels: Record<string, string>): boolean {
  const has = r.key in labels;
  const v = labels[r.key];
  switch (r.op) {
    case "=":
      return has && v === r.value;
    case "!=":
      return !has || v !== r.value;
    case "in":
      return has && r.values.includes(v!);
    case "notin":
      return !has || !r.values.includes(v!);
    case "exists":
      return has;
    case "!":
      return !has;
    case "gt":
      return has && /^-?\d+$/.test(v!) && Number(v) > r.n;
    case "lt":
      return has && /^-?\d+$/.test(v!) && Number(v) < r.n;
  }
}

describe("label selector properties", () => {
  it("parsing a formatted selector matches exactly what the reference matches", () => {
    fc.assert(
      fc.property(
        fc.array(reqArb, { maxLength: 5 }),
        fc.dictionary(keyArb, valueArb),
        (reqs, labels) => {
          const sel = parseLabelSelector(reqs.map(format).join(","));
          assert.equal(
            sel.matches(labels),
            reqs.every((r) => reference(r, labels)),
          );
          // The canonical form is a fixed point.
          assert.equal(parseLabelSelector(sel.toString()).toString(), sel.toString());
        },
      ),
    );
  });

  it("never throws anything but SelectorError on arbitrary input", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(..."ab=!(),<> 1in".split("")) }), (input) => {
        try {
          parseLabelSelector(input);
        } catch (e) {
          assert.ok(e instanceof SelectorError, `${input}: ${e}`);
          assert.ok(e.position >= 0 && e.position <= input.length);
        }
      }),
    );
  });
});
