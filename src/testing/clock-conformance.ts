import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Clock } from "../core/index.ts";

/** How the conformance suite drives a clock. */
export interface ClockDriver {
  readonly clock: Clock;
  /**
   * Lets `ms` of the clock's time pass and fires what came due: a fake clock advances; a real
   * clock waits on a timer of its own, which (by the ordering guarantee under test) fires after
   * every earlier-due timer.
   */
  elapse(ms: number): Promise<void>;
}

/**
 * The behaviour every `Clock` guarantees (see `Clock` in kontroller/core), as a node:test suite.
 * Run it against your own implementation: `clockConformance("MyClock", () => driver)`.
 * Assertions are about order and "never early", never about wall-clock windows, so the suite is
 * as reliable on a busy machine as on an idle one.
 */
export function clockConformance(name: string, makeDriver: () => ClockDriver): void {
  describe(`Clock conformance: ${name}`, () => {
    it("never goes backwards", async () => {
      const { clock, elapse } = makeDriver();
      let last = clock.now();
      for (let i = 0; i < 5; i++) {
        await elapse(i);
        const t = clock.now();
        assert.ok(t >= last, `now() went from ${last} to ${t}`);
        last = t;
      }
    });

    it("fires a timer once, never before it is due", async () => {
      const { clock, elapse } = makeDriver();
      const start = clock.now();
      const fired: number[] = [];
      clock.setTimer(20, () => fired.push(clock.now()));
      await elapse(40);
      assert.equal(fired.length, 1);
      assert.ok(fired[0]! >= start + 20, `fired at +${fired[0]! - start} ms, due at +20 ms`);
      await elapse(40);
      assert.equal(fired.length, 1, "a timer fires once");
    });

    it("fires timers in order of due time", async () => {
      const { clock, elapse } = makeDriver();
      const order: number[] = [];
      for (const d of [30, 10, 20]) clock.setTimer(d, () => order.push(d));
      await elapse(50);
      assert.deepEqual(order, [10, 20, 30]);
    });

    it("fires timers set with the same delay in the order they were set", async () => {
      const { clock, elapse } = makeDriver();
      const order: string[] = [];
      for (const label of ["a", "b", "c", "d"]) clock.setTimer(5, () => order.push(label));
      await elapse(20);
      assert.deepEqual(order, ["a", "b", "c", "d"]);
    });

    it("never fires a zero or negative delay synchronously, and fires it on the next step", async () => {
      const { clock, elapse } = makeDriver();
      const fired: string[] = [];
      clock.setTimer(0, () => fired.push("zero"));
      clock.setTimer(-5, () => fired.push("negative"));
      assert.deepEqual(fired, []);
      await elapse(0);
      assert.deepEqual(fired, ["zero", "negative"]);
    });

    it("never fires a cancelled timer; cancelling twice or after firing does nothing", async () => {
      const { clock, elapse } = makeDriver();
      const fired: string[] = [];
      const cancelA = clock.setTimer(10, () => fired.push("a"));
      const cancelB = clock.setTimer(10, () => fired.push("b"));
      cancelA();
      cancelA();
      await elapse(30);
      assert.deepEqual(fired, ["b"]);
      cancelB();
      await elapse(30);
      assert.deepEqual(fired, ["b"]);
    });

    it("fires a timer set by a firing callback when it comes due", async () => {
      const { clock, elapse } = makeDriver();
      const start = clock.now();
      const fired: number[] = [];
      clock.setTimer(5, () => {
        fired.push(clock.now() - start);
        clock.setTimer(5, () => fired.push(clock.now() - start));
      });
      // The second timer is due 5 ms after the first fired, which on a busy machine can be
      // later than any fixed step: step until it fires (two steps on a fake clock).
      for (let step = 0; step < 200 && fired.length < 2; step++) await elapse(20);
      assert.equal(fired.length, 2);
      assert.ok(
        fired[1]! >= fired[0]! + 5,
        `second fired ${fired[1]! - fired[0]!} ms after the first`,
      );
    });
  });
}
