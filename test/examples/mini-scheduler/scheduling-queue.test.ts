/**
 * The scheduling queue on a fake clock: priority then arrival; backoff after a pod fits
 * nowhere, doubling; a move returns unschedulable pods at once, also one whose attempt was in
 * progress during the move.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeClock } from "kontroller/testing";
import { SchedulingQueue } from "../../../examples/mini-scheduler/scheduling-queue.ts";

function setup() {
  const clock = new FakeClock();
  const queue = new SchedulingQueue({ clock, initialBackoffMs: 1000, maxBackoffMs: 4000 });
  return { clock, queue };
}

describe("mini-scheduler: scheduling queue", () => {
  it("hands out the highest priority first, then in arrival order", async () => {
    const { queue } = setup();
    queue.add("low-1", 0);
    queue.add("high-1", 1000);
    queue.add("low-2", 0);
    queue.add("high-2", 1000);
    queue.add("negative", -5);
    const order: string[] = [];
    for (let i = 0; i < 5; i++) {
      const p = await queue.pop();
      order.push(p!.key);
      queue.done(p!.key);
    }
    assert.deepEqual(order, ["high-1", "high-2", "low-1", "low-2", "negative"]);
  });

  it("makes an unschedulable pod wait its backoff, doubling up to the maximum", async () => {
    const { clock, queue } = setup();
    queue.add("p", 7);
    for (const wait of [1000, 2000, 4000, 4000]) {
      const p = await queue.pop();
      queue.unschedulable(p!);
      assert.equal(queue.readyCount, 0);
      assert.equal(queue.unschedulableCount, 1);
      clock.advance(wait - 1);
      assert.equal(queue.readyCount, 0, `still waiting before ${wait} ms`);
      clock.advance(1);
      assert.equal(queue.readyCount, 1, `ready after ${wait} ms`);
    }
    const p = await queue.pop();
    assert.equal(p!.priority, 7);
    assert.equal(queue.failures("p"), 4);
    queue.done("p");
    assert.equal(queue.failures("p"), 0, "done forgets the failures");
  });

  it("moves unschedulable pods to active at once, at their priority", async () => {
    const { queue } = setup();
    queue.add("a", 1);
    queue.add("b", 5);
    queue.unschedulable((await queue.pop())!); // b
    queue.unschedulable((await queue.pop())!); // a
    assert.equal(queue.readyCount, 0);
    queue.moveAllToActive();
    assert.equal(queue.unschedulableCount, 0);
    assert.equal(queue.readyCount, 2);
    assert.equal((await queue.pop())!.key, "b");
  });

  it("does not park a pod whose attempt overlapped a move", async () => {
    const { queue } = setup();
    queue.add("p", 0);
    const attempt = (await queue.pop())!;
    queue.moveAllToActive(); // a node was added while the pod was being judged
    queue.unschedulable(attempt);
    assert.equal(queue.readyCount, 1);
    assert.equal(queue.unschedulableCount, 0);
  });

  it("retries a failed binding with backoff, and forgets a pod that left", async () => {
    const { clock, queue } = setup();
    queue.add("p", 0);
    queue.retry((await queue.pop())!);
    assert.equal(queue.readyCount, 0);
    clock.advance(1000);
    assert.equal(queue.readyCount, 1);
    const again = (await queue.pop())!;
    queue.unschedulable(again);
    queue.remove("p");
    assert.equal(queue.unschedulableCount, 0);
    assert.equal(queue.failures("p"), 0);
  });

  it("resolves pop with undefined after shutdown, and rejects it on abort", async () => {
    const { queue } = setup();
    const ac = new AbortController();
    const aborted = queue.pop(ac.signal);
    ac.abort(new Error("stop"));
    await assert.rejects(aborted, /stop/);
    const waiting = queue.pop();
    queue.shutDown();
    assert.equal(await waiting, undefined);
    assert.equal(queue.shuttingDown, true);
  });
});
