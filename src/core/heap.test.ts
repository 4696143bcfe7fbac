import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { Heap, type HeapNode } from "./heap.ts";

const byNumber = (a: number, b: number) => a < b;

describe("Heap", () => {
  it("pops in ascending order", () => {
    const h = new Heap(byNumber);
    for (const n of [5, 1, 4, 1, 3, 9, 2]) h.push(n);
    const out: number[] = [];
    while (h.size > 0) out.push(h.pop()!);
    assert.deepEqual(out, [1, 1, 2, 3, 4, 5, 9]);
    assert.equal(h.pop(), undefined);
    assert.equal(h.peek(), undefined);
  });

  it("removes an entry by handle, and only once", () => {
    const h = new Heap(byNumber);
    const nodes = [7, 3, 5, 1].map((n) => h.push(n));
    assert.equal(h.remove(nodes[1]!), true);
    assert.equal(h.remove(nodes[1]!), false);
    assert.equal(nodes[1]!.index, -1);
    assert.deepEqual([h.pop(), h.pop(), h.pop()], [1, 5, 7]);
  });

  it("re-positions an entry whose key changed, in either direction", () => {
    const h = new Heap<{ k: number }>((a, b) => a.k < b.k);
    const a = h.push({ k: 10 });
    h.push({ k: 20 });
    const c = h.push({ k: 30 });
    (c.value as { k: number }).k = 1;
    h.update(c);
    assert.equal(h.peek()!.k, 1);
    (a.value as { k: number }).k = 99;
    h.update(a);
    assert.deepEqual([h.pop()!.k, h.pop()!.k, h.pop()!.k], [1, 20, 99]);
  });

  it("refuses to update a node that left the heap", () => {
    const h = new Heap(byNumber);
    const n = h.push(1);
    h.pop();
    assert.throws(() => h.update(n), /not in this heap/);
  });

  it("clear empties it and detaches every node", () => {
    const h = new Heap(byNumber);
    const n = h.push(1);
    h.push(2);
    h.clear();
    assert.equal(h.size, 0);
    assert.equal(n.index, -1);
    assert.equal(h.remove(n), false);
  });

  it("behaves like a sorted array under random push, pop, remove and update (property)", () => {
    type Op =
      | { op: "push"; v: number }
      | { op: "pop" }
      | { op: "remove"; i: number }
      | { op: "update"; i: number; v: number };
    const opArb: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ op: fc.constant("push" as const), v: fc.integer({ min: -50, max: 50 }) }),
      fc.record({ op: fc.constant("pop" as const) }),
      fc.record({ op: fc.constant("remove" as const), i: fc.nat() }),
      fc.record({
        op: fc.constant("update" as const),
        i: fc.nat(),
        v: fc.integer({ min: -50, max: 50 }),
      }),
    );
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 200 }), (ops) => {
        const heap = new Heap<{ v: number }>((a, b) => a.v < b.v);
        const live: HeapNode<{ v: number }>[] = [];
        const model: { v: number }[] = [];
        for (const o of ops) {
          switch (o.op) {
            case "push": {
              const value = { v: o.v };
              live.push(heap.push(value));
              model.push(value);
              break;
            }
            case "pop": {
              const got = heap.pop();
              const min = model.length === 0 ? undefined : Math.min(...model.map((m) => m.v));
              assert.equal(got?.v, min);
              if (got !== undefined) {
                model.splice(model.indexOf(got), 1);
                live.splice(
                  live.findIndex((n) => n.value === got),
                  1,
                );
              }
              break;
            }
            case "remove": {
              if (live.length === 0) break;
              const node = live.splice(o.i % live.length, 1)[0]!;
              assert.equal(heap.remove(node), true);
              model.splice(model.indexOf(node.value), 1);
              break;
            }
            case "update": {
              if (live.length === 0) break;
              const node = live[o.i % live.length]!;
              (node.value as { v: number }).v = o.v;
              heap.update(node);
              break;
            }
          }
          assert.equal(heap.size, model.length);
          const min = model.length === 0 ? undefined : Math.min(...model.map((m) => m.v));
          assert.equal(heap.peek()?.v, min);
        }
      }),
    );
  });
});
