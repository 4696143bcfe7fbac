import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { SortedKeys } from "./sorted-keys.ts";

describe("SortedKeys", () => {
  it("behaves like a sorted set under random adds and deletes, across chunk splits", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 3000 })), { maxLength: 4000 }),
        fc.integer({ min: 0, max: 3000 }),
        (ops, from) => {
          const keys = new SortedKeys();
          const model = new Set<string>();
          for (const [add, n] of ops) {
            const k = String(n).padStart(5, "0");
            if (add) assert.equal(keys.add(k), !model.has(k));
            else assert.equal(keys.delete(k), model.has(k));
            if (add) model.add(k);
            else model.delete(k);
          }
          const start = String(from).padStart(5, "0");
          const expected = [...model].sort().filter((k) => k >= start);
          assert.deepEqual([...keys.from(start)], expected);
          assert.equal(keys.size, model.size);
        },
      ),
      { numRuns: 50 },
    );
  });
});
