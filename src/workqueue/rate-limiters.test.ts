import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InvalidOptionError } from "../core/index.ts";
import { FakeClock } from "../testing/index.ts";
import { BucketRateLimiter } from "./bucket-rate-limiter.ts";
import type { RateLimiter } from "./rate-limiter.ts";
import {
  defaultControllerRateLimiter,
  defaultItemBasedRateLimiter,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
  MaxWaitRateLimiter,
} from "./rate-limiters.ts";
import { RateLimitingQueue } from "./rate-limiting-queue.ts";

const times = <T>(n: number, fn: () => T): T[] => Array.from({ length: n }, fn);

function rejectsOption(fn: () => unknown, owner: string, option: string, value: unknown): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof InvalidOptionError, String(e));
    assert.deepEqual([e.owner, e.option, e.value], [owner, option, value]);
    return true;
  });
}

describe("ItemExponentialFailureRateLimiter", () => {
  it("doubles from the base delay per failure and counts failures", () => {
    const l = new ItemExponentialFailureRateLimiter<string>({ baseDelayMs: 1, maxDelayMs: 1000 });
    assert.deepEqual(
      times(5, () => l.when("one")),
      [1, 2, 4, 8, 16],
    );
    assert.equal(l.numRequeues("one"), 5);
    l.forget("one");
    assert.equal(l.numRequeues("one"), 0);
    assert.equal(l.when("one"), 1);
  });

  it("keeps one count per item", () => {
    const l = new ItemExponentialFailureRateLimiter<string>({ baseDelayMs: 1, maxDelayMs: 1000 });
    l.when("one");
    l.when("one");
    assert.deepEqual([l.when("two"), l.when("two")], [1, 2]);
    assert.equal(l.numRequeues("one"), 2);
  });

  it("never overflows: huge failure counts give exactly the cap", () => {
    const l = new ItemExponentialFailureRateLimiter<string>({
      baseDelayMs: 1,
      maxDelayMs: 1_000_000,
    });
    const delays = times(5000, () => l.when("a"));
    assert.equal(delays[5], 32);
    assert.equal(delays[20], 1_000_000, "2^20 ms exceeds 1000 s");
    assert.ok(delays.slice(20).every((d) => d === 1_000_000));
    const minutes = new ItemExponentialFailureRateLimiter<string>({
      baseDelayMs: 60_000,
      maxDelayMs: 3_600_000_000,
    });
    assert.equal(times(1000, () => minutes.when("a")).at(-1), 3_600_000_000);
  });

  it("defaults to 5 ms → 1000 s, and a zero base never delays", () => {
    const l = new ItemExponentialFailureRateLimiter<string>();
    assert.deepEqual(
      times(3, () => l.when("a")),
      [5, 10, 20],
    );
    const zero = new ItemExponentialFailureRateLimiter<string>({ baseDelayMs: 0, maxDelayMs: 0 });
    assert.deepEqual(
      times(2000, () => zero.when("a")).filter((d) => d !== 0),
      [],
    );
    assert.equal(zero.numRequeues("a"), 2000);
  });

  it("rejects a negative base and a cap below the base", () => {
    const owner = "ItemExponentialFailureRateLimiter";
    rejectsOption(
      () => new ItemExponentialFailureRateLimiter({ baseDelayMs: -1 }),
      owner,
      "baseDelayMs",
      -1,
    );
    rejectsOption(
      () => new ItemExponentialFailureRateLimiter({ baseDelayMs: 10, maxDelayMs: 5 }),
      owner,
      "maxDelayMs",
      5,
    );
    rejectsOption(
      () => new ItemExponentialFailureRateLimiter({ baseDelayMs: Number.NaN }),
      owner,
      "baseDelayMs",
      Number.NaN,
    );
  });
});

