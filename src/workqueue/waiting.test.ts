import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ADDED, MOVED_EARLIER, UNCHANGED, WaitingItems } from "./waiting.ts";

function due(w: WaitingItems<string>, now: number): string[] {
  const out: string[] = [];
  w.takeDue(now, (item) => out.push(item));
  return out;
}

describe("WaitingItems", () => {
  it("rounds ready times up to 1/8 ms and keeps the earliest", () => {
    const w = new WaitingItems<string>();
    assert.equal(w.add("a", 10.2), ADDED);
    assert.equal(w.add("a", 10.21), UNCHANGED, "same eighth of a millisecond");
    assert.equal(w.add("a", 10.9), UNCHANGED);
    assert.equal(w.add("a", 20), UNCHANGED);
    assert.equal(w.add("a", 5), MOVED_EARLIER);
    assert.deepEqual(due(w, 4), []);
    assert.deepEqual(due(w, 5), ["a"]);
    assert.equal(w.size, 0);
    w.add("b", 10.2);
    assert.deepEqual(due(w, 10.2), [], "10.2 is due at 10.25, never early");
    assert.deepEqual(due(w, 10.25), ["b"]);
  });

  it("hands items due in one millisecond out in the order they arrived in it", () => {
    const w = new WaitingItems<string>();
    w.add("x", 7);
    w.add("y", 9);
    w.add("z", 7);
    w.add("y", 7);
    w.add("a", 3);
    assert.deepEqual(w.entries(), [
      { item: "a", at: 3 },
      { item: "x", at: 7 },
      { item: "z", at: 7 },
      { item: "y", at: 7 },
    ]);
    assert.deepEqual(due(w, 100), ["a", "x", "z", "y"]);
  });

  it("skips stale entries, including an item back in a bucket it left", () => {
    const w = new WaitingItems<string>();
    w.add("a", 10);
    w.add("b", 10);
    w.add("a", 5);
    assert.deepEqual(due(w, 5), ["a"]);
    w.add("a", 10);
    assert.ok(w.remove("b"));
    assert.ok(!w.remove("b"));
    assert.deepEqual(due(w, 10), ["a"]);
  });

  it("an item back in a bucket it left comes out at its new place", () => {
    const w = new WaitingItems<string>();
    w.add("a", 10);
    w.add("b", 10);
    w.add("a", 5);
    assert.deepEqual(due(w, 5), ["a"]);
    w.add("a", 10);
    assert.deepEqual(w.entries(), [
      { item: "b", at: 10 },
      { item: "a", at: 10 },
    ]);
    assert.deepEqual(due(w, 10), ["b", "a"]);
  });

  it("compacts stale entries, keeping order, so memory follows the waiting items", () => {
    const w = new WaitingItems<string>();
    w.add("first", 1_000_000);
    for (let i = 0; i < 5000; i++) {
      w.add(`k${i}`, 1_000_000 + i);
      w.add(`k${i}`, 500_000);
      if (i % 2 === 0) w.remove(`k${i}`);
    }
    w.add("last", 500_000);
    assert.equal(w.size, 2502);
    const fired = due(w, 2_000_000);
    const odd = Array.from({ length: 2500 }, (_, j) => `k${2 * j + 1}`);
    assert.deepEqual(fired, [...odd, "last", "first"]);
    assert.equal(w.nextAt(), undefined);
  });

  it("clear drops everything", () => {
    const w = new WaitingItems<string>();
    w.add("a", 1);
    w.clear();
    assert.deepEqual([w.size, w.nextAt(), due(w, 10)], [0, undefined, []]);
  });
});
