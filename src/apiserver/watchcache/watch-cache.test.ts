import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  errorMessage,
  FieldSelector,
  type KubeObject,
  LabelSelector,
  parseLabelSelector,
} from "../../core/index.ts";
import { FakeClock } from "../../testing/index.ts";
import { MemoryStorage } from "../storage/memory-storage.ts";
import type { CacheFilter, CacheWatcher } from "./cache-watcher.ts";
import { WatchCache, type WatchCacheOptions } from "./watch-cache.ts";

const PREFIX = "/registry/configmaps/";
const all: CacheFilter = { label: LabelSelector.everything(), field: FieldSelector.everything() };

async function setup(options: Partial<WatchCacheOptions> = {}) {
  const storage = new MemoryStorage();
  const clock = new FakeClock();
  const cache = new WatchCache({
    storage,
    prefix: PREFIX,
    kind: "ConfigMap",
    apiVersion: "v1",
    clock,
    decode: (kv) => {
      const o = JSON.parse(kv.value) as KubeObject;
      o.metadata = { ...o.metadata, resourceVersion: String(kv.modRevision) };
      return o;
    },
    attrs: (o) => ({
      labels: o.metadata?.labels ?? {},
      fields: { "metadata.name": o.metadata?.name, "metadata.namespace": o.metadata?.namespace },
    }),
    ...options,
  });
  await cache.start();
  const key = (ns: string, name: string) => `${PREFIX}${ns}/${name}`;
  const body = (ns: string, name: string, labels: Record<string, string> = {}, data = "") =>
    JSON.stringify({
      kind: "ConfigMap",
      apiVersion: "v1",
      metadata: { name, namespace: ns, labels },
      data: { d: data },
    });
  /** Writes and waits until the cache has seen the write. */
  const put = async (ns: string, name: string, labels: Record<string, string> = {}, data = "") => {
    const k = key(ns, name);
    const cur = await storage.get(k);
    const kv = cur
      ? await storage.update(k, body(ns, name, labels, data), cur.modRevision)
      : await storage.create(k, body(ns, name, labels, data));
    await cache.waitUntilFresh(kv.modRevision);
    return kv.modRevision;
  };
  const del = async (ns: string, name: string) => {
    const { revision } = await storage.delete(key(ns, name));
    await cache.waitUntilFresh(revision);
    return revision;
  };
  return {
    storage,
    clock,
    cache,
    put,
    del,
    async [Symbol.asyncDispose]() {
      await cache.close();
      await storage.close();
    },
  };
}

/** The lines of a batch (a buffer holds one or more whole lines). */
function linesOf(batch: Buffer[]): string[] {
  return Buffer.concat(batch).toString().split("\n").slice(0, -1);
}

/** The names of the objects in a batch's lines. */
function namesIn(batch: Buffer[]): string[] {
  return linesOf(batch).map((l) => JSON.parse(l).object.metadata.name);
}

/** Takes the lines a watcher has queued so far, parsed. */
async function take(w: CacheWatcher, count: number) {
  const out: { type: string; object: KubeObject & { code?: number; reason?: string } }[] = [];
  const it = w[Symbol.asyncIterator]();
  while (out.length < count) {
    const r = await it.next();
    if (r.done) break;
    for (const line of linesOf(r.value)) out.push(JSON.parse(line));
  }
  return out;
}

const summary = (events: { type: string; object: KubeObject }[]) =>
  events.map(
    (e) => `${e.type} ${e.object.metadata?.name ?? ""}@${e.object.metadata?.resourceVersion}`,
  );

