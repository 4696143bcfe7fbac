/**
 * The work-queue conformance suites: the behaviour checklist of the workqueue reference (items B,
 * Q, D, R), one named test per item, runnable against any queue or strategy. One file because it is
 * one suite per seam (longer than our usual files: the checklist is long).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  DelayingQueue,
  ItemExponentialFailureRateLimiter,
  type Queue,
  type QueueStrategy,
  type RateLimiter,
  RateLimitingQueue,
} from "../workqueue/index.ts";
import { FakeClock } from "./fake-clock.ts";

/** What the suite passes to a queue factory. */
export interface ConformanceSetup {
  /** The clock the queue must use. */
  clock: FakeClock;
  /** The limiter a rate-limiting queue must use (exponential, 1 ms to 1 s). */
  rateLimiter: RateLimiter<string>;
}

/** Options of {@link queueConformance}. */
export interface QueueConformanceOptions {
  /**
   * True when the queue hands out the items the suite adds in the order they became ready (every
   * built-in strategy does, for items of one lane, tenant or priority). False skips the order
   * assertions.
   * @default true
   */
  fifo?: boolean;
}

/** Lets promise continuations run: one turn of the event loop. Not a sleep. */
export const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Watches a promise without awaiting it. */
export function track<T>(promise: Promise<T>): { settled: boolean; value?: T; error?: unknown } {
  const state: { settled: boolean; value?: T; error?: unknown } = { settled: false };
  promise.then(
    (value) => {
      state.settled = true;
      state.value = value;
    },
    (error: unknown) => {
      state.settled = true;
      state.error = error;
    },
  );
  return state;
}

/** Gets every ready item (calling `done` on each) until `get` would block or the queue ends. */
async function drainReady(q: Queue<string>): Promise<string[]> {
  const out: string[] = [];
  while (q.size > 0) {
    const item = (await q.get())!;
    out.push(item);
    q.done(item);
  }
  return out;
}

/**
 * The behaviour every work queue keeps — the checklist items B (basic queue), D (delays) and R
 * (rate limiting) of the workqueue reference, one test each, named by item — as a node:test
 * suite. `make` builds a fresh queue for every test; the D tests run when it has `addAfter`, the
 * R tests when it has `addRateLimited`. Run it against your own strategy:
 * `queueConformance("mine", ({ clock }) => new Queue({ clock, strategy: new Mine() }))`.
 */
