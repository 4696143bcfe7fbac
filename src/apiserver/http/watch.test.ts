import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, it } from "node:test";
import { FieldSelector, type KubeObject, LabelSelector } from "../../core/index.ts";
import { FakeClock } from "../../testing/index.ts";
import { CacheEntry, jsonEncoder } from "../watchcache/cache-event.ts";
import { CacheWatcher } from "../watchcache/cache-watcher.ts";
import { BACKLOG_CHUNK_LINES } from "../watchcache/watch-backlog.ts";
import { streamWatch } from "./watch.ts";

/** A watcher with a backlog of three chunks, already closed: it ends after the backlog. */
function closedWatcher(): CacheWatcher {
  const entries = Array.from({ length: 2 * BACKLOG_CHUNK_LINES + 1 }, (_, i) => {
    const object = { kind: "ConfigMap", metadata: { name: `o${i}` } } as KubeObject;
    return new CacheEntry(`/registry/configmaps/o${i}`, object, i + 1, { labels: {}, fields: {} });
  });
  const w = new CacheWatcher({
    filter: { label: LabelSelector.everything(), field: FieldSelector.everything() },
    encoder: jsonEncoder,
    counter: { serializations: 0 },
    clock: new FakeClock(),
    startRv: 2000,
    backlog: { kind: "initial", entries },
    maxPending: 10,
    bookmarks: undefined,
    deadline: Number.POSITIVE_INFINITY,
    currentRv: () => 2000,
    onClose: () => {},
  });
  w.close("terminated");
  return w;
}

/** A response whose socket is always "full": every write returns false. */
class FullResponse extends EventEmitter {
  readonly log: string[] = [];
  destroyed = false;
  writableEnded = false;
  writableNeedDrain = false;
  /** What `writableNeedDrain` becomes after a write. */
  needDrainAfterWrite: boolean;
  #wrote: (() => void) | undefined;

  constructor(needDrainAfterWrite: boolean) {
    super();
    this.needDrainAfterWrite = needDrainAfterWrite;
  }
  writeHead() {}
  flushHeaders() {}
  write(chunk: Buffer): boolean {
    this.log.push(`write ${chunk.toString().split("\n").length - 1}`);
    this.writableNeedDrain = this.needDrainAfterWrite;
    this.#wrote?.();
    return false;
  }
  end() {
    this.writableEnded = true;
    this.log.push("end");
  }
  /** Resolves at the next write. */
  nextWrite(): Promise<void> {
    return new Promise((resolve) => {
      this.#wrote = resolve;
    });
  }
  drain() {
    this.writableNeedDrain = false;
    this.log.push("drain");
    this.emit("drain");
  }
}

const request = () => ({ socket: new EventEmitter() }) as unknown as IncomingMessage;

describe("streamWatch", () => {
  it("waits for 'drain' after a write the socket could not take", async () => {
    const res = new FullResponse(true);
    let wrote = res.nextWrite();
    const streaming = streamWatch(request(), res as unknown as ServerResponse, closedWatcher());
    for (let i = 0; i < 3; i++) {
      await wrote;
      wrote = res.nextWrite();
      res.drain();
    }
    await streaming;
    const n = BACKLOG_CHUNK_LINES;
    assert.deepEqual(res.log, [
      `write ${n}`,
      "drain",
      `write ${n}`,
      "drain",
      "write 1",
      "drain",
      "end",
    ]);
  });

  it("does not wait for a 'drain' that will not come: the response no longer needs one", {
    timeout: 10_000,
  }, async () => {
    // write() said false, but by the time the writer listens the buffer has been flushed
    // (writableNeedDrain false): no 'drain' will be emitted, and the watch must not go silent.
    const res = new FullResponse(false);
    await streamWatch(request(), res as unknown as ServerResponse, closedWatcher());
    const n = BACKLOG_CHUNK_LINES;
    assert.deepEqual(res.log, [`write ${n}`, `write ${n}`, "write 1", "end"]);
  });

  it("stops when the response is destroyed while it waits", async () => {
    const res = new FullResponse(true);
    const wrote = res.nextWrite();
    const streaming = streamWatch(request(), res as unknown as ServerResponse, closedWatcher());
    await wrote;
    res.destroyed = true;
    res.emit("close");
    await streaming;
    assert.deepEqual(res.log, [`write ${BACKLOG_CHUNK_LINES}`]);
  });
});
