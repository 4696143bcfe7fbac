/**
 * The work-queue suite's cases for rate limiting: `addRateLimited` waits for the limiter's delay
 * and charges it, `forget` resets the count, and a queue that is shutting down charges nothing.
 */
import assert from "node:assert/strict";
import { type QueueCase, rateLimiting, setUp } from "./queue-conformance-setup.ts";

const needs = ["rateLimiting"] as const;

/** The cases of a queue that declares `rateLimiting`. */
export const rateLimitCases: readonly QueueCase[] = [
  {
    needs,
    name: "addRateLimited waits for the limiter's delay, per item",
    run(s) {
      const { clock, q } = setUp(s);
      rateLimiting(q).addRateLimited("one");
      assert.equal(clock.nextTimerAt(), clock.now() + 1);
      clock.advance(1);
      assert.equal(q.size, 1);
      rateLimiting(q).addRateLimited("two");
      rateLimiting(q).addRateLimited("one");
      assert.equal(rateLimiting(q).numRequeues("one"), 2);
      assert.equal(rateLimiting(q).numRequeues("two"), 1);
    },
  },

  {
    needs,
    name: "the limiter is charged even when the add is de-duplicated",
    run(s) {
      const { q } = setUp(s);
      rateLimiting(q).addRateLimited("a");
      rateLimiting(q).addRateLimited("a");
      assert.equal(rateLimiting(q).numRequeues("a"), 2);
      assert.equal(q.snapshot().waiting.length, 1);
    },
  },

  {
    needs,
    name: "after shutdown addRateLimited neither adds nor charges",
    run(s) {
      const { q } = setUp(s);
      q.shutDown();
      rateLimiting(q).addRateLimited("a");
      assert.equal(rateLimiting(q).numRequeues("a"), 0);
      assert.equal(q.snapshot().waiting.length, 0);
    },
  },

  {
    needs,
    name: "forget resets the count and leaves the item where it is",
    async run(s) {
      const { clock, q } = setUp(s);
      rateLimiting(q).addRateLimited("a");
      clock.advance(1);
      const a = (await q.get())!;
      rateLimiting(q).forget(a);
      assert.equal(rateLimiting(q).numRequeues(a), 0);
      assert.equal(q.snapshot().inFlight.length, 1, "still in flight until done");
      q.done(a);
      rateLimiting(q).addRateLimited("a");
      assert.deepEqual(
        q.snapshot().waiting.map((w) => [w.item, w.readyAtMs]),
        [["a", clock.now() + 1]],
        "back to the base delay",
      );
    },
  },
];
