import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import type { ServerResponse } from "node:http";
import { describe, it } from "node:test";
import fc from "fast-check";
import { CHUNK_BYTES, ChunkWriter } from "./chunk-writer.ts";

interface Outstanding {
  readonly chunk: Buffer;
  readonly copy: Buffer;
  readonly done: (() => void) | undefined;
}

/**
 * A response whose writes stay outstanding until `complete()` (or, with `autoComplete`, a
 * microtask later). Completing a write checks that its bytes were left alone meanwhile.
 */
class FakeResponse extends EventEmitter {
  destroyed = false;
  writableEnded = false;
  writableNeedDrain = false;
  readonly written: Buffer[] = [];
  readonly outstanding: Outstanding[] = [];
  readonly autoComplete: boolean;
  /** Whether a write reports a full socket (and the writer has to wait for 'drain'). */
  full = true;
  #waiting: { n: number; resolve: () => void } | undefined;

  constructor(autoComplete: boolean) {
    super();
    this.autoComplete = autoComplete;
  }

  write(chunk: Buffer, done?: () => void): boolean {
    const copy = Buffer.from(chunk);
    this.written.push(copy);
    this.outstanding.push({ chunk, copy, done });
    this.writableNeedDrain = true;
    if (this.#waiting !== undefined && this.written.length >= this.#waiting.n) {
      this.#waiting.resolve();
      this.#waiting = undefined;
    }
    if (this.autoComplete) queueMicrotask(() => this.complete());
    return !this.full;
  }

  /** Completes the oldest outstanding write. */
  complete(): void {
    const w = this.outstanding.shift()!;
    assert.deepEqual(w.chunk, w.copy, "a chunk changed while it was being written");
    w.done?.();
    if (this.outstanding.length === 0) {
      this.writableNeedDrain = false;
      this.emit("drain");
    }
  }

  /** Resolves once `n` writes have been made. */
  writes(n: number): Promise<void> {
    if (this.written.length >= n) return Promise.resolve();
    return new Promise((resolve) => {
      this.#waiting = { n, resolve };
    });
  }

  close(): void {
    this.destroyed = true;
    this.emit("close");
  }

  get body(): Buffer {
    return Buffer.concat(this.written);
  }
}

const as = (r: FakeResponse) => r as unknown as ServerResponse;

/** A piece of `size` bytes, all `fill`. */
const piece = (size: number, fill: number) => Buffer.alloc(size, fill);

/** One turn of the event loop: every promise that can settle has. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("ChunkWriter", () => {
  it("writes every piece in order, whatever the sizes and batches", async () => {
    const size = fc.constantFrom(0, 1, 300, 70_000, 400_000, CHUNK_BYTES - 1, CHUNK_BYTES + 7);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(size, { maxLength: 6 }), { minLength: 1, maxLength: 5 }),
        fc.boolean(),
        async (batches, flushEach) => {
          const res = new FakeResponse(true);
          const writer = new ChunkWriter(as(res));
          const all: Buffer[] = [];
          let fill = 0;
          for (const sizes of batches) {
            const pieces = sizes.map((s) => piece(s, ++fill % 256));
            all.push(...pieces);
            await writer.write(pieces);
            if (flushEach) await writer.flush();
          }
          await writer.flush();
          assert.ok(res.body.equals(Buffer.concat(all)));
          for (const c of res.written) assert.ok(c.length > 0, "no empty write");
        },
      ),
      { numRuns: 40 },
    );
  });

  it("fills whole chunks until flushed", async () => {
    const res = new FakeResponse(true);
    const writer = new ChunkWriter(as(res));
    const pieces = Array.from({ length: 100 }, (_, i) => piece(50_000, i));
    await writer.write(pieces);
    assert.deepEqual(
      res.written.map((c) => c.length),
      [1_000_000, 1_000_000, 1_000_000, 1_000_000],
    );
    await writer.flush();
    assert.equal(res.written.at(-1)!.length, 1_000_000);
    assert.ok(res.body.equals(Buffer.concat(pieces)));
  });

  it("sends a small batch as one write of its own bytes, without a chunk buffer or a promise when the socket takes it", async () => {
    const res = new FakeResponse(true);
    const writer = new ChunkWriter(as(res));
    const line = Buffer.from('{"type":"ADDED","object":{}}\n');
    const done = writer.write([line]);
    assert.equal(res.outstanding[0]!.chunk, line);
    await done;
    res.full = false;
    assert.equal(writer.write([line]), undefined, "nothing to wait for");
    assert.equal(writer.flush(), undefined);
    await writer.write([line, line]);
    assert.equal(res.written.at(-1)!.toString(), `${line}${line}`);
  });

  it("writes a whole batch as one buffer of its own, after what the chunks hold", async () => {
    const res = new FakeResponse(true);
    const writer = new ChunkWriter(as(res));
    await writer.write([piece(100_000, 1)]); // stays in the current chunk
    assert.equal(res.written.length, 0);
    const big = [piece(700_000, 2), piece(700_000, 3)];
    await writer.writeWhole(big);
    assert.deepEqual(
      res.written.map((c) => [c.length, c[0]]),
      [
        [100_000, 1],
        [1_400_000, 2],
      ],
    );
    assert.ok(res.body.equals(Buffer.concat([piece(100_000, 1), ...big])));
  });

  it("keeps at most two chunks outstanding and refills a buffer only once its write is done", async () => {
    const res = new FakeResponse(false);
    const writer = new ChunkWriter(as(res));
    const pieces = Array.from({ length: 6 }, (_, i) => piece(CHUNK_BYTES, i + 1));
    let settled = false;
    const writing = writer.write(pieces)!.then(() => {
      settled = true;
    });
    await res.writes(2);
    await turn();
    assert.equal(res.written.length, 2, "waits while both buffers are out");
    assert.equal(settled, false);
    for (let n = 3; n <= 5; n++) {
      res.complete(); // the older chunk is in the kernel: its buffer takes the next one
      await res.writes(n);
      await turn();
      assert.equal(res.written.length, n);
      assert.equal(res.outstanding.length, 2);
    }
    res.complete();
    await writing;
    const flushing = writer.flush();
    while (res.outstanding.length > 0) {
      res.complete();
      await turn();
    }
    await flushing;
    assert.ok(res.body.equals(Buffer.concat(pieces)));
  });

  it("stops writing when the response closes while it waits", async () => {
    const res = new FakeResponse(false);
    const writer = new ChunkWriter(as(res));
    const writing = writer.write(Array.from({ length: 8 }, (_, i) => piece(CHUNK_BYTES, i)));
    await res.writes(2);
    res.close();
    await writing;
    await writer.write([piece(CHUNK_BYTES, 9)]);
    await writer.flush();
    assert.equal(res.written.length, 2);
  });
});
