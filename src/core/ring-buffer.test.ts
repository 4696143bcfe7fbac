import assert from "node:assert/strict";
import { describe, it } from "node:test";
import v8 from "node:v8";
import vm from "node:vm";
import fc from "fast-check";
import { InvalidOptionError } from "./options.ts";
import { RingBuffer } from "./ring-buffer.ts";

describe("RingBuffer", () => {
  it("is a FIFO that grows as needed", () => {
    const r = new RingBuffer<number>({ initialCapacity: 2 });
    for (let i = 0; i < 10; i++) assert.equal(r.push(i), undefined);
    assert.equal(r.size, 10);
    assert.equal(r.capacity, 16);
    assert.deepEqual(r.toArray(), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.equal(r.shift(), 0);
    assert.equal(r.peek(), 1);
    assert.equal(r.peekLast(), 9);
    assert.equal(r.at(-2), 8);
    assert.equal(r.at(100), undefined);
  });

  it("keeps order across wrap-around and growth", () => {
    const r = new RingBuffer<number>({ initialCapacity: 4 });
    r.push(1);
    r.push(2);
    r.push(3);
    r.shift();
    r.shift();
    r.push(4);
    r.push(5);
    r.push(6); // wraps
    r.push(7); // grows while wrapped
    assert.deepEqual([...r], [3, 4, 5, 6, 7]);
  });

  it("evicts the oldest entry once at maxCapacity, and returns it", () => {
    const r = new RingBuffer<string>({ initialCapacity: 1, maxCapacity: 3 });
    assert.equal(r.push("a"), undefined);
    assert.equal(r.push("b"), undefined);
    assert.equal(r.push("c"), undefined);
    assert.equal(r.push("d"), "a");
    assert.deepEqual(r.toArray(), ["b", "c", "d"]);
    assert.equal(r.size, 3);
  });

  it("pop takes the newest; clear empties", () => {
    const r = new RingBuffer<number>();
    r.push(1);
    r.push(2);
    assert.equal(r.pop(), 2);
    assert.equal(r.pop(), 1);
    assert.equal(r.pop(), undefined);
    assert.equal(r.shift(), undefined);
    r.push(3);
    r.clear();
    assert.equal(r.size, 0);
    assert.deepEqual(r.toArray(), []);
  });

  it("does not retain removed entries", async () => {
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc") as () => void;
    const r = new RingBuffer<object>({ initialCapacity: 4 });
    const refs: WeakRef<object>[] = [];
    (() => {
      for (let i = 0; i < 3; i++) {
        const o = { payload: i };
        refs.push(new WeakRef(o));
        r.push(o);
      }
    })();
    r.shift();
    r.pop();
    await new Promise((resolve) => setImmediate(resolve)); // WeakRef targets live to the end of the job
    gc();
    assert.equal(refs[0]!.deref(), undefined, "a shifted entry is still referenced");
    assert.equal(refs[2]!.deref(), undefined, "a popped entry is still referenced");
    assert.notEqual(refs[1]!.deref(), undefined);
  });

  it("refuses bad capacities with an error naming the option", () => {
    assert.throws(() => new RingBuffer({ initialCapacity: 0 }), InvalidOptionError);
    assert.throws(
      () => new RingBuffer({ maxCapacity: 0.5 }),
      (e: unknown) => e instanceof InvalidOptionError && e.option === "maxCapacity",
    );
  });

  it("matches an array model under random push, shift and pop (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.option(fc.integer({ min: 1, max: 12 }), { nil: undefined }),
        fc.array(
          fc.oneof(fc.integer(), fc.constant("shift" as const), fc.constant("pop" as const)),
        ),
        (initialCapacity, maxCapacity, ops) => {
          const r = new RingBuffer<number>({ initialCapacity, maxCapacity });
          const model: number[] = [];
          for (const op of ops) {
            if (op === "shift") assert.equal(r.shift(), model.shift());
            else if (op === "pop") assert.equal(r.pop(), model.pop());
            else {
              const evicted = r.push(op);
              model.push(op);
              const expected =
                maxCapacity !== undefined && model.length > maxCapacity ? model.shift() : undefined;
              assert.equal(evicted, expected);
            }
            assert.deepEqual(r.toArray(), model);
          }
        },
      ),
    );
  });
});
