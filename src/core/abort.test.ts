import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeClock } from "../testing/index.ts";
import { isAbortError, raceAbort, sleep } from "./abort.ts";

describe("sleep", () => {
  it("resolves when the clock reaches the delay, not before", async () => {
    const clock = new FakeClock();
    let done = false;
    const p = sleep(100, { clock }).then(() => {
      done = true;
    });
    await clock.advanceAsync(99);
    assert.equal(done, false);
    await clock.advanceAsync(1);
    await p;
    assert.equal(done, true);
  });

  it("rejects with the signal's reason and leaves no timer behind", async () => {
    const clock = new FakeClock();
    const ac = new AbortController();
    const p = sleep(100, { clock, signal: ac.signal });
    assert.equal(clock.pendingTimers, 1);
    const reason = new Error("stop");
    ac.abort(reason);
    await assert.rejects(p, (e) => e === reason);
    assert.equal(clock.pendingTimers, 0);
  });

  it("rejects at once on an already aborted signal", async () => {
    const clock = new FakeClock();
    await assert.rejects(sleep(1, { clock, signal: AbortSignal.abort() }), isAbortError);
    assert.equal(clock.pendingTimers, 0);
  });
});

describe("raceAbort", () => {
  it("settles like the promise when not aborted", async () => {
    const ac = new AbortController();
    assert.equal(await raceAbort(Promise.resolve(7), ac.signal), 7);
    await assert.rejects(raceAbort(Promise.reject(new Error("x")), ac.signal), /x/);
    assert.equal(await raceAbort(Promise.resolve(8), undefined), 8);
  });

  it("rejects with the reason when the signal aborts first", async () => {
    const ac = new AbortController();
    const never = new Promise<number>(() => {});
    const p = raceAbort(never, ac.signal);
    ac.abort(new Error("gone"));
    await assert.rejects(p, /gone/);
    await assert.rejects(raceAbort(Promise.resolve(1), AbortSignal.abort()), isAbortError);
  });
});
