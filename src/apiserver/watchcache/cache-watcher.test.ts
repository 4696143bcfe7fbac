import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  FieldSelector,
  type KubeObject,
  LabelSelector,
  parseLabelSelector,
} from "../../core/index.ts";
import { FakeClock } from "../../testing/index.ts";
import { CacheEntry, CacheEvent, jsonEncoder, type WatchEncoder } from "./cache-event.ts";
import { type CacheFilter, CacheWatcher, type CacheWatcherOptions } from "./cache-watcher.ts";
import { BACKLOG_CHUNK_BYTES, BACKLOG_CHUNK_LINES, type WatchBacklog } from "./watch-backlog.ts";

const all: CacheFilter = { label: LabelSelector.everything(), field: FieldSelector.everything() };

function entry(name: string, rv: number, labels: Record<string, string> = {}, data = "") {
  const object: KubeObject = {
    kind: "ConfigMap",
    apiVersion: "v1",
    metadata: { name, namespace: "ns", resourceVersion: String(rv), labels },
    data: { d: data },
  } as KubeObject;
  return new CacheEntry(`/registry/configmaps/ns/${name}`, object, rv, {
    labels,
    fields: { "metadata.name": name },
  });
}

/** A cache's event log, for building replays and live events. */
function eventLog() {
  const current = new Map<string, CacheEntry>();
  return (name: string, rv: number, labels: Record<string, string> = {}) => {
    const prev = current.get(name);
    const e = entry(name, rv, labels);
    current.set(name, e);
    return new CacheEvent(prev ? "MODIFIED" : "ADDED", rv, e, prev, 0);
  };
}

function watcher(over: Partial<CacheWatcherOptions> & { backlog?: WatchBacklog }) {
  const counter = { serializations: 0 };
  const clock = new FakeClock();
  let rv = over.startRv ?? 0;
  const closed: CacheWatcher[] = [];
  const w = new CacheWatcher({
    filter: all,
    encoder: jsonEncoder,
    counter,
    clock,
    startRv: 0,
    maxPending: 10,
    bookmarks: { kind: "ConfigMap", apiVersion: "v1", intervalMs: 1000 },
    deadline: Number.POSITIVE_INFINITY,
    currentRv: () => rv,
    onClose: (c) => closed.push(c),
    ...over,
  });
  w.start();
  return {
    w,
    counter,
    clock,
    closed,
    setRv: (n: number) => {
      rv = n;
    },
  };
}

type Line = { type: string; object: KubeObject };

/** A writer that takes one batch at a time, when told to: each batch as its parsed lines. */
function writer(w: CacheWatcher) {
  const it = w[Symbol.asyncIterator]();
  return {
    async batch(): Promise<Line[] | undefined> {
      const r = await it.next();
      if (r.done) return undefined;
      const text = Buffer.concat(r.value).toString();
      assert.ok(text.endsWith("\n"), "a batch holds whole lines");
      return text
        .split("\n")
        .slice(0, -1)
        .map((l) => JSON.parse(l) as Line);
    },
    async rest(): Promise<Line[]> {
      const out: Line[] = [];
      for (let b = await this.batch(); b !== undefined; b = await this.batch()) out.push(...b);
      return out;
    },
  };
}

const show = (lines: Line[]) =>
  lines.map(
    (l) => `${l.type} ${l.object.metadata?.name ?? ""}@${l.object.metadata?.resourceVersion}`,
  );

