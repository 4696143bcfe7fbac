import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeClock } from "../testing/index.ts";
import { PriorityQueue } from "./priority-queue.ts";
import { ItemExponentialFailureRateLimiter } from "./rate-limiters.ts";
import { RateLimitingQueue } from "./rate-limiting-queue.ts";

describe("snapshot", () => {
  it("answers 'why is my key not processed?': ready, in flight, waiting, requeues", async () => {
    const clock = new FakeClock();
    const rateLimiter = new ItemExponentialFailureRateLimiter<string>({
      baseDelayMs: 100,
      maxDelayMs: 10_000,
    });
    const q = new RateLimitingQueue<string>({ clock, rateLimiter });
    q.add("ns/busy");
    q.add("ns/ready");
    await q.get();
    q.addRateLimited("ns/failing");
    q.addRateLimited("ns/failing");
    q.addAfter("ns/later", 5000);
    const t = clock.now();
    assert.deepEqual(q.snapshot(), {
      ready: [{ item: "ns/ready" }],
      inFlight: [{ item: "ns/busy", sinceMs: t, dirty: false }],
      waiting: [
        { item: "ns/failing", readyAtMs: t + 100 },
        { item: "ns/later", readyAtMs: t + 5000 },
      ],
      requeues: [{ item: "ns/failing", count: 2 }],
      shuttingDown: false,
    });
  });

  it("shows priorities of ready and waiting items in a priority queue", () => {
    const clock = new FakeClock();
    const q = new PriorityQueue<string>({ clock });
    q.add("low", { priority: -100 });
    q.add("high", { priority: 10 });
    q.add("soon", { priority: 5, afterMs: 20 });
    q.shutDown();
    const snap = q.snapshot();
    assert.deepEqual(snap.ready, [
      { item: "high", priority: 10 },
      { item: "low", priority: -100 },
    ]);
    assert.deepEqual([snap.waiting, snap.shuttingDown], [[], true]);
  });
});