export function queueConformance(
  name: string,
  make: (setup: ConformanceSetup) => Queue<string>,
  options: QueueConformanceOptions = {},
): void {
  const fifo = options.fifo ?? true;
  const setup = () => {
    const clock = new FakeClock();
    const rateLimiter = new ItemExponentialFailureRateLimiter<string>({
      baseDelayMs: 1,
      maxDelayMs: 1000,
    });
    return { clock, q: make({ clock, rateLimiter }) };
  };
  const probe = setup().q;
  const delaying = probe instanceof DelayingQueue;
  const rateLimiting = probe instanceof RateLimitingQueue;

  describe(`work queue conformance: ${name}`, () => {
    it("a new item counts in size and wakes one blocked get", async () => {
      const { q } = setup();
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
    });

    it("distinct items leave in the order they were first added", async () => {
      const { q } = setup();
      for (const k of ["a", "b", "c", "d"]) q.add(k);
      const out = await drainReady(q);
      if (fifo) assert.deepEqual(out, ["a", "b", "c", "d"]);
      else assert.deepEqual(out.sort(), ["a", "b", "c", "d"]);
    });

    it("adding a queued item changes neither size nor order", async () => {
      const { q } = setup();
      q.add("a");
      q.add("b");
      q.add("a");
      assert.equal(q.size, 2);
      const out = await drainReady(q);
      assert.deepEqual(fifo ? out : out.sort(), ["a", "b"]);
    });

    it("adding an item in flight queues it only when done is called", async () => {
      const { q } = setup();
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
    });

    it("B-10 any number of adds before processing give one processing", async () => {
      const { q } = setup();
      for (let i = 0; i < 5; i++) q.add("a");
      assert.equal(await q.get(), "a");
      for (let i = 0; i < 5; i++) q.add("a");
      q.done("a");
      assert.deepEqual(await drainReady(q), ["a"]);
      assert.equal(q.size, 0);
    });

    it("an add after shutdown is ignored", async () => {
      const { q } = setup();
      q.shutDown();
      q.add("a");
      assert.equal(q.size, 0);
      assert.equal(await q.get(), undefined);
    });

    it("get blocks while nothing is ready", async () => {
      const { q } = setup();
      const g = track(q.get());
      await tick();
      assert.equal(g.settled, false);
      q.add("a");
      await tick();
      assert.equal(g.value, "a");
    });

    it("get hands out the head and puts it in flight", async () => {
      const { q } = setup();
      q.add("a");
      q.add("b");
      const first = await q.get();
      if (fifo) assert.equal(first, "a");
      const snap = q.snapshot();
      assert.deepEqual(
        snap.inFlight.map((e) => e.item),
        [first],
      );
      assert.equal(snap.ready.length, 1);
    });

    it("an item is never handed to a second worker while the first holds it", async () => {
      const { q } = setup();
      q.add("a");
      const first = await q.get();
      q.add("a");
      const second = track(q.get());
      await tick();
      assert.equal(second.settled, false);
      q.done(first!);
      await tick();
      assert.equal(second.value, "a");
    });

    it("after shutdown get hands out what is queued, then undefined for ever", async () => {
      const { q } = setup();
      q.add("a");
      q.add("b");
      q.shutDown();
      const out = [await q.get(), await q.get()];
      assert.deepEqual(out.sort(), ["a", "b"]);
      assert.equal(await q.get(), undefined);
      assert.equal(await q.get(), undefined);
    });

    it("a get blocked at shutdown resolves undefined", async () => {
      const { q } = setup();
      const g = track(q.get());
      await tick();
      q.shutDown();
      await tick();
      assert.deepEqual([g.settled, g.value], [true, undefined]);
    });

    it("done of a dirty item queues it at the back", async () => {
      const { q } = setup();
      q.add("a");
      q.add("b");
      const a = (await q.get())!;
      q.add(a);
      q.add("c");
      q.done(a);
      const out = await drainReady(q);
      if (fifo) assert.deepEqual(out, ["b", "c", "a"]);
      else assert.equal(out.length, 3);
    });

    it("done of a clean item forgets it", async () => {
      const { q } = setup();
      q.add("a");
      q.done((await q.get())!);
      assert.equal(q.size, 0);
      assert.deepEqual(q.snapshot().inFlight, []);
      q.add("a");
      assert.equal(q.size, 1, "the item can be added again");
    });

    it("done after shutdown still queues a dirty item, handed out before undefined", async () => {
      const { q } = setup();
      q.add("a");
      const a = (await q.get())!;
      q.add(a);
      q.shutDown();
      q.done(a);
      assert.equal(await q.get(), "a");
      q.done("a");
      assert.equal(await q.get(), undefined);
    });

    it("done of an item not in flight is ignored and never duplicates it", async () => {
      const { q } = setup();
      q.add("a");
      q.done("a");
      q.done("never-added");
      assert.equal(q.size, 1);
      assert.deepEqual(await drainReady(q), ["a"]);
    });

    it("size counts ready items only", async () => {
      const { q } = setup();
      q.add("foo");
      q.add("bar");
      q.add("foo");
      assert.equal(q.size, 2);
      const x = (await q.get())!;
      assert.equal(q.size, 1);
      q.add(x);
      assert.equal(q.size, 1, "a dirty in-flight item is not counted");
    });

    it("B-24 B-26 shutDownWithDrain resolves when queued and in-flight items are done", async () => {
      const { q } = setup();
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
    });

    it("B-28 shutDown returns at once, leaves in-flight items to their workers", async () => {
      const { q } = setup();
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
    });

    it("both shutdowns are idempotent and may be called in any order", async () => {
      const { q } = setup();
      q.shutDown();
      q.shutDown();
      await q.shutDownWithDrain();
      await q.shutDownWithDrain();
      q.shutDown();
      assert.equal(q.shuttingDown, true);
    });

    it("a later shutDown releases a pending shutDownWithDrain", async () => {
      const { q } = setup();
      q.add("a");
      await q.get();
      const drained = track(q.shutDownWithDrain());
      await tick();
      assert.equal(drained.settled, false);
      q.shutDown();
      await tick();
      assert.deepEqual([drained.settled, drained.error], [true, undefined]);
    });

    it("shutDownWithDrain rejects with the reason when its signal aborts", async () => {
      const { q } = setup();
      q.add("a");
      await q.get();
      const ac = new AbortController();
      const drained = track(q.shutDownWithDrain({ signal: ac.signal }));
      const reason = new Error("deadline");
      ac.abort(reason);
      await tick();
      assert.equal(drained.error, reason);
      assert.equal(q.shuttingDown, true);
    });

    it("get rejects with signal.reason when aborted, before or while blocked, taking nothing", async () => {
      const { q } = setup();
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
    });

    if (delaying) describeDelays(setup, fifo);
    if (rateLimiting) describeRateLimiting(setup);
  });
}

