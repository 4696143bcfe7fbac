/** Kubernetes quantities: exact parsing, rounding up, and refusal of what is not one. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { milliValue, QuantityError, value } from "../../../examples/mini-scheduler/quantity.ts";

describe("mini-scheduler: quantities", () => {
  it("reads CPU in millicores, rounded up", () => {
    const cases: [string | number, number][] = [
      ["500m", 500],
      ["2", 2000],
      ["0.5", 500],
      [".5", 500],
      ["5.", 5000],
      ["1.25", 1250],
      ["0.1m", 1],
      ["100n", 1],
      ["2500u", 3],
      ["1e3", 1_000_000],
      ["1E-3", 1],
      ["+1", 1000],
      ["-250m", -250],
      ["0", 0],
      [2, 2000],
      [0.25, 250],
    ];
    for (const [q, want] of cases) assert.equal(milliValue(q), want, String(q));
  });

  it("reads memory and counts in whole units, binary and decimal suffixes", () => {
    const cases: [string | number, number][] = [
      ["1Ki", 1024],
      ["2Gi", 2 * 1024 ** 3],
      ["1.5Gi", 1.5 * 1024 ** 3],
      ["0.5Mi", 512 * 1024],
      ["1k", 1000],
      ["128M", 128_000_000],
      ["1G", 1e9],
      ["1T", 1e12],
      ["1Pi", 1024 ** 5],
      ["110", 110],
      ["1.5", 2],
      ["1m", 1],
      ["12e6", 12_000_000],
      [1e21, 1e21],
    ];
    for (const [q, want] of cases) assert.equal(value(q), want, String(q));
  });

  it("refuses what is not a quantity, naming it", () => {
    for (const bad of [
      "",
      "abc",
      "1.2.3",
      "1 Gi",
      "Gi",
      "1gi",
      "1KiB",
      "1e",
      "1K",
      "--1",
      "1e99",
      "1e-99",
      ".",
    ]) {
      assert.throws(
        () => value(bad),
        (err: unknown) => err instanceof QuantityError && err.quantity === bad,
        bad,
      );
    }
    assert.throws(() => milliValue(Number.NaN), QuantityError);
    assert.throws(() => value(Number.POSITIVE_INFINITY), QuantityError);
  });

  it("agrees with arithmetic for every suffix (property)", () => {
    const binary = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30 } as const;
    const decimal = { "": 1, k: 1e3, M: 1e6, G: 1e9 } as const;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), (n) => {
        for (const [s, f] of Object.entries(binary)) assert.equal(value(`${n}${s}`), n * f);
        for (const [s, f] of Object.entries(decimal)) assert.equal(value(`${n}${s}`), n * f);
        assert.equal(milliValue(`${n}m`), n);
        assert.equal(value(`${n}m`), Math.ceil(n / 1000));
        assert.equal(milliValue(`${n}`), n * 1000);
      }),
    );
  });
});
