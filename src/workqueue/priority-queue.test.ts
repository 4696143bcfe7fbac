import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeClock } from "../testing/index.ts";
import { PriorityQueue } from "./priority-queue.ts";
import { ItemExponentialFailureRateLimiter } from "./rate-limiters.ts";

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

function setup() {
  const clock = new FakeClock();
  return { clock, q: new PriorityQueue<string>({ clock }) };
}

async function drain(q: PriorityQueue<string>): Promise<string[]> {
  const out: string[] = [];
  while (q.size > 0) {
    const got = (await q.getWithPriority())!;
    out.push(`${got.item}@${got.priority}`);
    q.done(got.item);
  }
  return out;
}

describe("PriorityQueue", () => {
  it("PQ-03 add without options is priority 0; getWithPriority reports it", async () => {
    const { q } = setup();
    q.add("a");
    q.add("b", { priority: 3 });
    assert.deepEqual(await q.getWithPriority(), { item: "b", priority: 3 });
    assert.equal(await q.get(), "a");
  });

  it("hands out by priority, FIFO within a priority, whatever the delay", async () => {
    for (const afterMs of [-1000, 0, 1000]) {
      const { clock, q } = setup();
      const expected: string[] = [];
      for (let i = 0; i < 20; i++)
        for (let p = 0; p < 5; p++) q.add(`k${p}-${i}`, { priority: p, afterMs });
      for (let p = 4; p >= 0; p--) for (let i = 0; i < 20; i++) expected.push(`k${p}-${i}@${p}`);
      clock.advance(1000);
      assert.deepEqual(await drain(q), expected, `afterMs ${afterMs}`);
    }
  });

  it("raising a queued item's priority moves it to the back of the new priority", async () => {
    const { q } = setup();
    q.add("foo", { priority: 0 });
    q.add("bar", { priority: 1 });
    q.add("foo", { priority: 1 });
    assert.deepEqual(await drain(q), ["bar@1", "foo@1"]);
  });

  it("an add with an equal or lower priority neither lowers nor moves the item", async () => {
    const { q } = setup();
    q.add("a", { priority: 2 });
    q.add("b", { priority: 2 });
    q.add("a", { priority: 2 });
    q.add("a", { priority: -5 });
    assert.deepEqual(await drain(q), ["a@2", "b@2"]);
  });

  it("an item that became ready goes behind ready items of its priority, ahead of lower", async () => {
    const { clock, q } = setup();
    q.add("late", { priority: 1, afterMs: 10 });
    q.add("ready-1", { priority: 1 });
    q.add("ready-0", { priority: 0 });
    clock.advance(10);
    assert.deepEqual(await drain(q), ["ready-1@1", "late@1", "ready-0@0"]);
  });

  it("PQ-13 delayed items become ready in ready-time order, not before", async () => {
    const { clock, q } = setup();
    q.add("1s", { afterMs: 1000 });
    q.add("200ms", { afterMs: 200 });
    const blocked = q.getWithPriority();
    clock.advance(199);
    assert.equal(q.size, 0);
    clock.advance(1);
    assert.deepEqual(await blocked, { item: "200ms", priority: 0 });
    clock.advance(800);
    assert.equal(await q.get(), "1s");
  });

  it("the earliest ready time wins; a waiting item added without delay is ready at once", async () => {
    const { clock, q } = setup();
    q.add("a");
    q.add("a", { afterMs: 100 });
    assert.deepEqual([q.size, q.snapshot().waiting.length], [1, 0], "ready stays ready");
    q.add("w", { afterMs: 100 });
    q.add("w", { afterMs: 50 });
    q.add("w", { afterMs: 70 });
    assert.equal(q.snapshot().waiting[0]!.readyAtMs, clock.now() + 50);
    const blocked = q.get();
    q.done((await blocked)!);
    const next = q.get();
    q.add("w");
    assert.equal(await next, "w");
    clock.advance(1000);
    assert.equal(q.size, 0, "no second delivery");
  });

  it("a rate-limited add uses each item's own delay, the shorter of it and afterMs", () => {
    const clock = new FakeClock();
    const rateLimiter = new ItemExponentialFailureRateLimiter<string>({
      baseDelayMs: 5,
      maxDelayMs: 1_000_000,
    });
    const q = new PriorityQueue<string>({ clock, rateLimiter });
    for (let i = 0; i < 7; i++) rateLimiter.when("bar");
    q.add("bar", { rateLimited: true });
    q.add("foo", { rateLimited: true });
    const t = clock.now();
    assert.deepEqual(
      q.snapshot().waiting.map((w) => [w.item, w.readyAtMs - t]),
      [
        ["foo", 5],
        ["bar", 640],
      ],
    );
    q.add("baz", { rateLimited: true, afterMs: 1 });
    q.add("qux", { rateLimited: true, afterMs: 50 });
    assert.equal(q.snapshot().waiting.find((w) => w.item === "baz")!.readyAtMs - t, 1);
    assert.equal(q.snapshot().waiting.find((w) => w.item === "qux")!.readyAtMs - t, 5);
  });

  it("PQ-15 an item re-added while in flight waits for done, keeping its priority", async () => {
    const { q } = setup();
    q.add("locked", { priority: 1 });
    const locked = (await q.get())!;
    q.add("locked", { priority: 5 });
    q.add("other");
    assert.equal(q.size, 1, "the locked item is not ready");
    assert.equal(await q.get(), "other");
    q.done("other");
    q.done(locked);
    assert.deepEqual(await q.getWithPriority(), { item: "locked", priority: 5 });
  });

  it("keeps the highest priority of a waiting item until it is ready", async () => {
    const { clock, q } = setup();
    q.add("w", { priority: -100, afterMs: 10 });
    q.add("w", { priority: 7, afterMs: 20 });
    assert.deepEqual(q.snapshot().waiting, [
      { item: "w", readyAtMs: clock.now() + 10, priority: 7 },
    ]);
    q.add("x", { priority: 7 });
    clock.advance(10);
    assert.deepEqual(await drain(q), ["x@7", "w@7"]);
  });

  it("size counts ready items only; snapshot shows priorities", async () => {
    const { q } = setup();
    q.add("a", { priority: 1 });
    q.add("b", { priority: 2, afterMs: 5 });
    q.add("c", { priority: 3 });
    assert.equal(q.size, 2);
    assert.deepEqual(q.snapshot().ready, [
      { item: "c", priority: 3 },
      { item: "a", priority: 1 },
    ]);
  });

  it("PQ-21 shutdown hands out what is queued, drops waiting items, wakes blocked gets", async () => {
    const { clock, q } = setup();
    const blocked = q.getWithPriority();
    await tick();
    q.shutDown();
    assert.equal(await blocked, undefined);
    const q2 = setup().q;
    q2.add("ready", { priority: 1 });
    q2.add("waiting", { priority: 9, afterMs: 5 });
    q2.shutDown();
    clock.advance(10);
    assert.deepEqual(await q2.getWithPriority(), { item: "ready", priority: 1 });
    assert.equal(await q2.getWithPriority(), undefined);
    q2.add("late", { priority: 100 });
    assert.equal(q2.size, 0);
  });

  it("defaults to a per-item limiter without a shared bucket", () => {
    const { clock, q } = setup();
    for (let i = 0; i < 500; i++) q.addRateLimited(`k${i}`);
    assert.equal(clock.nextTimerAt(), clock.now() + 5);
    clock.advance(5);
    assert.equal(q.size, 500, "no bucket tail");
  });

  it("rejects a priority that is not an integer and an afterMs that is not a number", () => {
    const { q } = setup();
    assert.throws(() => q.add("a", { priority: 1.5 }), /priority must be an integer, got 1.5/);
    assert.throws(() => q.add("a", { afterMs: Number.NaN }), /afterMs must be a number, got NaN/);
    assert.equal(q.size, 0);
  });

  it("getWithPriority rejects with the signal's reason", async () => {
    const { q } = setup();
    const reason = new Error("stop");
    await assert.rejects(
      q.getWithPriority({ signal: AbortSignal.abort(reason) }),
      (e) => e === reason,
    );
  });
});