describe("CacheWatcher backlog", () => {
  it("hands out a large initial backlog in chunks, encoded as taken, then the end bookmark", async () => {
    const entries = Array.from({ length: 1234 }, (_, i) =>
      entry(`o${String(i).padStart(4, "0")}`, i + 1),
    );
    const t = watcher({
      startRv: 2000,
      maxPending: 3,
      backlog: { kind: "initial", entries, endBookmarkRv: 2000 },
    });
    assert.equal(t.counter.serializations, 0, "nothing is encoded before the writer asks");
    const out = writer(t.w);
    const sizes: number[] = [];
    const lines: Line[] = [];
    for (let i = 0; i < 3; i++) {
      const b = (await out.batch())!;
      sizes.push(b.length);
      lines.push(...b);
      assert.equal(t.counter.serializations, Math.min(1234, (i + 1) * BACKLOG_CHUNK_LINES));
      assert.equal(t.w.inBacklog, true, "the batch came from the backlog");
    }
    assert.deepEqual(sizes, [
      BACKLOG_CHUNK_LINES,
      BACKLOG_CHUNK_LINES,
      1234 - 2 * BACKLOG_CHUNK_LINES + 1,
    ]);
    assert.equal(t.w.closeReason, undefined, "the backlog does not count against maxPending");
    assert.deepEqual(
      lines.slice(0, -1).map((l) => l.object.metadata?.name),
      entries.map((e) => e.object.metadata?.name),
    );
    const end = lines.at(-1)!;
    assert.equal(end.type, "BOOKMARK");
    assert.equal(end.object.metadata?.resourceVersion, "2000");
    assert.equal(end.object.metadata?.annotations?.["k8s.io/initial-events-end"], "true");
    t.setRv(2001);
    t.w.deliver(new CacheEvent("MODIFIED", 2001, entry("o0001", 2001), entries[1], 0));
    assert.deepEqual(show((await out.batch())!), ["MODIFIED o0001@2001"]);
    assert.equal(t.w.inBacklog, false, "a live batch");
    t.w.close("client");
    assert.equal(await out.batch(), undefined);
  });

  it("ends a chunk at about a megabyte however few lines it has", async () => {
    const big = "x".repeat(300 * 1024);
    const entries = Array.from({ length: 10 }, (_, i) => entry(`big${i}`, i + 1, {}, big));
    const t = watcher({ backlog: { kind: "initial", entries } });
    const out = writer(t.w);
    const sizes: number[] = [];
    for (let n = 0; n < 10; ) {
      const b = (await out.batch())!;
      sizes.push(b.length);
      n += b.length;
    }
    const perChunk = Math.ceil(BACKLOG_CHUNK_BYTES / (300 * 1024));
    assert.deepEqual(sizes, [perChunk, perChunk, 10 - 2 * perChunk]);
    t.w.close("client");
  });

  it("sends no end bookmark to a watch that did not ask for bookmarks", async () => {
    const t = watcher({
      bookmarks: undefined,
      backlog: { kind: "initial", entries: [entry("a", 1)], endBookmarkRv: 5 },
    });
    const out = writer(t.w);
    t.w.close("terminated");
    assert.deepEqual(show(await out.rest()), ["ADDED a@1"]);
  });

  it("replays history filtered, with selector transitions, then live events once and in order", async () => {
    const ev = eventLog();
    const history = [
      ev("a", 11, { app: "web" }),
      ev("b", 12, { app: "db" }),
      ev("b", 13, { app: "web" }), // into the selection: ADDED
      ev("a", 14, { app: "db" }), // out of it: DELETED
    ];
    const t = watcher({
      filter: { ...all, label: parseLabelSelector("app=web") },
      startRv: 14,
      backlog: { kind: "replay", events: history },
    });
    const out = writer(t.w);
    // Live events arrive while the writer has not even started: at or below 14 they are the
    // backlog's (dropped), later ones queue behind it.
    t.w.deliver(history[3]!);
    t.w.deliver(ev("b", 15, { app: "web" }));
    t.w.deliver(ev("c", 16, { app: "db" }));
    t.w.deliver(ev("c", 17, { app: "web" }));
    t.w.close("timeout");
    assert.deepEqual(show(await out.rest()), [
      "ADDED a@11",
      "ADDED b@13",
      "DELETED a@14",
      "MODIFIED b@15",
      "ADDED c@17",
    ]);
  });

  it("queues live events behind a backlog being written and closes as slow beyond maxPending", async () => {
    const entries = Array.from({ length: 3 * BACKLOG_CHUNK_LINES }, (_, i) =>
      entry(`o${i}`, i + 1),
    );
    const ev = eventLog();
    const t = watcher({ startRv: 5000, maxPending: 3, backlog: { kind: "initial", entries } });
    const out = writer(t.w);
    assert.equal((await out.batch())!.length, BACKLOG_CHUNK_LINES); // the socket is now full
    for (let rv = 5001; rv <= 5003; rv++) t.w.deliver(ev(`live${rv}`, rv));
    assert.equal(t.w.pending, 3);
    assert.equal(t.w.closeReason, undefined);
    t.w.deliver(ev("one-too-many", 5004));
    assert.equal(t.w.closeReason, "slow");
    assert.deepEqual(t.closed, [t.w]);
    assert.equal(await out.batch(), undefined, "a slow watcher drops its backlog and queue");
  });

  it("ends after the backlog and the live lines when closed while the backlog drains", async () => {
    const entries = Array.from({ length: 2 * BACKLOG_CHUNK_LINES }, (_, i) =>
      entry(`o${i}`, i + 1),
    );
    const ev = eventLog();
    const t = watcher({ startRv: 5000, backlog: { kind: "initial", entries } });
    const out = writer(t.w);
    await out.batch();
    t.w.deliver(ev("live", 5001));
    t.w.close("terminated");
    t.w.deliver(ev("after-close", 5002));
    const rest = show(await out.rest());
    assert.equal(rest.length, BACKLOG_CHUNK_LINES + 1);
    assert.equal(rest.at(-1), "ADDED live@5001");
  });

  it("queues a bookmark due while the backlog drains behind it, at the cache's resourceVersion", async () => {
    const entries = Array.from({ length: 2 * BACKLOG_CHUNK_LINES }, (_, i) =>
      entry(`o${i}`, i + 1),
    );
    const ev = eventLog();
    const t = watcher({
      startRv: 5000,
      backlog: { kind: "initial", entries, endBookmarkRv: 5000 },
    });
    const out = writer(t.w);
    await out.batch();
    t.w.deliver(ev("live", 5001));
    t.setRv(5007); // events of other resources, or filtered out
    t.clock.advance(1000);
    t.w.close("client");
    const rest = await out.rest();
    assert.equal(rest.length, BACKLOG_CHUNK_LINES + 3);
    assert.deepEqual(show(rest.slice(-3)), ["BOOKMARK @5000", "ADDED live@5001", "BOOKMARK @5007"]);
    assert.equal(rest.at(-3)!.object.metadata?.annotations?.["k8s.io/initial-events-end"], "true");
    assert.equal(rest.at(-1)!.object.metadata?.annotations, undefined);
  });

  it("encodes lines in stream order, so a stateful encoder's first output goes first", async () => {
    let n = 0;
    const numbered: WatchEncoder = {
      id: "numbered",
      encode: (o) => JSON.stringify({ ...o, metadata: { ...o.metadata, name: `#${n++}` } }),
    };
    const ev = eventLog();
    const t = watcher({
      encoder: numbered,
      startRv: 2,
      backlog: { kind: "replay", events: [ev("a", 1), ev("b", 2)] },
    });
    t.w.deliver(ev("c", 3)); // live, queued before the backlog is taken
    const out = writer(t.w);
    t.w.close("client");
    assert.deepEqual(
      (await out.rest()).map((l) => l.object.metadata?.name),
      ["#0", "#1", "#2"],
    );
  });
});