describe("ItemFastSlowRateLimiter", () => {
  it("gives the fast delay for the first attempts, then the slow one", () => {
    const l = new ItemFastSlowRateLimiter<string>({
      fastDelayMs: 5,
      slowDelayMs: 10_000,
      maxFastAttempts: 3,
    });
    assert.deepEqual(
      times(5, () => l.when("one")),
      [5, 5, 5, 10_000, 10_000],
    );
    assert.equal(l.numRequeues("one"), 5);
    assert.equal(l.when("two"), 5);
    l.forget("one");
    assert.deepEqual([l.numRequeues("one"), l.when("one")], [0, 5]);
  });

  it("rejects missing or bad options", () => {
    const owner = "ItemFastSlowRateLimiter";
    const ok = { fastDelayMs: 1, slowDelayMs: 2, maxFastAttempts: 3 };
    rejectsOption(
      () => new ItemFastSlowRateLimiter({ ...ok, fastDelayMs: -1 }),
      owner,
      "fastDelayMs",
      -1,
    );
    rejectsOption(
      () => new ItemFastSlowRateLimiter({ ...ok, slowDelayMs: undefined as unknown as number }),
      owner,
      "slowDelayMs",
      undefined,
    );
    rejectsOption(
      () => new ItemFastSlowRateLimiter({ ...ok, maxFastAttempts: 1.5 }),
      owner,
      "maxFastAttempts",
      1.5,
    );
  });
});

describe("BucketRateLimiter", () => {
  it("lets a burst through, then spaces calls at the rate; no per-item state", () => {
    const clock = new FakeClock();
    const l = new BucketRateLimiter<string>({ qps: 10, burst: 100, clock });
    assert.deepEqual(
      times(100, () => l.when("a")).filter((d) => d !== 0),
      [],
    );
    assert.deepEqual(
      times(3, () => l.when("b")),
      [100, 200, 300],
    );
    assert.equal(l.numRequeues("a"), 0);
    l.forget("a");
    clock.advance(300);
    assert.equal(l.when("c"), 100, "three tokens refilled, all reserved: the next waits 100 ms");
    clock.advance(100_000);
    assert.equal(l.when("d"), 0, "refills up to the burst");
  });

  it("with an infinite rate never delays", () => {
    const l = new BucketRateLimiter<string>({ qps: Number.POSITIVE_INFINITY, burst: 1 });
    assert.deepEqual([l.when("a"), l.when("a"), l.when("a")], [0, 0, 0]);
  });

  it("rejects qps <= 0, burst < 1 and something that is not a clock", () => {
    rejectsOption(() => new BucketRateLimiter({ qps: 0, burst: 1 }), "BucketRateLimiter", "qps", 0);
    rejectsOption(
      () => new BucketRateLimiter({ qps: -3, burst: 1 }),
      "BucketRateLimiter",
      "qps",
      -3,
    );
    rejectsOption(
      () => new BucketRateLimiter({ qps: 1, burst: 0 }),
      "BucketRateLimiter",
      "burst",
      0,
    );
    rejectsOption(
      () => new BucketRateLimiter({ qps: 1, burst: 1, clock: Date as never }),
      "BucketRateLimiter",
      "clock",
      Date,
    );
  });
});

describe("MaxOfRateLimiter", () => {
  it("asks every limiter and returns the largest delay and count", () => {
    const l = new MaxOfRateLimiter<string>({
      limiters: [
        new ItemFastSlowRateLimiter({ fastDelayMs: 5, slowDelayMs: 3000, maxFastAttempts: 3 }),
        new ItemExponentialFailureRateLimiter({ baseDelayMs: 1, maxDelayMs: 1000 }),
      ],
    });
    assert.deepEqual(
      times(5, () => l.when("one")),
      [5, 5, 5, 3000, 3000],
    );
    assert.equal(l.numRequeues("one"), 5);
    l.forget("one");
    assert.equal(l.numRequeues("one"), 0);
  });

  it("rejects no limiters and a limiter missing a method", () => {
    rejectsOption(
      () => new MaxOfRateLimiter({ limiters: [] }),
      "MaxOfRateLimiter",
      "limiters",
      "none",
    );
    const broken = { when: () => 0 } as unknown as RateLimiter<string>;
    assert.throws(
      () => new MaxOfRateLimiter({ limiters: [new ItemExponentialFailureRateLimiter(), broken] }),
      /option limiters\[1\] must be a RateLimiter \(missing forget, numRequeues\)/,
    );
  });
});

