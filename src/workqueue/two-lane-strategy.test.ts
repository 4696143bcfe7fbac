import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InvalidOptionError } from "../core/index.ts";
import { FakeClock } from "../testing/index.ts";
import { Queue } from "./queue.ts";
import { RateLimitingQueue } from "./rate-limiting-queue.ts";
import { TwoLaneStrategy } from "./two-lane-strategy.ts";

/** A lane oracle: keys in `fast` are fast. */
function oracle() {
  const fast = new Set<string>();
  return { fast, strategy: new TwoLaneStrategy<string>({ isFast: (k) => fast.has(k) }) };
}

function popAll(s: TwoLaneStrategy<string>): string[] {
  const out: string[] = [];
  while (s.size > 0) out.push(s.pop());
  return out;
}

describe("TwoLaneStrategy", () => {
  it("TL-04 TL-06 serves the fast lane first, FIFO within each lane", () => {
    const { fast, strategy: s } = oracle();
    fast.add("f1");
    fast.add("f2");
    for (const k of ["s1", "f1", "s2", "f2", "s3"]) s.push(k);
    assert.deepEqual([s.size, s.fastSize, s.slowSize], [5, 2, 3]);
    assert.deepEqual([...s.values()], ["f1", "f2", "s1", "s2", "s3"]);
    assert.deepEqual(popAll(s), ["f1", "f2", "s1", "s2", "s3"]);
  });

  it("touch moves an item to the back of the lane it now belongs to, or leaves it", () => {
    const { fast, strategy: s } = oracle();
    for (const k of ["a", "b", "c"]) s.push(k);
    s.touch("b");
    assert.deepEqual([...s.values()], ["a", "b", "c"], "same lane: keeps its place");
    fast.add("c");
    s.touch("c");
    fast.add("a");
    s.touch("a");
    assert.deepEqual([...s.values()], ["c", "a", "b"]);
    fast.delete("c");
    s.touch("c");
    assert.deepEqual([...s.values()], ["a", "b", "c"], "back to the tail of the slow lane");
    s.touch("unknown");
    assert.equal(s.size, 3);
  });

  it("follows the two-lane reference scenario", () => {
    const { fast, strategy: s } = oracle();
    for (const k of ["1", "3", "5"]) fast.add(k);
    s.push("0");
    s.push("1");
    assert.equal(s.pop(), "1");
    s.push("2");
    assert.equal(s.pop(), "0");
    s.push("3");
    s.push("4");
    fast.delete("3");
    s.touch("3");
    assert.equal(s.pop(), "2");
    s.touch("4");
    assert.equal(s.pop(), "4");
    s.push("5");
    s.push("6");
    fast.add("6");
    s.touch("6");
    s.touch("5");
    assert.deepEqual([s.pop(), s.pop()], ["5", "6"]);
    assert.deepEqual([...s.values()], ["3"]);
  });

  it("a re-add of an item in flight picks its lane when it is queued again", async () => {
    const { fast, strategy } = oracle();
    const q = new Queue<string>({ strategy });
    q.add("x");
    q.add("slow");
    assert.equal(await q.get(), "x");
    fast.add("x");
    q.add("x");
    q.done("x");
    assert.deepEqual([strategy.fastSize, await q.get()], [1, "x"]);
  });

  it("an item in both lanes' history is never handed to two workers at once", async () => {
    const { fast, strategy } = oracle();
    const q = new Queue<string>({ strategy });
    q.add("k");
    const first = await q.get();
    fast.add("k");
    q.add("k");
    q.add("other");
    assert.equal(await q.get(), "other", "k waits for its first worker");
    q.done(first!);
    assert.equal(await q.get(), "k");
  });

  it("a fast item is never behind slow ones, however many are queued", async () => {
    const { fast, strategy } = oracle();
    const q = new RateLimitingQueue<string>({ strategy, clock: new FakeClock() });
    for (let i = 0; i < 10_000; i++) q.add(`slow-${i}`);
    const first = await q.get();
    fast.add("urgent");
    q.add("urgent");
    fast.add("slow-5000");
    q.add("slow-5000");
    assert.deepEqual([await q.get(), await q.get()], ["urgent", "slow-5000"]);
    q.done(first!);
  });

  it("shutdown hands out everything accepted in both lanes, then undefined", async () => {
    const { fast, strategy } = oracle();
    const q = new Queue<string>({ strategy });
    fast.add("f");
    q.add("s");
    q.add("f");
    q.shutDown();
    assert.deepEqual([await q.get(), await q.get(), await q.get()], ["f", "s", undefined]);
  });

  it("requires isFast", () => {
    assert.throws(
      () => new TwoLaneStrategy({} as never),
      (e: unknown) => e instanceof InvalidOptionError && e.option === "isFast",
    );
  });
});