type Setup = () => { clock: FakeClock; q: Queue<string> };

function describeDelays(setup: Setup, fifo: boolean): void {
  const delayed = (q: Queue<string>) => q as DelayingQueue<string>;

  it("a delay of zero or less adds at once", () => {
    const { q } = setup();
    delayed(q).addAfter("a", 0);
    delayed(q).addAfter("b", -5);
    assert.equal(q.size, 2);
  });

  it("D-14 D-03 a delayed item appears when its time comes, once", async () => {
    const { clock, q } = setup();
    delayed(q).addAfter("a", 50);
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
  });

  it("a repeated addAfter keeps the earliest ready time", () => {
    for (const [first, second] of [
      [50, 70],
      [50, 30],
    ] as const) {
      const { clock, q } = setup();
      delayed(q).addAfter("a", first);
      delayed(q).addAfter("a", second);
      clock.advance(Math.min(first, second) - 1);
      assert.equal(q.size, 0);
      clock.advance(1);
      assert.equal(q.size, 1);
      clock.advance(1000);
      assert.equal(q.size, 1, "the later request never fires on its own");
    }
  });

  it("D-06 delayed items become ready in ready-time order", async () => {
    const { clock, q } = setup();
    const ready = () =>
      q
        .snapshot()
        .ready.map((e) => e.item)
        .sort();
    delayed(q).addAfter("1s", 1000);
    delayed(q).addAfter("500ms", 500);
    delayed(q).addAfter("250ms", 250);
    clock.advance(300);
    assert.deepEqual(ready(), ["250ms"]);
    delayed(q).addAfter("later", 100);
    clock.advance(100);
    assert.deepEqual(ready(), ["250ms", "later"]);
    clock.advance(1000);
    const out = await drainReady(q);
    if (fifo) assert.deepEqual(out, ["250ms", "later", "500ms", "1s"]);
    else assert.deepEqual(out.sort(), ["1s", "250ms", "500ms", "later"]);
  });

  it("an immediate add supersedes a waiting entry: one processing, not two", async () => {
    const { clock, q } = setup();
    delayed(q).addAfter("a", 100);
    q.add("a");
    assert.deepEqual(await drainReady(q), ["a"]);
    clock.advance(200);
    assert.equal(q.size, 0);
    assert.deepEqual(q.snapshot().waiting, []);
  });

  it("after a delayed item fired, a new addAfter schedules afresh", async () => {
    const { clock, q } = setup();
    delayed(q).addAfter("a", 10);
    clock.advance(10);
    assert.equal(q.size, 1);
    delayed(q).addAfter("a", 10);
    assert.equal(q.snapshot().waiting.length, 0, "a queued item is already ready: no-op");
    q.done((await q.get())!);
    delayed(q).addAfter("a", 10);
    assert.deepEqual(
      q.snapshot().waiting.map((w) => [w.item, w.readyAtMs]),
      [["a", clock.now() + 10]],
    );
    clock.advance(10);
    assert.equal(q.size, 1);
  });

  it("a delayed item that fires while dirty is not duplicated", async () => {
    const { clock, q } = setup();
    q.add("a");
    const a = (await q.get())!;
    delayed(q).addAfter(a, 10);
    q.add("b");
    clock.advance(10);
    q.add(a);
    q.done(a);
    assert.deepEqual((await drainReady(q)).sort(), ["a", "b"]);
  });

  it("addAfter of an item in flight waits, then queues it again", async () => {
    const { clock, q } = setup();
    q.add("a");
    await q.get();
    delayed(q).addAfter("a", 10);
    q.done("a");
    assert.equal(q.size, 0);
    clock.advance(10);
    assert.equal(await q.get(), "a");
  });

  it("D-12 D-13 shutdown drops waiting items and cancels the timer", async () => {
    for (const stop of ["shutDown", "shutDownWithDrain"] as const) {
      const { clock, q } = setup();
      delayed(q).addAfter("a", 10);
      assert.equal(clock.pendingTimers, 1);
      if (stop === "shutDown") q.shutDown();
      else await q.shutDownWithDrain();
      assert.equal(clock.pendingTimers, 0);
      delayed(q).addAfter("b", 10);
      clock.advance(100);
      assert.equal(q.size, 0);
      assert.equal(await q.get(), undefined);
    }
  });

  it("keeps one timer, for the earliest ready time", () => {
    const { clock, q } = setup();
    for (let i = 0; i < 100; i++) delayed(q).addAfter(`k${i}`, 1000 - i);
    assert.equal(clock.pendingTimers, 1);
    assert.equal(clock.nextTimerAt(), clock.now() + 901);
    clock.advance(1000);
    assert.equal(q.size, 100);
    assert.equal(clock.pendingTimers, 0);
  });
}

