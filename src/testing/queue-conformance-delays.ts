/**
 * The work-queue suite's cases for `addAfter`: an item waits for its time, once, with one timer
 * for the earliest; an immediate add or an item in flight supersedes or defers it; shutdown drops
 * what waits.
 */
import assert from "node:assert/strict";
import { tick, track } from "./conformance.ts";
import { delaying, drainReady, isFifo, type QueueCase, setUp } from "./queue-conformance-setup.ts";

const needs = ["delaying"] as const;

/** The cases of a queue that declares `delaying`. */
export const delayCases: readonly QueueCase[] = [
  {
    needs,
    name: "a delay of zero or less adds at once",
    run(s) {
      const { q } = setUp(s);
      delaying(q).addAfter("a", 0);
      delaying(q).addAfter("b", -5);
      assert.equal(q.size, 2);
    },
  },

  {
    needs,
    name: "a delayed item appears when its time comes, once",
    async run(s) {
      const { clock, q } = setUp(s);
      delaying(q).addAfter("a", 50);
      const g = track(q.get());
      clock.advance(49);
      await tick();
      assert.deepEqual([q.size, g.settled], [0, false]);
      clock.advance(1);
      await tick();
      assert.equal(g.value, "a");
      q.done("a");
      clock.advance(1000);
      assert.equal(q.size, 0, "no phantom re-delivery");
    },
  },

  {
    needs,
    name: "a repeated addAfter keeps the earliest ready time",
    run(s) {
      for (const [first, second] of [
        [50, 70],
        [50, 30],
      ] as const) {
        const { clock, q } = setUp(s);
        delaying(q).addAfter("a", first);
        delaying(q).addAfter("a", second);
        clock.advance(Math.min(first, second) - 1);
        assert.equal(q.size, 0);
        clock.advance(1);
        assert.equal(q.size, 1);
        clock.advance(1000);
        assert.equal(q.size, 1, "the later request never fires on its own");
      }
    },
  },

  {
    needs,
    name: "delayed items become ready in ready-time order",
    async run(s) {
      const { clock, q } = setUp(s);
      const ready = () =>
        q
          .snapshot()
          .ready.map((e) => e.item)
          .sort();
      delaying(q).addAfter("1s", 1000);
      delaying(q).addAfter("500ms", 500);
      delaying(q).addAfter("250ms", 250);
      clock.advance(300);
      assert.deepEqual(ready(), ["250ms"]);
      delaying(q).addAfter("later", 100);
      clock.advance(100);
      assert.deepEqual(ready(), ["250ms", "later"]);
      clock.advance(1000);
      const out = await drainReady(q);
      if (isFifo(s)) assert.deepEqual(out, ["250ms", "later", "500ms", "1s"]);
      else assert.deepEqual(out.sort(), ["1s", "250ms", "500ms", "later"]);
    },
  },

  {
    needs,
    name: "an immediate add supersedes a waiting entry: one processing, not two",
    async run(s) {
      const { clock, q } = setUp(s);
      delaying(q).addAfter("a", 100);
      q.add("a");
      assert.deepEqual(await drainReady(q), ["a"]);
      clock.advance(200);
      assert.equal(q.size, 0);
      assert.deepEqual(q.snapshot().waiting, []);
    },
  },

  {
    needs,
    name: "after a delayed item fired, a new addAfter schedules afresh",
    async run(s) {
      const { clock, q } = setUp(s);
      delaying(q).addAfter("a", 10);
      clock.advance(10);
      assert.equal(q.size, 1);
      delaying(q).addAfter("a", 10);
      assert.equal(q.snapshot().waiting.length, 0, "a queued item is already ready: no-op");
      q.done((await q.get())!);
      delaying(q).addAfter("a", 10);
      assert.deepEqual(
        q.snapshot().waiting.map((w) => [w.item, w.readyAtMs]),
        [["a", clock.now() + 10]],
      );
      clock.advance(10);
      assert.equal(q.size, 1);
    },
  },

  {
    needs,
    name: "a delayed item that fires while dirty is not duplicated",
    async run(s) {
      const { clock, q } = setUp(s);
      q.add("a");
      const a = (await q.get())!;
      delaying(q).addAfter(a, 10);
      q.add("b");
      clock.advance(10);
      q.add(a);
      q.done(a);
      assert.deepEqual((await drainReady(q)).sort(), ["a", "b"]);
    },
  },

  {
    needs,
    name: "addAfter of an item in flight waits, then queues it again",
    async run(s) {
      const { clock, q } = setUp(s);
      q.add("a");
      await q.get();
      delaying(q).addAfter("a", 10);
      q.done("a");
      assert.equal(q.size, 0);
      clock.advance(10);
      assert.equal(await q.get(), "a");
    },
  },

  {
    needs,
    name: "shutdown drops waiting items and cancels the timer",
    async run(s) {
      for (const stop of ["shutDown", "shutDownWithDrain"] as const) {
        const { clock, q } = setUp(s);
        delaying(q).addAfter("a", 10);
        assert.equal(clock.pendingTimers, 1);
        if (stop === "shutDown") q.shutDown();
        else await q.shutDownWithDrain();
        assert.equal(clock.pendingTimers, 0);
        delaying(q).addAfter("b", 10);
        clock.advance(100);
        assert.equal(q.size, 0);
        assert.equal(await q.get(), undefined);
      }
    },
  },

  {
    needs,
    name: "keeps one timer, for the earliest ready time",
    run(s) {
      const { clock, q } = setUp(s);
      for (let i = 0; i < 100; i++) delaying(q).addAfter(`k${i}`, 1000 - i);
      assert.equal(clock.pendingTimers, 1);
      assert.equal(clock.nextTimerAt(), clock.now() + 901);
      clock.advance(1000);
      assert.equal(q.size, 100);
      assert.equal(clock.pendingTimers, 0);
    },
  },
];
