import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SyncWaiters } from "./sync-waiters.ts";

describe("SyncWaiters", () => {
  it("settles every waiter once, and only the ones waiting", async () => {
    const w = new SyncWaiters();
    const a = w.wait();
    const b = w.wait(new AbortController().signal);
    assert.equal(w.size, 2);
    w.resolveAll();
    assert.equal(w.size, 0);
    await Promise.all([a, b]);
    const c = w.wait();
    w.rejectAll(new Error("stopped"));
    w.resolveAll(); // c has left: nothing to settle
    await assert.rejects(c, /stopped/);
  });

  it("rejects with the signal's reason on abort, and forgets that waiter", async () => {
    const w = new SyncWaiters();
    const ac = new AbortController();
    const waiting = w.wait(ac.signal);
    const other = w.wait();
    ac.abort(new Error("gave up"));
    await assert.rejects(waiting, /gave up/);
    assert.equal(w.size, 1);
    w.resolveAll();
    await other;
    await assert.rejects(w.wait(AbortSignal.abort(new Error("already"))), /already/);
    assert.equal(w.size, 0);
  });
});