describe("CacheWatcher live events", () => {
  const nextTurn = () => new Promise<"next turn">((r) => setImmediate(() => r("next turn")));

  it("hands a lone event to a waiting writer in the same turn of the event loop", async () => {
    const ev = eventLog();
    const t = watcher({});
    const out = writer(t.w);
    const batch = out.batch(); // the writer waits for lines
    const turn = nextTurn(); // queued before the delivery: a handover on the next turn comes after it
    t.w.deliver(ev("lone", 1));
    assert.deepEqual(await Promise.race([batch.then((b) => show(b!)), turn]), ["ADDED lone@1"]);
  });

  it("sends what is queued in one go together, and the rest of the turn's on the next turn, without closing as slow", async () => {
    const ev = eventLog();
    const t = watcher({ maxPending: 3 });
    const out = writer(t.w);
    const first = out.batch();
    for (let rv = 1; rv <= 3; rv++) t.w.deliver(ev(`b${rv}`, rv));
    assert.deepEqual(show((await first)!), ["ADDED b1@1", "ADDED b2@2", "ADDED b3@3"]);
    // Still the same turn: the writer, handed the first three, is not back yet.
    for (let rv = 4; rv <= 8; rv++) t.w.deliver(ev(`b${rv}`, rv));
    assert.equal(t.w.pending, 5, "more than maxPending");
    assert.equal(t.w.closeReason, undefined);
    assert.equal((await out.batch())!.length, 5);
    // Back and waiting, in the same turn: what comes now waits for the next turn, together.
    const turn = nextTurn();
    const third = out.batch();
    for (let rv = 9; rv <= 12; rv++) t.w.deliver(ev(`b${rv}`, rv));
    assert.equal(t.w.closeReason, undefined);
    assert.equal(await Promise.race([third, turn]), "next turn", "not before the next turn");
    assert.equal((await third)!.length, 4);
  });

  it("bounds what waits for a writer still busy on a later turn", async () => {
    const ev = eventLog();
    const t = watcher({ maxPending: 3 });
    const out = writer(t.w);
    const first = out.batch();
    t.w.deliver(ev("a", 1));
    await first; // handed over; the writer does not come back for more
    await nextTurn();
    for (let rv = 2; rv <= 4; rv++) t.w.deliver(ev(`q${rv}`, rv));
    assert.equal(t.w.closeReason, undefined);
    t.w.deliver(ev("one-too-many", 5));
    assert.equal(t.w.closeReason, "slow");
  });
});
