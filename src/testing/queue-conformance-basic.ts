/**
 * The work-queue suite's cases for the behaviour every queue keeps: adding and de-duplicating,
 * handing each item to one worker at a time, `done`, the size, both shutdowns and abort signals.
 */
import assert from "node:assert/strict";
import { tick, track } from "./conformance.ts";
import { drainReady, isFifo, type QueueCase, setUp } from "./queue-conformance-setup.ts";

/** The cases every work queue passes, whatever it supports. */
export const basicQueueCases: readonly QueueCase[] = [
  {
    name: "a new item counts in size and wakes one blocked get",
    async run(s) {
      const { q } = setUp(s);
      const a = track(q.get());
      const b = track(q.get());
      q.add("x");
      assert.equal(q.size, 0, "handed straight to the blocked get");
      await tick();
      assert.deepEqual([a.settled, a.value, b.settled], [true, "x", false]);
      q.add("y");
      assert.equal(q.size, 0);
      await tick();
      assert.equal(b.value, "y");
      q.add("z");
      assert.equal(q.size, 1);
    },
  },

  {
    name: "distinct items leave in the order they were first added",
    async run(s) {
      const { q } = setUp(s);
      for (const k of ["a", "b", "c", "d"]) q.add(k);
      const out = await drainReady(q);
      if (isFifo(s)) assert.deepEqual(out, ["a", "b", "c", "d"]);
      else assert.deepEqual(out.sort(), ["a", "b", "c", "d"]);
    },
  },

  {
    name: "adding a queued item changes neither size nor order",
    async run(s) {
      const { q } = setUp(s);
      q.add("a");
      q.add("b");
      q.add("a");
      assert.equal(q.size, 2);
      const out = await drainReady(q);
      assert.deepEqual(isFifo(s) ? out : out.sort(), ["a", "b"]);
    },
  },

  {
    name: "adding an item in flight queues it only when done is called",
    async run(s) {
      const { q } = setUp(s);
      q.add("a");
      assert.equal(await q.get(), "a");
      q.add("a");
      assert.equal(q.size, 0, "a dirty in-flight item is not ready");
      const second = track(q.get());
      await tick();
      assert.equal(second.settled, false);
      q.done("a");
      await tick();
      assert.equal(second.value, "a");
    },
  },

  {
    name: "any number of adds before processing give one processing",
    async run(s) {
      const { q } = setUp(s);
      for (let i = 0; i < 5; i++) q.add("a");
      assert.equal(await q.get(), "a");
      for (let i = 0; i < 5; i++) q.add("a");
      q.done("a");
      assert.deepEqual(await drainReady(q), ["a"]);
      assert.equal(q.size, 0);
    },
  },

  {
    name: "an add after shutdown is ignored",
    async run(s) {
      const { q } = setUp(s);
      q.shutDown();
      q.add("a");
      assert.equal(q.size, 0);
      assert.equal(await q.get(), undefined);
    },
  },

  {
    name: "get blocks while nothing is ready",
    async run(s) {
      const { q } = setUp(s);
      const g = track(q.get());
      await tick();
      assert.equal(g.settled, false);
      q.add("a");
      await tick();
      assert.equal(g.value, "a");
    },
  },

  {
    name: "get hands out the head and puts it in flight",
    async run(s) {
      const { q } = setUp(s);
      q.add("a");
      q.add("b");
      const first = await q.get();
      if (isFifo(s)) assert.equal(first, "a");
      const snap = q.snapshot();
      assert.deepEqual(
        snap.inFlight.map((e) => e.item),
        [first],
      );
      assert.equal(snap.ready.length, 1);
    },
  },

  {
    name: "an item is never handed to a second worker while the first holds it",
    async run(s) {
      const { q } = setUp(s);
      q.add("a");
      const first = await q.get();
      q.add("a");
      const second = track(q.get());
      await tick();
      assert.equal(second.settled, false);
      q.done(first!);
      await tick();
      assert.equal(second.value, "a");
    },
  },

  {
    name: "after shutdown get hands out what is queued, then undefined for ever",
    async run(s) {
      const { q } = setUp(s);
      q.add("a");
      q.add("b");
      q.shutDown();
      const out = [await q.get(), await q.get()];
      assert.deepEqual(out.sort(), ["a", "b"]);
      assert.equal(await q.get(), undefined);
      assert.equal(await q.get(), undefined);
    },
  },

  {
    name: "a get blocked at shutdown resolves undefined",
    async run(s) {
      const { q } = setUp(s);
      const g = track(q.get());
      await tick();
      q.shutDown();
      await tick();
      assert.deepEqual([g.settled, g.value], [true, undefined]);
    },
  },

  {
    name: "done of a dirty item queues it at the back",
    async run(s) {
      const { q } = setUp(s);
      q.add("a");
      q.add("b");
      const a = (await q.get())!;
      q.add(a);
      q.add("c");
      q.done(a);
      const out = await drainReady(q);
      if (isFifo(s)) assert.deepEqual(out, ["b", "c", "a"]);
      else assert.equal(out.length, 3);
    },
  },

  {
    name: "done of a clean item forgets it",
    async run(s) {
      const { q } = setUp(s);
      q.add("a");
      q.done((await q.get())!);
      assert.equal(q.size, 0);
      assert.deepEqual(q.snapshot().inFlight, []);
      q.add("a");
      assert.equal(q.size, 1, "the item can be added again");
    },
  },

  {
    name: "done after shutdown still queues a dirty item, handed out before undefined",
    async run(s) {
      const { q } = setUp(s);
      q.add("a");
      const a = (await q.get())!;
      q.add(a);
      q.shutDown();
      q.done(a);
      assert.equal(await q.get(), "a");
      q.done("a");
      assert.equal(await q.get(), undefined);
    },
  },

  {
    name: "done of an item not in flight is ignored and never duplicates it",
    async run(s) {
      const { q } = setUp(s);
      q.add("a");
      q.done("a");
      q.done("never-added");
      assert.equal(q.size, 1);
      assert.deepEqual(await drainReady(q), ["a"]);
    },
  },

  {
    name: "size counts ready items only",
    async run(s) {
      const { q } = setUp(s);
      q.add("foo");
      q.add("bar");
      q.add("foo");
      assert.equal(q.size, 2);
      const x = (await q.get())!;
      assert.equal(q.size, 1);
      q.add(x);
      assert.equal(q.size, 1, "a dirty in-flight item is not counted");
    },
  },

  {
    name: "shutDownWithDrain resolves when queued and in-flight items are done",
    async run(s) {
      const { q } = setUp(s);
      q.add("a");
      q.add("b");
      const a = (await q.get())!;
      q.add(a);
      const drained = track(q.shutDownWithDrain());
      assert.equal(q.shuttingDown, true);
      await tick();
      assert.equal(drained.settled, false);
      q.done(a);
      const rest = [await q.get(), await q.get()];
      assert.deepEqual(rest.sort(), ["a", "b"]);
      q.done(rest[0]!);
      await tick();
      assert.equal(drained.settled, false, "one item is still in flight");
      q.done(rest[1]!);
      await tick();
      assert.equal(drained.settled, true);
      assert.equal(q.size, 0);
      assert.equal(await q.get(), undefined);
    },
  },

  {
    name: "shutDown returns at once, leaves in-flight items to their workers",
    async run(s) {
      const { q } = setUp(s);
      q.add("a");
      await q.get();
      q.shutDown();
      assert.equal(q.shuttingDown, true);
      assert.deepEqual(
        q.snapshot().inFlight.map((e) => e.item),
        ["a"],
      );
      q.done("a");
      assert.equal(await q.get(), undefined);
    },
  },

  {
    name: "both shutdowns are idempotent and may be called in any order",
    async run(s) {
      const { q } = setUp(s);
      q.shutDown();
      q.shutDown();
      await q.shutDownWithDrain();
      await q.shutDownWithDrain();
      q.shutDown();
      assert.equal(q.shuttingDown, true);
    },
  },

  {
    name: "a later shutDown releases a pending shutDownWithDrain",
    async run(s) {
      const { q } = setUp(s);
      q.add("a");
      await q.get();
      const drained = track(q.shutDownWithDrain());
      await tick();
      assert.equal(drained.settled, false);
      q.shutDown();
      await tick();
      assert.deepEqual([drained.settled, drained.error], [true, undefined]);
    },
  },

  {
    name: "shutDownWithDrain rejects with the reason when its signal aborts",
    async run(s) {
      const { q } = setUp(s);
      q.add("a");
      await q.get();
      const ac = new AbortController();
      const drained = track(q.shutDownWithDrain({ signal: ac.signal }));
      const reason = new Error("deadline");
      ac.abort(reason);
      await tick();
      assert.equal(drained.error, reason);
      assert.equal(q.shuttingDown, true);
    },
  },

  {
    name: "get rejects with signal.reason when aborted, before or while blocked, taking nothing",
    async run(s) {
      const { q } = setUp(s);
      const ac = new AbortController();
      const reason = new Error("lost leadership");
      const blocked = track(q.get({ signal: ac.signal }));
      const other = track(q.get());
      ac.abort(reason);
      await tick();
      assert.equal(blocked.error, reason);
      q.add("a");
      await tick();
      assert.equal(other.value, "a", "the aborted get no longer waits");
      q.add("b");
      await assert.rejects(q.get({ signal: ac.signal }), (e) => e === reason);
      assert.equal(q.size, 1, "an aborted signal takes nothing");
    },
  },
];
