import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeClock } from "./fake-clock.ts";

describe("FakeClock", () => {
  it("starts at 2026-01-01T00:00:00Z unless told otherwise", () => {
    assert.equal(new FakeClock().now(), Date.UTC(2026, 0, 1));
    assert.equal(new FakeClock({ startMs: 5 }).now(), 5);
  });

  it("moves only when advanced, by exactly the step", () => {
    const clock = new FakeClock({ startMs: 1000 });
    assert.equal(clock.now(), 1000);
    clock.advance(250);
    assert.equal(clock.now(), 1250);
    clock.advance(0);
    assert.equal(clock.now(), 1250);
  });

  it("runs each timer with now() equal to its due time", () => {
    const clock = new FakeClock({ startMs: 0 });
    const seen: number[] = [];
    clock.setTimer(30, () => seen.push(clock.now()));
    clock.setTimer(10, () => seen.push(clock.now()));
    clock.advance(100);
    assert.deepEqual(seen, [10, 30]);
    assert.equal(clock.now(), 100);
  });

  it("fires within one step the timers that fired callbacks set inside the window", () => {
    const clock = new FakeClock({ startMs: 0 });
    const seen: number[] = [];
    const tick = () => {
      seen.push(clock.now());
      if (seen.length < 5) clock.setTimer(10, tick);
    };
    clock.setTimer(10, tick);
    clock.advance(35);
    assert.deepEqual(seen, [10, 20, 30]);
    assert.equal(clock.pendingTimers, 1);
    assert.equal(clock.nextTimerAt(), 40);
    clock.advance(100);
    assert.deepEqual(seen, [10, 20, 30, 40, 50]);
    assert.equal(clock.pendingTimers, 0);
    assert.equal(clock.nextTimerAt(), undefined);
  });

  it("counts pending timers, not cancelled or fired ones", () => {
    const clock = new FakeClock();
    const cancel = clock.setTimer(10, () => {});
    clock.setTimer(20, () => {});
    assert.equal(clock.pendingTimers, 2);
    cancel();
    assert.equal(clock.pendingTimers, 1);
    clock.advance(20);
    assert.equal(clock.pendingTimers, 0);
  });

  it("advanceAsync fires timers that async continuations set within the step", async () => {
    const clock = new FakeClock({ startMs: 0 });
    const seen: number[] = [];
    const wait = (ms: number) => new Promise<void>((r) => clock.setTimer(ms, r));
    const loop = (async () => {
      for (let i = 0; i < 3; i++) {
        await wait(10);
        seen.push(clock.now());
      }
    })();
    await clock.advanceAsync(30);
    await loop;
    assert.deepEqual(seen, [10, 20, 30]);
  });

  it("runNextAsync jumps to the next timer and reports when none is left", async () => {
    const clock = new FakeClock({ startMs: 0 });
    let fired = false;
    clock.setTimer(500, () => {
      fired = true;
    });
    assert.equal(await clock.runNextAsync(), true);
    assert.equal(fired, true);
    assert.equal(clock.now(), 500);
    assert.equal(await clock.runNextAsync(), false);
  });

  it("refuses to go backwards", () => {
    const clock = new FakeClock();
    assert.throws(() => clock.advance(-1), RangeError);
    assert.throws(() => clock.advance(Number.NaN), RangeError);
  });
});