describe("MaxWaitRateLimiter", () => {
  it("caps the wrapped limiter's delay; forget and numRequeues go to it", () => {
    const step = new ItemFastSlowRateLimiter<string>({
      fastDelayMs: 5,
      slowDelayMs: 1_000_000,
      maxFastAttempts: 100,
    });
    const l = new MaxWaitRateLimiter<string>({ limiter: step, maxDelayMs: 500_000 });
    assert.deepEqual(
      times(100, () => l.when("one")).filter((d) => d !== 5),
      [],
    );
    assert.deepEqual([l.when("one"), l.when("one")], [500_000, 500_000]);
    assert.deepEqual([l.numRequeues("one"), step.numRequeues("one")], [102, 102]);
    l.forget("one");
    assert.deepEqual([step.numRequeues("one"), l.when("one")], [0, 5]);
  });

  it("caps a bucket's tail after a mass requeue", () => {
    const clock = new FakeClock();
    const l = new MaxWaitRateLimiter<string>({
      limiter: new BucketRateLimiter({ qps: 10, burst: 100, clock }),
      maxDelayMs: 2000,
    });
    const delays = times(10_000, () => l.when("k"));
    assert.equal(Math.max(...delays), 2000);
  });

  it("rejects a missing limiter and a negative cap", () => {
    const owner = "MaxWaitRateLimiter";
    rejectsOption(
      () => new MaxWaitRateLimiter({ limiter: undefined as never, maxDelayMs: 1 }),
      owner,
      "limiter",
      undefined,
    );
    rejectsOption(
      () =>
        new MaxWaitRateLimiter({
          limiter: new ItemExponentialFailureRateLimiter(),
          maxDelayMs: -1,
        }),
      owner,
      "maxDelayMs",
      -1,
    );
  });
});

describe("defaultItemBasedRateLimiter", () => {
  it("is client-go's per-item default: exponential 1 ms → 1000 s, no bucket", () => {
    const l = defaultItemBasedRateLimiter<string>();
    const delays = times(25, () => l.when("a"));
    assert.deepEqual(delays.slice(0, 4), [1, 2, 4, 8]);
    assert.equal(delays[19], 2 ** 19);
    assert.equal(delays[20], 1_000_000, "capped from the 21st failure");
    for (let i = 0; i < 1000; i++) assert.equal(l.when(`k${i}`), 1, "no shared bucket");
  });
});

describe("defaultControllerRateLimiter", () => {
  it("is the larger of exponential 5 ms → 1000 s and a 10/s bucket of 100", () => {
    const clock = new FakeClock();
    const l = defaultControllerRateLimiter<string>({ clock });
    assert.deepEqual(
      times(3, () => l.when("a")),
      [5, 10, 20],
    );
    for (let i = 0; i < 97; i++) l.when(`k${i}`);
    assert.equal(l.when("b"), 100, "the bucket is empty: the 101st call waits 100 ms");
    assert.equal(l.numRequeues("a"), 3);
  });

  it("is the RateLimitingQueue's default, on the queue's clock", () => {
    const clock = new FakeClock();
    const q = new RateLimitingQueue<string>({ clock });
    q.addRateLimited("a");
    assert.equal(clock.nextTimerAt(), clock.now() + 5);
    rejectsOption(
      () => new RateLimitingQueue({ rateLimiter: {} as RateLimiter<string> }),
      "RateLimitingQueue",
      "rateLimiter",
      {},
    );
  });
});
