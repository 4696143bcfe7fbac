import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkNumber, InvalidOptionError } from "./options.ts";
import {
  checkDns1123Label,
  checkDns1123Subdomain,
  checkLabelValue,
  checkQualifiedName,
} from "./validation.ts";

describe("name validation", () => {
  it("DNS-1123 labels", () => {
    for (const ok of ["a", "my-name", "123-abc", "a".repeat(63)])
      assert.equal(checkDns1123Label(ok), undefined, ok);
    for (const bad of ["", "A", "-a", "a-", "a.b", "a".repeat(64)])
      assert.notEqual(checkDns1123Label(bad), undefined, bad);
    // A subdomain is told what keeps it from being a label, as kube tells it.
    assert.equal(checkDns1123Label("a.b"), "must not contain dots");
  });

  it("DNS-1123 subdomains", () => {
    for (const ok of ["a", "example.com", "a-b.c-d", "a".repeat(253)]) {
      assert.equal(checkDns1123Subdomain(ok), undefined, ok);
    }
    for (const bad of ["", "Example.com", ".a", "a.", "a..b", "a_b", "a".repeat(254)]) {
      assert.notEqual(checkDns1123Subdomain(bad), undefined, bad);
    }
  });

  it("qualified names", () => {
    for (const ok of ["app", "My.Name_1", "example.com/owner", "k8s.io/initial-events-end"]) {
      assert.equal(checkQualifiedName(ok), undefined, ok);
    }
    const bad: [string, RegExp][] = [
      ["", /name part must be non-empty/],
      ["/a", /prefix part must be non-empty/],
      ["Example.com/a", /prefix part/],
      ["a/b/c", /qualified name/],
      ["-a", /name part must consist/],
      [`x/${"a".repeat(64)}`, /no more than 63/],
    ];
    for (const [value, why] of bad) assert.match(checkQualifiedName(value) ?? "", why, value);
  });

  it("label values", () => {
    for (const ok of ["", "a", "My_value.1", "a".repeat(63)])
      assert.equal(checkLabelValue(ok), undefined, ok);
    for (const bad of ["-a", "a-", "a b", "a/b", "a".repeat(64)])
      assert.notEqual(checkLabelValue(bad), undefined, bad);
  });
});

describe("checkNumber", () => {
  it("passes good values through", () => {
    assert.equal(checkNumber("X", "n", 5, { min: 0, max: 10, integer: true }), 5);
    assert.equal(
      checkNumber("X", "n", Number.POSITIVE_INFINITY, { min: 0, infinite: true }),
      Number.POSITIVE_INFINITY,
    );
  });

  it("names the owner, the option, the bound and the value", () => {
    const cases: [number, object, string][] = [
      [Number.NaN, {}, "X: option n must be a number, got NaN"],
      [Number.POSITIVE_INFINITY, {}, "X: option n must be finite, got Infinity"],
      [1.5, { integer: true }, "X: option n must be an integer, got 1.5"],
      [-1, { min: 0 }, "X: option n must be >= 0, got -1"],
      [0, { above: 0 }, "X: option n must be > 0, got 0"],
      [11, { max: 10 }, "X: option n must be <= 10, got 11"],
    ];
    for (const [value, bounds, message] of cases) {
      assert.throws(
        () => checkNumber("X", "n", value, bounds),
        (e: unknown) =>
          e instanceof InvalidOptionError &&
          e.message === message &&
          e.owner === "X" &&
          e.option === "n" &&
          Object.is(e.value, value),
      );
    }
  });
});
