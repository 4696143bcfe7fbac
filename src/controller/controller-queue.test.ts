import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeClock } from "../testing/index.ts";
import { LOW_PRIORITY, makeControllerQueue, namespaceOfKey } from "./controller-queue.ts";

async function drain(q: ReturnType<typeof makeControllerQueue>, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const got = await q.get();
    out.push(got!.key);
    q.done(got!.key);
  }
  return out;
}

describe("controller queues", () => {
  it("priority: fresh events before the initial list, FIFO within a priority", async () => {
    const q = makeControllerQueue("priority", { name: "p", clock: new FakeClock() });
    for (const k of ["a", "b", "c"]) q.add(k, { priority: LOW_PRIORITY });
    q.add("fresh", { priority: 0 });
    assert.deepEqual(await drain(q, 4), ["fresh", "a", "b", "c"]);
  });

  it("two-lane: priority >= 0 is the fast lane, shown as such in snapshots", async () => {
    const q = makeControllerQueue("two-lane", { name: "t", clock: new FakeClock() });
    q.add("slow-1", { priority: -1 });
    q.add("slow-2", { priority: -1 });
    q.add("fast-1", { priority: 0 });
    assert.deepEqual(
      q.snapshot().ready.map((r) => [r.item, r.priority]),
      [
        ["fast-1", 0],
        ["slow-1", -1],
        ["slow-2", -1],
      ],
    );
    // Re-adding a queued slow key as fast moves it to the fast lane.
    q.add("slow-2", { priority: 0 });
    assert.deepEqual(await drain(q, 3), ["fast-1", "slow-2", "slow-1"]);
  });

  it("fair: round-robin across namespaces", async () => {
    const q = makeControllerQueue("fair", { name: "f", clock: new FakeClock() });
    for (let i = 0; i < 3; i++) q.add(`big/${i}`);
    q.add("small/0");
    assert.deepEqual(await drain(q, 4), ["big/0", "small/0", "big/1", "big/2"]);
  });

  it("fifo: delays and rate limits go through the queue's clock", async () => {
    const clock = new FakeClock();
    const q = makeControllerQueue("fifo", { name: "q", clock });
    q.add("later", { afterMs: 100 });
    q.add("now");
    assert.deepEqual(await drain(q, 1), ["now"]);
    assert.equal(q.size, 0);
    await clock.advanceAsync(100);
    assert.deepEqual(await drain(q, 1), ["later"]);
    q.add("x", { rateLimited: true });
    assert.equal(q.numRequeues("x"), 1);
    q.forget("x");
    assert.equal(q.numRequeues("x"), 0);
  });

  it("splits namespaces out of keys", () => {
    assert.equal(namespaceOfKey("ns/name"), "ns");
    assert.equal(namespaceOfKey("cluster-scoped"), "");
  });
});
