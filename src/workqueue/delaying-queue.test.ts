import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeClock } from "../testing/index.ts";
import { DelayingQueue } from "./delaying-queue.ts";

describe("DelayingQueue", () => {
  it("addAfter rejects a delay that is not a number", () => {
    const q = new DelayingQueue({ clock: new FakeClock() });
    assert.throws(() => q.addAfter("a", Number.NaN), /addAfter: delayMs must be a number, got NaN/);
    assert.throws(() => q.addAfter("a", "5" as unknown as number), RangeError);
    assert.equal(q.size, 0);
  });

  it("sets no timer until an item waits", () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    q.add("a");
    assert.equal(clock.pendingTimers, 0);
    q.addAfter("b", 10);
    assert.equal(clock.pendingTimers, 1);
  });

  it("re-arms when an earlier item arrives and after a superseded head", () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    q.addAfter("late", 100);
    q.addAfter("early", 10);
    assert.deepEqual([clock.pendingTimers, clock.nextTimerAt()], [1, clock.now() + 10]);
    q.add("early");
    clock.advance(10);
    assert.equal(q.size, 1, "the superseded head left only the immediate add");
    assert.deepEqual([clock.pendingTimers, clock.nextTimerAt()], [1, clock.now() + 90]);
    clock.advance(90);
    assert.equal(q.size, 2);
  });

  it("lists waiting items by ready time in the snapshot", () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    q.addAfter("b", 20);
    q.addAfter("a", 10);
    q.addAfter("c", 10);
    const t = clock.now();
    assert.deepEqual(q.snapshot().waiting, [
      { item: "a", readyAtMs: t + 10 },
      { item: "c", readyAtMs: t + 10 },
      { item: "b", readyAtMs: t + 20 },
    ]);
  });
});