function describeRateLimiting(setup: Setup): void {
  const limited = (q: Queue<string>) => q as RateLimitingQueue<string>;

  it("R-05 addRateLimited waits for the limiter's delay, per item", () => {
    const { clock, q } = setup();
    limited(q).addRateLimited("one");
    assert.equal(clock.nextTimerAt(), clock.now() + 1);
    clock.advance(1);
    assert.equal(q.size, 1);
    limited(q).addRateLimited("two");
    limited(q).addRateLimited("one");
    assert.equal(limited(q).numRequeues("one"), 2);
    assert.equal(limited(q).numRequeues("two"), 1);
  });

  it("the limiter is charged even when the add is de-duplicated", () => {
    const { q } = setup();
    limited(q).addRateLimited("a");
    limited(q).addRateLimited("a");
    assert.equal(limited(q).numRequeues("a"), 2);
    assert.equal(q.snapshot().waiting.length, 1);
  });

  it("after shutdown addRateLimited neither adds nor charges", () => {
    const { q } = setup();
    q.shutDown();
    limited(q).addRateLimited("a");
    assert.equal(limited(q).numRequeues("a"), 0);
    assert.equal(q.snapshot().waiting.length, 0);
  });

  it("forget resets the count and leaves the item where it is", async () => {
    const { clock, q } = setup();
    limited(q).addRateLimited("a");
    clock.advance(1);
    const a = (await q.get())!;
    limited(q).forget(a);
    assert.equal(limited(q).numRequeues(a), 0);
    assert.equal(q.snapshot().inFlight.length, 1, "still in flight until done");
    q.done(a);
    limited(q).addRateLimited("a");
    assert.deepEqual(
      q.snapshot().waiting.map((w) => [w.item, w.readyAtMs]),
      [["a", clock.now() + 1]],
      "back to the base delay",
    );
  });
}

/**
 * The protocol between a queue and its {@link QueueStrategy} (checklist items Q): push only for a
 * new item or a dirty item on `done`, pop only when not empty, touch only for a queued item;
 * then the whole queue conformance suite with the strategy. `makeStrategy` builds a fresh one.
 */
export function strategyConformance(
  name: string,
  makeStrategy: () => QueueStrategy<string>,
  options: QueueConformanceOptions = {},
): void {
  describe(`queue strategy conformance: ${name}`, () => {
    it("Q-02 Q-03 Q-04 the queue keeps the strategy's calling protocol", async () => {
      const inner = makeStrategy();
      const held = new Set<string>();
      const calls: string[] = [];
      const spy: QueueStrategy<string> = {
        get size() {
          return inner.size;
        },
        push(item) {
          assert.ok(!held.has(item), `push of ${item}, which the strategy holds`);
          held.add(item);
          calls.push(`push ${item}`);
          inner.push(item);
        },
        pop() {
          assert.ok(inner.size > 0, "pop of an empty strategy");
          const item = inner.pop();
          assert.ok(held.delete(item), `pop returned ${item}, which it was not given`);
          calls.push(`pop ${item}`);
          return item;
        },
        touch(item) {
          assert.ok(held.has(item), `touch of ${item}, which the strategy does not hold`);
          calls.push(`touch ${item}`);
          inner.touch(item);
        },
      };
      const q = new DelayingQueue<string>({ clock: new FakeClock(), strategy: spy });
      q.add("a");
      q.add("a");
      const a = (await q.get())!;
      q.add(a);
      q.add(a);
      q.done(a);
      q.add("b");
      assert.deepEqual(calls, ["push a", "touch a", "pop a", "push a", "push b"]);
      assert.equal(q.size, 2);
    });
  });
  queueConformance(
    `Queue with ${name}`,
    ({ clock, rateLimiter }) =>
      new RateLimitingQueue<string>({ clock, rateLimiter, strategy: makeStrategy() }),
    options,
  );
}
