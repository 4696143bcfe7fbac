import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeClock } from "../testing/index.ts";
import { ItemExponentialFailureRateLimiter } from "../workqueue/index.ts";
import { Calls, setup } from "./controller-fixtures.test.ts";
import { describeReason, ReasonBook } from "./reasons.ts";
import type { ReconcileReason } from "./reconciler.ts";

const event = (name: string): ReconcileReason => ({
  type: "event",
  event: "update",
  source: "self",
  object: { kind: "ConfigMap", namespace: "default", name },
});

describe("ReasonBook", () => {
  it("gives the reasons noted since the key was queued, and the wait since the first", () => {
    const book = new ReasonBook();
    book.note("k", event("a"), 100);
    book.note("k", event("b"), 150);
    assert.deepEqual(book.take("k", 400), { reasons: [event("a"), event("b")], waitedMs: 300 });
    assert.deepEqual(book.take("k", 500), { reasons: [{ type: "requeue" }], waitedMs: 0 });
  });

  it("counts a delayed reason from when its delay ends, and drops one not due yet", () => {
    const book = new ReasonBook();
    // A requeue-after of 5 s, then an event 1 s later makes the key ready at once.
    book.note("k", { type: "requeue-after", afterMs: 5000 }, 0, 5000);
    book.note("k", event("a"), 1000);
    assert.deepEqual(book.take("k", 1200), { reasons: [event("a")], waitedMs: 200 });
    // Nothing else: the delay ended, the key was taken 3 ms later.
    book.note("k", { type: "retry", attempt: 1, error: "x" }, 2000, 2500);
    assert.deepEqual(book.take("k", 2503), {
      reasons: [{ type: "retry", attempt: 1, error: "x" }],
      waitedMs: 3,
    });
    // A timer that fired a little before the clock shows its due time.
    book.note("k", { type: "requeue-after", afterMs: 10 }, 3000, 3010);
    assert.deepEqual(book.take("k", 3009).reasons, [{ type: "requeue-after", afterMs: 10 }]);
  });

  it("keeps at most 16 reasons a key", () => {
    const book = new ReasonBook();
    for (let i = 0; i < 20; i++) book.note("k", event(String(i)), i);
    assert.equal(book.take("k", 20).reasons.length, 16);
  });

  it("describes reasons in one line", () => {
    assert.equal(describeReason(event("a")), "update of ConfigMap default/a");
    assert.equal(
      describeReason({
        type: "event",
        event: "add",
        source: "owned",
        object: { kind: "Secret", name: "s" },
      }),
      "add of Secret s (owned)",
    );
    assert.equal(describeReason({ type: "requeue-after", afterMs: 5 }), "requeue after 5 ms");
    assert.equal(describeReason({ type: "retry", attempt: 2, error: "e" }), "retry 2 after: e");
  });
});

describe("ctx.reason with delays", () => {
  it("is the event that ended a requeue-after's delay early, and the requeue-after when it ran out", async () => {
    const clock = new FakeClock();
    const calls = new Calls();
    await using t = await setup(
      (request, ctx) => {
        calls.push(request, ctx);
        return { requeueAfterMs: 5000 };
      },
      {},
      undefined,
      clock,
    );
    await t.c.start();
    await t.cms.create({ metadata: { name: "periodic" } });
    await calls.until((s) => s.length === 1);
    await clock.advanceAsync(1000);
    await t.cms.patch("periodic", "merge", { data: { x: "1" } });
    await calls.until((s) => s.length === 2);
    const second = calls.seen[1]!.ctx;
    assert.equal(second.reason.type, "event", describeReason(second.reason));
    assert.deepEqual(
      second.reasons,
      [second.reason],
      "the cancelled requeue-after is not a reason",
    );
    assert.equal(second.waitedMs, 0, "it waited from the event, not from the requeue-after");
    // That reconcile asked for 5 s again: after 5 s (not 4), the requeue-after runs.
    await clock.advanceAsync(4999);
    assert.equal(calls.seen.length, 2);
    await clock.advanceAsync(1);
    await calls.until((s) => s.length === 3);
    const third = calls.seen[2]!.ctx;
    assert.deepEqual(third.reason, { type: "requeue-after", afterMs: 5000 });
    assert.equal(third.waitedMs, 0, "due now, taken now");
  });

  it("is the event that came during a retry's backoff", async () => {
    const clock = new FakeClock();
    const calls = new Calls();
    await using t = await setup(
      (request, ctx) => {
        calls.push(request, ctx);
        if (calls.seen.length === 1) throw new Error("first try fails");
      },
      { rateLimiter: new ItemExponentialFailureRateLimiter({ baseDelayMs: 60_000 }) },
      undefined,
      clock,
    );
    await t.c.start();
    await t.cms.create({ metadata: { name: "x" } });
    await calls.until((s) => s.length === 1);
    await clock.advanceAsync(10_000);
    await t.cms.patch("x", "merge", { data: { fixed: "yes" } });
    await calls.until((s) => s.length === 2);
    assert.equal(calls.seen[1]!.ctx.reason.type, "event");
    assert.equal(calls.seen[1]!.ctx.reasons.length, 1);
  });
});
