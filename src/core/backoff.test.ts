import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Backoff } from "./backoff.ts";
import { InvalidOptionError } from "./options.ts";

describe("Backoff", () => {
  it("doubles from 0.8 s to a 30 s cap with client-go's defaults (no jitter drawn)", () => {
    const b = new Backoff({ random: () => 0 });
    const delays = Array.from({ length: 9 }, (_, i) => b.next(i * 1000));
    assert.deepEqual(delays, [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000, 30000]);
  });

  it("adds up to 100 % jitter by default", () => {
    const b = new Backoff({ random: () => 0.5 });
    assert.equal(b.next(0), 1200);
    assert.equal(b.next(1), 2400);
    const max = new Backoff({ random: () => 0.999999 });
    assert.ok(max.next(0) < 1600);
  });

  it("starts over after 2 min without a failure", () => {
    const b = new Backoff({ random: () => 0 });
    b.next(0);
    b.next(1000);
    assert.equal(b.next(2000), 3200);
    assert.equal(b.next(2000 + 120_000), 6400, "exactly 2 min later is not yet a reset");
    assert.equal(b.next(2000 + 120_000 + 120_001), 800);
  });

  it("reset() starts over at once", () => {
    const b = new Backoff({ random: () => 0, initialMs: 10, maxMs: 100 });
    b.next(0);
    b.next(0);
    b.reset();
    assert.equal(b.next(0), 10);
  });

  it("honours custom factor, cap and jitter", () => {
    const b = new Backoff({ initialMs: 100, factor: 3, maxMs: 1000, jitter: 0.1, random: () => 1 });
    assert.deepEqual([b.next(0), b.next(0), b.next(0), b.next(0)], [110, 330, 990, 1100]);
  });

  it("refuses bad options, naming them", () => {
    const bad: [Record<string, number>, string][] = [
      [{ initialMs: 0 }, "initialMs"],
      [{ factor: 0.5 }, "factor"],
      [{ initialMs: 100, maxMs: 50 }, "maxMs"],
      [{ jitter: -1 }, "jitter"],
      [{ resetAfterMs: Number.NaN }, "resetAfterMs"],
    ];
    for (const [options, option] of bad) {
      assert.throws(
        () => new Backoff(options),
        (e: unknown) =>
          e instanceof InvalidOptionError && e.option === option && e.message.includes(option),
      );
    }
  });
});
