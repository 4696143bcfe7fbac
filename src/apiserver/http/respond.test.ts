import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import type { ServerResponse } from "node:http";
import { describe, it } from "node:test";
import { LIST_CHUNK_BYTES, sendJsonList } from "./respond.ts";

/**
 * A response that records (copies of) what is written; `full` makes every write report a full
 * socket and hold its callback until `drain()`.
 */
class RecordingResponse extends EventEmitter {
  statusCode = 0;
  readonly headers: Record<string, string | number> = {};
  readonly chunks: Buffer[] = [];
  ended = false;
  destroyed = false;
  writableEnded = false;
  writableNeedDrain = false;
  readonly full: boolean;
  #wrote: (() => void) | undefined;
  #callbacks: (() => void)[] = [];

  constructor(full = false) {
    super();
    this.full = full;
  }
  setHeader(name: string, value: string | number) {
    this.headers[name.toLowerCase()] = value;
  }
  write(chunk: Buffer | string, done?: () => void): boolean {
    this.chunks.push(Buffer.from(chunk));
    this.writableNeedDrain = this.full;
    if (done !== undefined) {
      if (this.full) this.#callbacks.push(done);
      else queueMicrotask(done);
    }
    this.#wrote?.();
    return !this.full;
  }
  end(chunk?: Buffer | string) {
    if (chunk !== undefined) this.chunks.push(Buffer.from(chunk));
    this.ended = true;
    this.writableEnded = true;
  }
  nextWrite(): Promise<void> {
    return new Promise((resolve) => {
      this.#wrote = resolve;
    });
  }
  drain() {
    this.writableNeedDrain = false;
    for (const done of this.#callbacks.splice(0)) done();
    this.emit("drain");
  }
  get body(): string {
    return Buffer.concat(this.chunks).toString();
  }
}

const as = (r: RecordingResponse) => r as unknown as ServerResponse;
const head = '{"kind":"ThingList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[';
const item = (i: number, size: number) => JSON.stringify({ name: `t${i}`, pad: "é".repeat(size) });
const itemBytes = (i: number, size: number) => Buffer.from(item(i, size));

describe("sendJsonList", () => {
  for (const [what, count, size, streamed] of [
    ["no items", 0, 0, false],
    ["one item", 1, 10, false],
    ["a small list", 50, 100, false],
    ["a list whose last item ends past one chunk", 2, LIST_CHUNK_BYTES / 4, false],
    ["a list with items left after one chunk", 3, LIST_CHUNK_BYTES / 4, true],
    ["a large list", 3000, 1000, true],
  ] as const) {
    it(`writes the same bytes as the whole text for ${what}`, async () => {
      const items = Array.from({ length: count }, (_, i) => i);
      const res = new RecordingResponse();
      let encoded = 0;
      const json = (i: number) => {
        encoded++;
        return itemBytes(i, size);
      };
      await sendJsonList(as(res), head, items, json, "]}");
      const whole = `${head}${items.map((i) => item(i, size)).join(",")}]}`;
      assert.equal(res.body, whole);
      assert.deepEqual(JSON.parse(res.body), JSON.parse(whole));
      assert.equal(encoded, count, "each item encoded once");
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers["content-type"], "application/json");
      assert.ok(res.ended);
      assert.equal(res.headers["content-length"], streamed ? undefined : Buffer.byteLength(whole));
      if (streamed) {
        assert.ok(res.chunks.length >= 2);
        for (const c of res.chunks.slice(0, -2)) assert.ok(c.length >= LIST_CHUNK_BYTES);
      } else assert.equal(res.chunks.length, 1);
    });
  }

  for (const [what, count, size] of [
    ["a small list", 3, 10],
    ["a streamed list", 3000, 1000],
  ] as const) {
    it(`leaves out the prefix it is given where an item begins with it, in ${what}`, async () => {
      const typed = (i: number) => `{"apiVersion":"v1","kind":"Thing",${item(i, size).slice(1)}`;
      const other = (i: number) => `{"apiVersion":"v2","kind":"Thing",${item(i, size).slice(1)}`;
      const items = Array.from({ length: count }, (_, i) => i);
      const encode = (i: number) => Buffer.from(i % 2 === 0 ? typed(i) : other(i));
      const res = new RecordingResponse();
      const prefix = Buffer.from('{"apiVersion":"v1","kind":"Thing",');
      await sendJsonList(as(res), head, items, encode, "]}", prefix);
      const want = items.map((i) => (i % 2 === 0 ? item(i, size) : other(i)));
      assert.equal(res.body, `${head}${want.join(",")}]}`);
    });
  }

  it("builds the next chunk only once the socket has drained", async () => {
    const items = Array.from({ length: 3000 }, (_, i) => i);
    const res = new RecordingResponse(true);
    let encoded = 0;
    let wrote = res.nextWrite();
    const json = (i: number) => {
      encoded++;
      return itemBytes(i, 1000);
    };
    const sending = sendJsonList(as(res), head, items, json, "]}");
    await wrote;
    const first = encoded;
    assert.ok(first < items.length);
    wrote = res.nextWrite();
    res.drain();
    await wrote;
    assert.ok(encoded > first, "the next chunk after the drain");
    res.destroyed = true;
    res.emit("close");
    await sending;
    assert.ok(encoded < items.length, "nothing more once the response is gone");
    assert.equal(res.ended, false);
  });
});
