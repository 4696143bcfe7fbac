import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FailureCounts } from "./failure-counts.ts";

describe("FailureCounts", () => {
  it("counts failures per item and forgets them", () => {
    const c = new FailureCounts<string>();
    assert.deepEqual([c.increment("a"), c.increment("a"), c.increment("b")], [0, 1, 0]);
    assert.deepEqual([c.get("a"), c.get("b"), c.get("x")], [2, 1, 0]);
    c.forget("a");
    c.forget("a");
    c.forget("never");
    assert.deepEqual([c.get("a"), c.increment("a"), c.get("a")], [0, 0, 1]);
  });

  it("drops everything when the last failing item is forgotten", () => {
    const c = new FailureCounts<string>();
    for (const k of ["a", "b", "c"]) c.increment(k);
    for (const k of ["a", "b", "c"]) c.forget(k);
    assert.equal(c.size, 0);
  });

  it("keeps forgotten entries bounded by the failing ones", () => {
    const c = new FailureCounts<string>();
    for (let i = 0; i < 10; i++) c.increment(`failing-${i}`);
    let max = 0;
    for (let i = 0; i < 50_000; i++) {
      c.increment(`k${i}`);
      c.forget(`k${i}`);
      max = Math.max(max, c.size);
    }
    assert.ok(max <= 10 + 1025 + 30 + 1, `held ${max} entries for 10 failing`);
    assert.equal(c.get("failing-3"), 1, "a sweep keeps the failing counts");
  });
});
