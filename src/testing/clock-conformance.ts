import assert from "node:assert/strict";
import type { Clock } from "../core/index.ts";
import type { ConformanceSubject, ConformanceSuite } from "./conformance.ts";

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

/** A clock under test. */
export interface ClockSubject extends ConformanceSubject {
  /** A fresh driver of the clock; every case makes its own. */
  make(): ClockDriver;
}

/**
 * The behaviour every `Clock` guarantees (see `Clock` in kontroller/core). Run it against your
 * own implementation with node:test:
 * `runConformanceWithNodeTest(clockConformance, { name: "MyClock", make: () => driver })`, or with
 * another runner through `conformanceCases`. Assertions are about order and "never early", never
 * about wall-clock windows, so the suite is as reliable on a busy machine as on an idle one.
 */
export const clockConformance: ConformanceSuite<ClockSubject> = {
  name: "Clock conformance",
  cases: [
    {
      name: "never goes backwards",
      async run(subject) {
        const { clock, elapse } = subject.make();
        let last = clock.now();
        for (let i = 0; i < 5; i++) {
          await elapse(i);
          const t = clock.now();
          assert.ok(t >= last, `now() went from ${last} to ${t}`);
          last = t;
        }
      },
    },

    {
      name: "fires a timer once, never before it is due",
      async run(subject) {
        const { clock, elapse } = subject.make();
        const start = clock.now();
        const fired: number[] = [];
        clock.setTimer(20, () => fired.push(clock.now()));
        await elapse(40);
        assert.equal(fired.length, 1);
        assert.ok(fired[0]! >= start + 20, `fired at +${fired[0]! - start} ms, due at +20 ms`);
        await elapse(40);
        assert.equal(fired.length, 1, "a timer fires once");
      },
    },

    {
      name: "fires timers in order of due time",
      async run(subject) {
        const { clock, elapse } = subject.make();
        const order: number[] = [];
        for (const d of [30, 10, 20]) clock.setTimer(d, () => order.push(d));
        await elapse(50);
        assert.deepEqual(order, [10, 20, 30]);
      },
    },

    {
      name: "fires timers set with the same delay in the order they were set",
      async run(subject) {
        const { clock, elapse } = subject.make();
        const order: string[] = [];
        for (const label of ["a", "b", "c", "d"]) clock.setTimer(5, () => order.push(label));
        await elapse(20);
        assert.deepEqual(order, ["a", "b", "c", "d"]);
      },
    },

    {
      name: "never fires a zero or negative delay synchronously, and fires it on the next step",
      async run(subject) {
        const { clock, elapse } = subject.make();
        const fired: string[] = [];
        clock.setTimer(0, () => fired.push("zero"));
        clock.setTimer(-5, () => fired.push("negative"));
        assert.deepEqual(fired, []);
        await elapse(0);
        assert.deepEqual(fired, ["zero", "negative"]);
      },
    },

    {
      name: "never fires a cancelled timer; cancelling twice or after firing does nothing",
      async run(subject) {
        const { clock, elapse } = subject.make();
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
      },
    },

    {
      name: "fires a timer set by a firing callback when it comes due",
      async run(subject) {
        const { clock, elapse } = subject.make();
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
      },
    },
  ],
};