describe("WatchCache", () => {
  it("lists the current state in key order, by namespace and selector", async () => {
    await using t = await setup();
    await t.put("b", "x", { app: "web" });
    await t.put("a", "y", { app: "db" });
    const last = await t.put("a", "x", { app: "web" });
    const { entries, rv } = t.cache.list(all);
    assert.deepEqual(
      entries.map((e) => e.key),
      [`${PREFIX}a/x`, `${PREFIX}a/y`, `${PREFIX}b/x`],
    );
    assert.equal(rv, last);
    const web = t.cache.list({ ...all, label: parseLabelSelector("app=web"), namespace: "a" });
    assert.deepEqual(
      web.entries.map((e) => e.key),
      [`${PREFIX}a/x`],
    );
  });

  it("replays the events after a resourceVersion, then live ones, each once and in order", async () => {
    await using t = await setup();
    const r1 = await t.put("ns", "a");
    await t.put("ns", "b");
    await t.put("ns", "a", {}, "changed");
    const w = t.cache.watch({ filter: all, startRv: r1 });
    await t.del("ns", "b");
    const events = await take(w, 3);
    assert.deepEqual(
      events.map((e) => e.type),
      ["ADDED", "MODIFIED", "DELETED"],
    );
    const rvs = events.map((e) => Number(e.object.metadata!.resourceVersion));
    assert.deepEqual(rvs, [r1 + 1, r1 + 2, r1 + 3]);
    w.close("client");
  });

  it("sends the current state as ADDED and ends it with the initial-events-end bookmark", async () => {
    await using t = await setup();
    await t.put("ns", "b");
    const rv = await t.put("ns", "a");
    const w = t.cache.watch({ filter: all, allowBookmarks: true, initialEventsEndBookmark: true });
    const events = await take(w, 3);
    assert.deepEqual(summary(events), [`ADDED a@${rv}`, `ADDED b@${rv - 1}`, `BOOKMARK @${rv}`]);
    assert.equal(events[2]!.object.metadata?.annotations?.["k8s.io/initial-events-end"], "true");
    assert.equal(events[2]!.object.kind, "ConfigMap");
    w.close("client");
  });

  it("turns selector transitions into ADDED and DELETED (old object, new resourceVersion)", async () => {
    await using t = await setup();
    await t.put("ns", "a", { app: "other" });
    const w = t.cache.watch({
      filter: { ...all, label: parseLabelSelector("app=web") },
      startRv: t.cache.resourceVersion,
    });
    const into = await t.put("ns", "a", { app: "web" });
    await t.put("ns", "a", { app: "web" }, "v2");
    const out = await t.put("ns", "a", { app: "gone" });
    const events = await take(w, 3);
    assert.deepEqual(summary(events), [
      `ADDED a@${into}`,
      `MODIFIED a@${into + 1}`,
      `DELETED a@${out}`,
    ]);
    assert.equal(events[2]!.object.metadata?.labels?.app, "web", "DELETED carries the old object");
    w.close("client");
  });

  it("answers a watch from a resourceVersion older than its history with one 410 ERROR", async () => {
    await using t = await setup({ historyMinCapacity: 2, historyMaxCapacity: 2 });
    const r1 = await t.put("ns", "a");
    await t.put("ns", "b");
    await t.put("ns", "c");
    await t.put("ns", "d");
    const w = t.cache.watch({ filter: all, startRv: r1 });
    const events = await take(w, 2);
    assert.equal(events.length, 1);
    assert.equal(events[0]!.type, "ERROR");
    assert.equal(events[0]!.object.code, 410);
    assert.equal(events[0]!.object.reason, "Expired");
    assert.match(errorMessage(events[0]!.object), /^too old resource version: \d+ \(\d+\)$/);
    assert.equal(w.closeReason, "error");
  });

  it("replays more events than a watcher's buffer holds, each once and in order", async () => {
    await using t = await setup({ watcherBufferSize: 5 });
    const from = t.cache.resourceVersion;
    for (let i = 0; i < 40; i++) await t.put("ns", `o${i % 7}`, {}, String(i));
    const w = t.cache.watch({ filter: all, startRv: from });
    await t.put("ns", "live");
    const events = await take(w, 41);
    assert.deepEqual(
      events.map((e) => Number(e.object.metadata?.resourceVersion)),
      Array.from({ length: 41 }, (_, i) => from + 1 + i),
    );
    assert.equal(events.at(-1)!.object.metadata?.name, "live");
    assert.equal(w.closeReason, undefined);
    w.close("client");
  });

  it("sends a namespace's initial events only, however many objects it has", async () => {
    await using t = await setup({ watcherBufferSize: 5 });
    for (let i = 0; i < 30; i++) await t.put(i % 2 ? "odd" : "even", `o${i}`);
    const w = t.cache.watch({
      filter: { ...all, namespace: "odd" },
      initialEventsEndBookmark: true,
      allowBookmarks: true,
    });
    const events = await take(w, 16);
    assert.equal(events.length, 16);
    assert.ok(
      events
        .slice(0, 15)
        .every((e) => e.type === "ADDED" && e.object.metadata?.namespace === "odd"),
    );
    assert.equal(events[15]!.type, "BOOKMARK");
    assert.equal(w.closeReason, undefined);
    w.close("client");
  });

  it("forgets its history when told to: a resume from before now gets 410, from now works", async () => {
    await using t = await setup();
    const before = await t.put("ns", "a");
    const now = await t.put("ns", "b");
    t.cache.dropHistory();
    assert.equal(t.cache.stats().historySize, 0);
    const old = await take(t.cache.watch({ filter: all, startRv: before }), 2);
    assert.deepEqual(
      old.map((e) => [e.type, e.object.code]),
      [["ERROR", 410]],
    );
    const w = t.cache.watch({ filter: all, startRv: now });
    const next = await t.put("ns", "c");
    assert.deepEqual(summary(await take(w, 1)), [`ADDED c@${next}`]);
    w.close("client");
  });

  it("grows its history while events are fresh instead of evicting them", async () => {
    await using t = await setup({ historyMinCapacity: 2, historyMaxCapacity: 8 });
    const r1 = await t.put("ns", "a");
    for (let i = 0; i < 5; i++) await t.put("ns", `n${i}`);
    assert.equal(t.cache.stats().historyCapacity, 8);
    const w = t.cache.watch({ filter: all, startRv: r1 - 1 });
    assert.equal((await take(w, 6)).length, 6);
    w.close("client");
    t.clock.advance(80_000); // now the history is stale: full history evicts
    for (let i = 0; i < 9; i++) await t.put("ns", `m${i}`);
    assert.equal(t.cache.stats().historyCapacity, 8);
    assert.equal(t.cache.stats().historySize, 8);
  });

  it("serializes each event once whatever the number of watchers", async () => {
    await using t = await setup();
    const watchers = Array.from({ length: 50 }, () =>
      t.cache.watch({ filter: all, startRv: t.cache.resourceVersion }),
    );
    const before = t.cache.stats().serializations;
    for (let i = 0; i < 10; i++) await t.put("ns", `o${i}`);
    for (const w of watchers) assert.equal((await take(w, 10)).length, 10);
    assert.equal(t.cache.stats().serializations - before, 10);
    for (const w of watchers) w.close("client");
  });

  it("closes a watcher that falls too far behind, without slowing the others", async () => {
    await using t = await setup({ watcherBufferSize: 3 });
    const slow = t.cache.watch({ filter: all, startRv: t.cache.resourceVersion });
    const fast = t.cache.watch({ filter: all, startRv: t.cache.resourceVersion });
    const seen: string[] = [];
    const reading = (async () => {
      for await (const lines of fast)
        for (const l of linesOf(lines)) seen.push(JSON.parse(l).object.metadata.name);
    })();
    for (let i = 0; i < 6; i++) await t.put("ns", `o${i}`);
    assert.equal(slow.closeReason, "slow");
    assert.equal(t.cache.stats().slowWatchersClosed, 1);
    fast.close("client");
    await reading;
    assert.deepEqual(seen, ["o0", "o1", "o2", "o3", "o4", "o5"]);
  });

  it("does not close a watcher whose writer is waiting, however large a burst", async () => {
    await using t = await setup({ watcherBufferSize: 3 });
    const w = t.cache.watch({ filter: all, startRv: t.cache.resourceVersion });
    const it = w[Symbol.asyncIterator]();
    const first = it.next(); // the writer waits for lines
    for (let i = 0; i < 10; i++) await t.put("ns", `burst${i}`);
    const { value } = await first;
    assert.deepEqual(namesIn(value ?? []), ["burst0"], "the first event goes at once");
    const rest = await it.next();
    assert.deepEqual(
      namesIn(rest.value ?? []),
      Array.from({ length: 9 }, (_, i) => `burst${i + 1}`),
      "the rest of the burst arrives as one batch on the next turn",
    );
    assert.equal(w.closeReason, undefined);
    w.close("client");
  });

  it("sends bookmarks periodically and shortly before the deadline, then closes at the deadline", async () => {
    await using t = await setup({ bookmarkIntervalMs: 10_000 });
    const rv = await t.put("ns", "a");
    const w = t.cache.watch({
      filter: all,
      startRv: rv,
      allowBookmarks: true,
      deadline: t.clock.now() + 15_000,
    });
    t.clock.advance(10_000);
    assert.equal(w.pending, 1);
    t.clock.advance(2_999);
    assert.equal(w.pending, 1, "the final bookmark comes 2 s before the deadline");
    t.clock.advance(1);
    assert.equal(w.pending, 2);
    assert.equal(w.closeReason, undefined);
    t.clock.advance(2_000);
    assert.equal(w.closeReason, "timeout");
    const events = await take(w, 3);
    assert.deepEqual(summary(events), [`BOOKMARK @${rv}`, `BOOKMARK @${rv}`]);
  });

  it("waits for a future resourceVersion, and gives up with 504 after the freshness timeout", async () => {
    await using t = await setup({ freshnessTimeoutMs: 3000 });
    const rv = t.cache.resourceVersion;
    const waiting = t.cache.waitUntilFresh(rv + 1);
    await t.put("ns", "a");
    await waiting;
    const tooFar = t.cache.waitUntilFresh(rv + 100);
    t.clock.advance(3000);
    await assert.rejects(tooFar, (err: { code?: number; message?: string }) => {
      assert.equal(err.code, 504);
      assert.match(String(err.message), /Too large resource version: \d+, current: \d+/);
      return true;
    });
  });

  it("rejects bad options with the option's name", () => {
    assert.throws(
      () =>
        new WatchCache({
          storage: new MemoryStorage(),
          prefix: PREFIX,
          kind: "ConfigMap",
          apiVersion: "v1",
          decode: () => ({}),
          attrs: () => ({ labels: {}, fields: {} }),
          watcherBufferSize: 0,
        }),
      /watcherBufferSize/,
    );
  });
});
