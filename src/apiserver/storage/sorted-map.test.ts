import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { SortedMap } from "./sorted-map.ts";

/** Keys of a few levels (`a/b/c`), so that prefixes match runs of keys and chunks split. */
const key = fc
  .array(fc.constantFrom("a", "b", "ab", "\uffff", "z"), { minLength: 1, maxLength: 3 })
  .chain((parts) => fc.integer({ min: 0, max: 400 }).map((n) => `${parts.join("/")}/${n}`));

describe("SortedMap", () => {
  it("behaves like a map with sorted keys under random sets and deletes, across chunk splits", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), key, fc.integer()), { maxLength: 3000 }),
        key,
        fc.constantFrom("", "a", "a/", "ab/", "b/a", "\uffff", "\uffff/", "z/z/"),
        (ops, from, prefix) => {
          const map = new SortedMap<number>();
          const model = new Map<string, number>();
          for (const [set, k, v] of ops) {
            if (set) {
              map.set(k, v);
              model.set(k, v);
            } else assert.equal(map.delete(k), model.delete(k));
          }
          const sorted = [...model.keys()].sort();
          assert.equal(map.size, model.size);
          for (const k of sorted) assert.equal(map.get(k), model.get(k));
          assert.deepEqual(
            [...map.keysFrom(from)],
            sorted.filter((k) => k >= from),
          );
          assert.deepEqual(
            map.valuesWithPrefix(prefix),
            sorted.filter((k) => k.startsWith(prefix)).map((k) => model.get(k)),
          );
        },
      ),
      { numRuns: 60 },
    );
  });

  it("is empty after clear", () => {
    const map = new SortedMap<number>();
    for (let i = 0; i < 2000; i++) map.set(`k/${i}`, i);
    map.clear();
    assert.equal(map.size, 0);
    assert.equal(map.get("k/1"), undefined);
    assert.deepEqual(map.valuesWithPrefix("k/"), []);
    map.set("k/1", 1);
    assert.deepEqual(map.valuesWithPrefix(""), [1]);
  });
});
