import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeClock } from "../testing/index.ts";
import { PriorityQueue } from "./priority-queue.ts";
import { Queue } from "./queue.ts";
import { RecordingProvider } from "./queue-model.test-helper.ts";
import { RateLimitingQueue } from "./rate-limiting-queue.ts";
import { TwoLaneStrategy } from "./two-lane-strategy.ts";

function setup() {
  const clock = new FakeClock();
  const metrics = new RecordingProvider();
  const q = new RateLimitingQueue<string>({ name: "q", clock, metrics });
  return { clock, metrics, q };
}

describe("queue metrics", () => {
  it("B-02 a named queue asks its provider once; a nameless one reports nothing", () => {
    const metrics = new RecordingProvider();
    new Queue({ name: "pods", metrics });
    assert.deepEqual(metrics.names, ["pods"]);
  });

  it("M-02 adds count an item becoming dirty; depth counts dirty items", async () => {
    const { metrics, q } = setup();
    q.add("a");
    q.add("a");
    assert.deepEqual([metrics.adds, metrics.depth], [1, 1]);
    const a = (await q.get())!;
    assert.equal(metrics.depth, 0);
    for (let i = 0; i < 5; i++) q.add(a);
    assert.deepEqual([metrics.adds, metrics.depth, q.size], [2, 1, 0]);
    q.done(a);
    q.done((await q.get())!);
    assert.deepEqual([metrics.adds, metrics.depth], [2, 0]);
  });

  it("M-04 queue duration runs from becoming dirty to hand-out; work duration to done", async () => {
    const { clock, metrics, q } = setup();
    q.add("a");
    clock.advance(50);
    const a = (await q.get())!;
    q.add(a);
    clock.advance(25);
    q.done(a);
    clock.advance(10);
    const again = (await q.get())!;
    clock.advance(1000);
    q.done(again);
    assert.deepEqual(metrics.queueDurations, [0.05, 0.035]);
    assert.deepEqual(metrics.workDurations, [0.025, 1]);
  });

  it("B-03 the probe reports in-flight work on demand; no timer runs", async () => {
    const { clock, metrics, q } = setup();
    assert.equal(metrics.probe!.depthByLane?.(), undefined, "a FIFO queue has no lanes");
    q.add("a");
    q.add("b");
    await q.get();
    clock.advance(1000);
    await q.get();
    clock.advance(500);
    assert.equal(metrics.probe!.unfinishedWorkSeconds(), 2);
    assert.equal(metrics.probe!.longestRunningProcessorSeconds(), 1.5);
    assert.equal(clock.pendingTimers, 0);
    q.done("a");
    q.done("b");
    assert.deepEqual(
      [metrics.probe!.unfinishedWorkSeconds(), metrics.probe!.longestRunningProcessorSeconds()],
      [0, 0],
    );
  });

  it("M-07 retries count every addAfter; waiting counts items waiting for a delay", () => {
    const { clock, metrics, q } = setup();
    q.addAfter("a", 0);
    q.addAfter("b", 10);
    q.addAfter("b", 5);
    q.addRateLimited("c");
    assert.deepEqual([metrics.retries, metrics.waiting, metrics.adds], [4, 2, 1]);
    assert.equal(metrics.depth, 1, "waiting items are not in the depth");
    q.add("b");
    assert.equal(metrics.waiting, 1, "superseded by the add");
    clock.advance(10);
    assert.deepEqual([metrics.waiting, metrics.adds], [0, 3]);
    q.addAfter("d", 10);
    q.shutDown();
    q.addAfter("e", 10);
    assert.deepEqual([metrics.retries, metrics.waiting], [5, 0]);
  });

  it("depth by priority follows ready items of a priority queue", async () => {
    const metrics = new RecordingProvider();
    const clock = new FakeClock();
    const q = new PriorityQueue<string>({ name: "pq", clock, metrics });
    q.add("a", { priority: 0 });
    q.add("b", { priority: 0 });
    q.add("c", { priority: 0 });
    q.add("w", { priority: 1, afterMs: 10 });
    assert.deepEqual([...metrics.byPriority], [[0, 3]]);
    q.add("a", { priority: 1 });
    assert.deepEqual(
      [...metrics.byPriority],
      [
        [0, 2],
        [1, 1],
      ],
    );
    assert.deepEqual(await q.getWithPriority(), { item: "a", priority: 1 });
    assert.deepEqual(
      [...metrics.byPriority],
      [
        [0, 2],
        [1, 0],
      ],
    );
    clock.advance(10);
    assert.equal(metrics.byPriority.get(1), 1);
  });

  it("B-03 after shutdown adds and delayed adds report nothing; no timer ever runs", async () => {
    const { clock, metrics, q } = setup();
    q.add("a");
    const a = (await q.get())!;
    q.add(a);
    q.shutDown();
    const before = JSON.stringify(metrics);
    q.add("b");
    q.addAfter("c", 10);
    q.addAfter("d", 0);
    q.addRateLimited("e");
    assert.equal(JSON.stringify(metrics), before);
    assert.equal(clock.pendingTimers, 0);
    q.done(a);
    assert.equal(metrics.workDurations.length, 1, "done is still honoured and timed");
    q.done((await q.get())!);
    assert.deepEqual([metrics.depth, metrics.adds], [0, 2]);
  });

  it("TL-09 a two-lane queue counts an item once, whichever lane; its probe gives lane depths", async () => {
    const metrics = new RecordingProvider();
    const fast = new Set<string>();
    const q = new Queue<string>({
      name: "two-lane",
      metrics,
      clock: new FakeClock(),
      strategy: new TwoLaneStrategy({ isFast: (k) => fast.has(k) }),
    });
    q.add("k");
    assert.deepEqual(metrics.probe?.depthByLane?.(), { fast: 0, slow: 1 });
    fast.add("k");
    q.add("k");
    assert.deepEqual(metrics.probe?.depthByLane?.(), { fast: 1, slow: 0 }, "lane depth");
    fast.delete("k");
    q.add("k");
    assert.deepEqual([metrics.adds, metrics.depth, q.size], [1, 1, 1]);
    q.done((await q.get())!);
    assert.deepEqual([metrics.adds, metrics.depth], [1, 0]);
  });

  it("an item that became ready and is added again without delay counts once", () => {
    const metrics = new RecordingProvider();
    const clock = new FakeClock();
    const q = new PriorityQueue<string>({ name: "pq", clock, metrics });
    q.add("w", { afterMs: 10 });
    assert.deepEqual([metrics.adds, metrics.depth], [0, 0], "nothing until ready");
    clock.advance(10);
    q.add("w");
    assert.deepEqual([metrics.adds, metrics.depth, metrics.byPriority.get(0)], [1, 1, 1]);
    q.add("x", { afterMs: 10 });
    q.add("x");
    assert.deepEqual([metrics.adds, metrics.depth, metrics.waiting], [2, 2, 0]);
  });

  it("a priority queue counts a retry per add with a delay, and per addRateLimited", () => {
    const metrics = new RecordingProvider();
    const q = new PriorityQueue<string>({ name: "pq", clock: new FakeClock(), metrics });
    for (let i = 0; i < 5; i++) q.add(`neg${i}`, { afterMs: -1000 });
    for (let i = 0; i < 5; i++) q.add(`zero${i}`, { afterMs: 0 });
    assert.equal(metrics.retries, 0);
    for (let i = 0; i < 5; i++) q.add(`pos${i}`, { afterMs: 1000 });
    q.add("pos0", { afterMs: 500 });
    assert.equal(metrics.retries, 6, "counted even when de-duplicated");
    q.addRateLimited("r");
    assert.equal(metrics.retries, 7);
  });

  it("re-adding an item in flight counts as a new add", async () => {
    const metrics = new RecordingProvider();
    const q = new PriorityQueue<string>({ name: "pq", clock: new FakeClock(), metrics });
    q.add("foo");
    const foo = (await q.get())!;
    q.add(foo, { priority: 3 });
    q.add("bar");
    assert.deepEqual([metrics.adds, metrics.depth, q.size], [3, 2, 1]);
    assert.deepEqual(
      [...metrics.byPriority].filter(([, n]) => n !== 0),
      [[0, 1]],
    );
  });
});
