import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { Dispatcher } from "undici";
import { DispatchedBody } from "./dispatched-body.ts";

/** A controller that records what the body asks of the request. */
class FakeController implements Dispatcher.DispatchController {
  paused = false;
  aborted = false;
  reason: Error | null = null;
  pauses = 0;
  resumes = 0;
  abort(reason: Error): void {
    this.aborted = true;
    this.reason = reason;
  }
  pause(): void {
    this.paused = true;
    this.pauses++;
  }
  resume(): void {
    this.paused = false;
    this.resumes++;
  }
}

const KiB = 1024;
const chunk = (bytes: number, fill = 1) => Buffer.alloc(bytes, fill);
const failed = (error: unknown) => new Error(`failed: ${String(error)}`);

describe("DispatchedBody", () => {
  it("hands the chunks out in order, pushed before or while the reader waits, then ends", async () => {
    const c = new FakeController();
    const body = new DispatchedBody(c, failed);
    body.push(chunk(1, 1));
    body.push(chunk(2, 2));
    const reading = (async () => {
      const got: number[] = [];
      for await (const part of body) got.push(part[0]!, part.length);
      return got;
    })();
    await Promise.resolve();
    body.push(chunk(3, 3));
    body.end();
    assert.deepEqual(await reading, [1, 1, 2, 2, 3, 3]);
    assert.equal(c.aborted, false);
  });

  it("pauses the socket only while more than 1 MiB waits, and resumes at 256 KiB", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.integer({ min: 1, max: 300 * KiB }), fc.constant(0)), {
          maxLength: 60,
        }),
        async (script) => {
          // A positive number pushes a chunk of that size; 0 reads one chunk.
          const c = new FakeController();
          const body = new DispatchedBody(c, failed);
          let queued = 0;
          const sizes: number[] = [];
          for (const step of script) {
            if (step > 0) {
              body.push(chunk(step));
              sizes.push(step);
              queued += step;
            } else if (sizes.length > 0) {
              const r = await body.next();
              assert.equal(r.value?.length, sizes.shift());
              queued -= r.value!.length;
            }
            if (queued > 1024 * KiB) assert.equal(c.paused, true, `paused at ${queued}`);
            if (queued <= 256 * KiB) assert.equal(c.paused, false, `running at ${queued}`);
          }
        },
      ),
    );
  });

  it("lets a reader that keeps up never pause the socket", async () => {
    const c = new FakeController();
    const body = new DispatchedBody(c, failed);
    for (let i = 0; i < 100; i++) {
      body.push(chunk(64 * KiB));
      await body.next();
    }
    assert.equal(c.pauses, 0);
  });

  it("ends with the failure after the chunks that came before it", async () => {
    const c = new FakeController();
    const body = new DispatchedBody(c, failed);
    body.push(chunk(5));
    body.end(new Error("reset"));
    body.push(chunk(7)); // nothing is added after the end
    assert.equal((await body.next()).value?.length, 5);
    await assert.rejects(body.next(), /failed: Error: reset/);
  });

  it("aborts the request when the reader stops early, and not once the body is complete", async () => {
    const early = new FakeController();
    const body = new DispatchedBody(early, failed);
    body.push(chunk(5));
    for await (const _ of body) break;
    assert.equal(early.aborted, true);
    assert.equal((await body.next()).done, true);

    const complete = new FakeController();
    const whole = new DispatchedBody(complete, failed);
    whole.push(chunk(5));
    whole.end();
    whole.discard();
    assert.equal(complete.aborted, false);
    assert.equal((await whole.next()).done, true, "discarded chunks are not handed out");
  });

  it("wakes a waiting reader when discarded", async () => {
    const c = new FakeController();
    const body = new DispatchedBody(c, failed);
    const waiting = body.next();
    body.discard();
    assert.equal((await waiting).done, true);
    assert.equal(c.aborted, true);
  });
});
