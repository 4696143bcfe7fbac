import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { Dispatcher } from "undici";
import { type FromWorker, WORKER_MESSAGE_BYTES, WORKER_PAUSE_BYTES } from "./stream-protocol.ts";
import { WorkerStream } from "./worker-stream.ts";

/** A controller that records what the stream asks of the request. */
class FakeController implements Dispatcher.DispatchController {
  paused = false;
  aborted = false;
  reason: Error | null = null;
  abort(reason: Error): void {
    this.aborted = true;
    this.reason = reason;
  }
  pause(): void {
    this.paused = true;
  }
  resume(): void {
    this.paused = false;
  }
}

function fixture() {
  const posted: FromWorker[] = [];
  let done = 0;
  const controller = new FakeController();
  const stream = new WorkerStream(
    7,
    (m, transfer) => {
      if (m.type === "data") assert.deepEqual(transfer, [m.bytes], "data is transferred");
      posted.push(m);
    },
    () => done++,
  );
  stream.started(controller);
  return { stream, posted, controller, done: () => done };
}

const bytes = (...values: number[]) => Buffer.from(values);
const dataOf = (posted: FromWorker[]) =>
  posted.flatMap((m) => (m.type === "data" ? [[...new Uint8Array(m.bytes)]] : []));

describe("WorkerStream", () => {
  it("posts the first bytes at once, then gathers until the main thread takes them", () => {
    const { stream, posted } = fixture();
    stream.data(bytes(1, 2));
    stream.data(bytes(3));
    stream.data(bytes(4, 5));
    assert.deepEqual(dataOf(posted), [[1, 2]]);
    stream.taken();
    assert.deepEqual(dataOf(posted), [
      [1, 2],
      [3, 4, 5],
    ]);
    stream.taken(); // nothing gathered: the credit waits for the next bytes
    stream.data(bytes(6));
    assert.deepEqual(dataOf(posted), [[1, 2], [3, 4, 5], [6]]);
  });

  it("pauses the socket past 4 MiB gathered without credit and resumes once they are posted", () => {
    const { stream, controller } = fixture();
    stream.data(Buffer.alloc(1)); // spends the credit
    const MiB = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < 4; i++) stream.data(MiB);
    assert.equal(controller.paused, false, "exactly 4 MiB gathered");
    stream.data(bytes(1));
    assert.equal(controller.paused, true);
    stream.taken();
    assert.equal(controller.paused, false);
  });

  it("sends what it gathered before the end, with or without credit, then nothing more", () => {
    const { stream, posted, done } = fixture();
    stream.data(bytes(1));
    stream.data(bytes(2));
    stream.end();
    stream.data(bytes(3));
    stream.taken();
    assert.deepEqual(
      posted.map((m) => m.type),
      ["data", "data", "end"],
    );
    assert.deepEqual(dataOf(posted), [[1], [2]]);
    assert.deepEqual(posted.at(-1), { type: "end", id: 7 });
    assert.equal(done(), 1);
  });

  it("ends with the error's code and message when the body breaks", () => {
    const { stream, posted } = fixture();
    const err = Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" });
    stream.end(err);
    assert.deepEqual(posted, [
      { type: "end", id: 7, error: { code: "UND_ERR_SOCKET", message: "other side closed" } },
    ]);
  });

  it("aborts the request and posts nothing more once the main thread drops it", () => {
    const { stream, posted, controller, done } = fixture();
    stream.data(bytes(1));
    stream.data(bytes(2));
    stream.abort();
    stream.taken();
    stream.data(bytes(3));
    stream.end(new Error("aborted"));
    assert.equal(controller.aborted, true);
    assert.deepEqual(dataOf(posted), [[1]]);
    assert.equal(posted.length, 1);
    assert.equal(done(), 1, "done once");
  });

  it("posts a burst as messages of at most 64 KiB, the last one marked", () => {
    const { stream, posted } = fixture();
    stream.data(Buffer.alloc(1)); // spends the credit
    const KiB = 1024;
    assert.equal(WORKER_MESSAGE_BYTES, 64 * KiB);
    for (let i = 0; i < 5; i++) stream.data(Buffer.alloc(40 * KiB, i + 1)); // 200 KiB
    stream.taken();
    const sizes = posted.map((m) => (m.type === "data" ? [m.bytes.byteLength, m.last] : []));
    assert.deepEqual(sizes, [
      [1, true],
      [64 * KiB, false],
      [64 * KiB, false],
      [64 * KiB, false],
      [8 * KiB, true],
    ]);
    // The second message holds bytes 64–128 KiB: the end of chunk 2, chunk 3, the start of 4.
    const second = Buffer.from((posted[2] as { bytes: ArrayBuffer }).bytes);
    assert.deepEqual([second[0], second[16 * KiB], second.at(-1)], [2, 3, 4]);
  });

  it("loses, reorders and duplicates no byte, keeps one post in flight, pauses only past the limit", () => {
    const MiB = 1024 * 1024;
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 1.5 * MiB })), {
          maxLength: 30,
        }),
        (script) => {
          // A positive number: that many bytes arrive; 0: the main thread takes a message.
          const { stream, posted, controller } = fixture();
          const pushed: Buffer[] = [];
          let pushedBytes = 0;
          let postedBytes = 0;
          let seen = 0; // messages of `posted` looked at
          const queue: boolean[] = []; // the main thread's queue: is each message last?
          let postsInFlight = 0;
          const receive = () => {
            for (; seen < posted.length; seen++) {
              const m = posted[seen]!;
              if (m.type !== "data") continue;
              assert.ok(m.bytes.byteLength <= WORKER_MESSAGE_BYTES);
              postedBytes += m.bytes.byteLength;
              queue.push(m.last);
              if (m.last) postsInFlight++;
            }
          };
          for (const step of script) {
            if (step === 0) {
              if (queue.length === 0) continue;
              if (queue.shift()) {
                postsInFlight--;
                stream.taken();
              }
            } else {
              const chunk = Buffer.alloc(step, pushed.length % 251);
              pushed.push(chunk);
              pushedBytes += chunk.length;
              stream.data(chunk);
            }
            receive();
            assert.ok(postsInFlight <= 1, "one post at a time");
            assert.equal(controller.paused, pushedBytes - postedBytes > WORKER_PAUSE_BYTES);
          }
          stream.end();
          assert.equal(posted.at(-1)?.type, "end");
          const received = Buffer.concat(
            posted.flatMap((m) => (m.type === "data" ? [Buffer.from(m.bytes)] : [])),
          );
          assert.ok(received.equals(Buffer.concat(pushed)), "the bytes, in order");
        },
      ),
      { numRuns: 60 },
    );
  });
});
