import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { acceptNames, type CrdNames, requestedNames } from "./crd-names.ts";

const foo = requestedNames({ plural: "foos", kind: "Foo", shortNames: ["fo"] });

describe("acceptNames", () => {
  it("accepts every name no other CRD of the group holds, with kube's defaults", () => {
    const v = acceptNames(foo, undefined, []);
    assert.deepEqual(v, {
      accepted: {
        plural: "foos",
        singular: "foo",
        shortNames: ["fo"],
        kind: "Foo",
        listKind: "FooList",
        categories: [],
      },
      ok: true,
      reason: "NoConflicts",
      message: "no conflicts found",
    });
  });

  it("keeps what was accepted before for each name another CRD holds, reporting the last conflict", () => {
    const held = requestedNames({ plural: "bars", kind: "Bar" });
    const others: CrdNames[] = [requestedNames({ plural: "bazs", singular: "bar", kind: "Foo" })];
    const want = requestedNames({ plural: "bars", singular: "bar", kind: "Foo" });
    const v = acceptNames(want, held, others);
    assert.equal(v.ok, false);
    // singular "bar" was already this CRD's own: not a conflict; kind and list kind are taken.
    assert.deepEqual([v.reason, v.message], ["ListKindConflict", '"FooList" is already in use']);
    assert.deepEqual(
      [v.accepted.singular, v.accepted.kind, v.accepted.listKind],
      ["bar", "Bar", "BarList"],
    );
  });

  it("shares one space between plurals, singulars and short names, another between kinds", () => {
    const others = [foo];
    const plural = acceptNames(requestedNames({ plural: "fo", kind: "X" }), undefined, others);
    assert.deepEqual([plural.reason, plural.accepted.plural], ["PluralConflict", ""]);
    const short = acceptNames(
      requestedNames({ plural: "xs", kind: "X", shortNames: ["foo", "x"] }),
      undefined,
      others,
    );
    assert.deepEqual(
      [short.reason, short.message],
      ["ShortNamesConflict", '"foo" is already in use'],
    );
    assert.deepEqual(
      short.accepted.shortNames,
      [],
      "no short name is accepted while one conflicts",
    );
    const kindAsPlural = acceptNames(
      requestedNames({ plural: "ys", singular: "y", kind: "foos" }),
      undefined,
      others,
    );
    assert.equal(kindAsPlural.ok, true, "a kind never conflicts with a plural");
  });
});
