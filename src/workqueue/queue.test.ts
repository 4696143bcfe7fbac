import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import {
  type Clock,
  InvalidOptionError,
  noopMetricsProvider,
  type QueueMetricsProvider,
} from "../core/index.ts";
import { FakeClock } from "../testing/index.ts";
import { FairStrategy } from "./fair-strategy.ts";
import { PriorityQueue } from "./priority-queue.ts";
import { Queue } from "./queue.ts";
import { FifoStrategy, type QueueStrategy } from "./strategy.ts";
import { TwoLaneStrategy } from "./two-lane-strategy.ts";

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

function rejectsOption(fn: () => unknown, option: string, value: unknown): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof InvalidOptionError, String(e));
    assert.equal(e.option, option);
    assert.equal(e.value, value);
    assert.match(e.message, new RegExp(`option ${option}`));
    return true;
  });
}

describe("Queue", () => {
  it("needs no options: FIFO on the precise clock, no metrics, nothing started", async () => {
    const q = new Queue();
    q.add("b");
    q.add("a");
    assert.equal(await q.get(), "b");
    const before = Date.now();
    const [entry] = q.snapshot().inFlight;
    assert.ok(entry !== undefined && Math.abs(entry.sinceMs - before) < 60_000);
    q.shutDown();
  });

  it("rejects bad options with an error that names the option and the value", () => {
    rejectsOption(() => new Queue({ name: "" }), "name", "");
    const provider: QueueMetricsProvider = { newQueueMetrics: () => assert.fail("not called") };
    rejectsOption(() => new Queue({ metrics: provider }), "name", undefined);
    const notAProvider = {} as QueueMetricsProvider;
    rejectsOption(() => new Queue({ name: "q", metrics: notAProvider }), "metrics", notAProvider);
    const noTouch = { size: 0, push() {}, pop() {} } as unknown as QueueStrategy<string>;
    rejectsOption(() => new Queue({ strategy: noTouch }), "strategy", noTouch);
    assert.throws(() => new Queue({ strategy: noTouch }), /missing touch/);
    const noSize = { push() {}, pop() {}, touch() {} } as unknown as QueueStrategy<string>;
    assert.throws(() => new Queue({ strategy: noSize }), /missing size/);
    const notObject = 42 as unknown as QueueStrategy<string>;
    rejectsOption(() => new Queue({ strategy: notObject }), "strategy", 42);
    const noTimer = { now: () => 0 } as unknown as Clock;
    rejectsOption(() => new Queue({ clock: noTimer }), "clock", noTimer);
    assert.throws(() => new Queue({ clock: noTimer }), /must be a Clock \(now and setTimer\)/);
  });

  it("accepts the no-op provider without a name", () => {
    const q = new Queue({ metrics: noopMetricsProvider });
    q.add("a");
    assert.equal(q.size, 1);
  });

  it("throws when a strategy pops an item it was not given", async () => {
    const liar: QueueStrategy<string> = {
      size: 1,
      push() {},
      pop: () => "stranger",
      touch() {},
    };
    const q = new Queue({ strategy: liar });
    assert.throws(() => q.get(), /QueueStrategy.pop returned an item it was not given/);
  });

  it("finds in-flight items by identity with few workers and by index with many", async () => {
    const q = new Queue({ clock: new FakeClock() });
    const n = 50;
    for (let i = 0; i < n; i++) q.add(`k${i}`);
    const held = await Promise.all(Array.from({ length: n }, () => q.get()));
    for (const k of held.filter((_, i) => i % 3 === 0)) q.add(k!);
    // Finish in a scrambled order, through the index and then the scan.
    const order = held.map((k, i) => [k!, (i * 17) % n] as const).sort((a, b) => a[1] - b[1]);
    for (const [k] of order) {
      q.done(k);
      q.done(k);
    }
    assert.equal(q.snapshot().inFlight.length, 0);
    assert.equal(q.size, Math.ceil(n / 3));
  });

  it("snapshot lists ready items in order and in-flight items with since when", async () => {
    const clock = new FakeClock();
    const q = new Queue({ clock });
    q.add("a");
    q.add("b");
    q.add("c");
    await q.get();
    clock.advance(5);
    await q.get();
    q.add("b");
    assert.deepEqual(q.snapshot(), {
      ready: [{ item: "c" }],
      inFlight: [
        { item: "a", sinceMs: clock.now() - 5, dirty: false },
        { item: "b", sinceMs: clock.now(), dirty: true },
      ],
      waiting: [],
      requeues: [],
      shuttingDown: false,
    });
  });

  it("snapshot falls back to add order for a strategy without values()", async () => {
    const items: string[] = [];
    const lifo: QueueStrategy<string> = {
      get size() {
        return items.length;
      },
      push: (item) => items.push(item),
      pop: () => items.pop()!,
      touch() {},
    };
    const q = new Queue({ strategy: lifo });
    q.add("a");
    q.add("b");
    q.add("c");
    assert.deepEqual(
      q.snapshot().ready.map((e) => e.item),
      ["a", "b", "c"],
    );
    assert.equal(await q.get(), "c");
  });

  it("on the default clock, hand-outs in one turn of the event loop share a clock reading", async () => {
    const realNow = performance.now;
    let t = realNow.call(performance);
    performance.now = () => t;
    try {
      const q = new Queue();
      for (const k of ["a", "b", "c"]) q.add(k);
      await q.get();
      t += 5;
      await q.get();
      await tick();
      t += 5;
      await q.get();
      const since = q.snapshot().inFlight.map((e) => e.sinceMs);
      assert.deepEqual([since[1]! - since[0]!, since[2]! - since[0]!], [0, 10]);
      q.shutDown();
    } finally {
      performance.now = realNow;
    }
  });

  it("a strategy that throws on push fails the add or done, and the queue stays consistent", async () => {
    let refuse = "";
    const fifo = new FifoStrategy<string>();
    const strategy: QueueStrategy<string> = {
      get size() {
        return fifo.size;
      },
      push(item) {
        if (item === refuse) throw new Error(`cannot place ${item}`);
        fifo.push(item);
      },
      pop: () => fifo.pop(),
      touch() {},
    };
    const q = new Queue<string>({ strategy });
    refuse = "a";
    assert.throws(() => q.add("a"), /cannot place a/);
    assert.equal(q.size, 0);
    refuse = "";
    q.add("a"); // not mistaken for queued: it is placed afresh
    q.add("b");
    assert.equal(await q.get(), "a");
    q.add("a"); // dirty while in flight: done queues it again, and that push fails
    refuse = "a";
    assert.throws(() => q.done("a"), /cannot place a/);
    refuse = "";
    assert.equal(await q.get(), "b");
    const drained = q.shutDownWithDrain();
    q.done("b");
    await drained; // "a" is not waited for: it is neither queued nor in flight
    assert.equal(await q.get(), undefined);
  });

  it("is disposable: `using` shuts it down", async () => {
    let q: Queue | undefined;
    {
      using scoped = new Queue();
      q = scoped;
      q.add("a");
    }
    assert.equal(q.shuttingDown, true);
    assert.equal(await q.get(), "a");
    assert.equal(await q.get(), undefined);
  });

  for (const [name, strategy] of [
    ["FIFO", undefined],
    ["FifoStrategy", () => new FifoStrategy<object>()],
    ["TwoLaneStrategy", () => new TwoLaneStrategy<object>({ isFast: (o) => "fast" in o })],
    ["FairStrategy", () => new FairStrategy<object>({ tenantOf: (o) => String("i" in o) })],
    ["PriorityQueue", "priority"],
  ] as const) {
    it(`keeps no reference to an item once it is done (${name})`, async () => {
      await releasesDoneItems(
        strategy === "priority"
          ? new PriorityQueue<object>()
          : new Queue<object>(strategy === undefined ? {} : { strategy: strategy() }),
      );
    });
  }
});

/** Passes an item through `q`, then 5000 others; the first must then be collectable. */
async function releasesDoneItems(q: Queue<object>): Promise<void> {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  let ref: WeakRef<object> | undefined;
  (() => {
    const item = { big: new Array(1000).fill(0) };
    ref = new WeakRef(item);
    q.add(item);
  })();
  q.done((await q.get())!);
  // Push enough other items through to trigger the batched sweep of finished entries.
  for (let i = 0; i < 5000; i++) {
    const other = { i };
    q.add(other);
    q.done((await q.get())!);
  }
  await tick();
  gc();
  assert.equal(ref?.deref(), undefined);
  q.shutDown();
}
