import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DecodeError } from "../client/index.ts";
import {
  DeletedFinalStateUnknown,
  errors,
  type InformerMetrics,
  type KubeObject,
} from "../core/index.ts";
import { FakeClock, FakeListerWatcher } from "../testing/index.ts";
import type { Logger } from "./logger.ts";
import type { ReflectorFailure } from "./reflector-errors.ts";
import { SharedInformer, type SharedInformerOptions } from "./shared-informer.ts";

interface Cm extends KubeObject {
  metadata: {
    name: string;
    namespace: string;
    uid?: string;
    resourceVersion?: string;
    managedFields?: { manager?: string }[];
  };
  data?: Record<string, string>;
}

const cm = (name: string, data: Record<string, string> = {}, uid = `uid-${name}`): Cm => ({
  kind: "ConfigMap",
  apiVersion: "v1",
  metadata: { name, namespace: "ns", uid },
  data,
});

/** Lets promise continuations and I/O run until `done()` (event-loop turns, never wall time). */
async function until(done: () => boolean, what = "condition"): Promise<void> {
  for (let i = 0; i < 5000; i++) {
    if (done()) return;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function recorder() {
  const log: string[] = [];
  const label = (o: Cm | DeletedFinalStateUnknown<Cm>) =>
    o instanceof DeletedFinalStateUnknown
      ? `tombstone:${o.key}`
      : `${o.metadata.name}@${o.metadata.resourceVersion}`;
  return {
    log,
    handler: {
      onAdd: (o: Cm, initial: boolean) =>
        void log.push(`add ${label(o)}${initial ? " initial" : ""}`),
      onUpdate: (a: Cm, b: Cm) => void log.push(`update ${label(a)} -> ${label(b)}`),
      onDelete: (o: Cm | DeletedFinalStateUnknown<Cm>) => void log.push(`delete ${label(o)}`),
    },
  };
}

const quiet: Logger = { error() {}, warn() {}, info() {}, debug() {} };

function setup(options: Partial<SharedInformerOptions<Cm>> = {}, supportsWatchList = true) {
  const lw = new FakeListerWatcher<Cm>({ supportsWatchList });
  const clock = new FakeClock();
  const failures: ReflectorFailure[] = [];
  const informer = new SharedInformer<Cm>({
    listerWatcher: lw,
    clock,
    logger: quiet,
    onWatchError: (f) => failures.push(f),
    random: () => 0,
    backoff: { random: () => 0 },
    ...options,
  });
  const ac = new AbortController();
  return { lw, clock, informer, failures, ac, run: () => informer.run(ac.signal) };
}

describe("SharedInformer", () => {
  it("syncs with initial adds, updates the cache before handlers, then streams changes", async () => {
    const { lw, informer, ac, run } = setup();
    lw.upsert(cm("a"));
    lw.upsert(cm("b"));
    const { log, handler } = recorder();
    const seenInCache: (string | undefined)[] = [];
    const reg = informer.addEventHandler({
      ...handler,
      onUpdate: (a, b) => {
        seenInCache.push(informer.store.get("ns/a")?.metadata.resourceVersion);
        handler.onUpdate(a, b);
      },
    });
    const running = run();
    await informer.waitForSync();
    await reg.waitForSync();
    assert.ok(informer.hasSynced() && reg.hasSynced());
    assert.deepEqual(log.splice(0), ["add a@2 initial", "add b@3 initial"]);
    assert.equal(informer.store.size, 2);

    lw.upsert(cm("a", { x: "1" }));
    lw.delete("ns/b");
    lw.upsert(cm("c"));
    await until(() => log.length === 3);
    assert.deepEqual(log, ["update a@2 -> a@4", "delete b@5", "add c@6"]);
    assert.deepEqual(seenInCache, ["4"], "the cache had the new object when the handler ran");
    assert.equal(informer.store.resourceVersion, "6");
    assert.equal(informer.lastSyncResourceVersion, "6");
    ac.abort();
    await running;
  });

  it("after a 410, relists and tells handlers: tombstones, updates (recreated: new UID), adds", async () => {
    const { lw, informer, failures, clock, ac, run } = setup();
    lw.upsert(cm("keep"));
    lw.upsert(cm("gone"));
    lw.upsert(cm("recreated"));
    lw.upsert(cm("changed"));
    const { log, handler } = recorder();
    const uids: string[] = [];
    informer.addEventHandler({
      ...handler,
      onUpdate: (a, b) => {
        uids.push(`${a.metadata.uid}->${b.metadata.uid}`);
        handler.onUpdate(a, b);
      },
    });
    const running = run();
    await informer.waitForSync();
    await until(() => log.length === 4);
    log.length = 0;
    // Disconnected: changes happen, then the history is compacted, so the watch gets 410.
    lw.endWatches(new Error("network down"));
    await until(() => clock.pendingTimers > 0 && failures.length === 1);
    lw.delete("ns/gone");
    lw.delete("ns/recreated");
    lw.upsert(cm("recreated", {}, "uid-2"));
    lw.upsert(cm("changed", { v: "2" }));
    lw.upsert(cm("new"));
    lw.compact();
    await clock.runNextAsync();
    await until(() => log.length === 4, "relist notifications");
    assert.deepEqual(
      log.sort(),
      [
        "add new@10",
        "delete tombstone:ns/gone",
        "update changed@5 -> changed@9",
        "update recreated@4 -> recreated@8",
      ].sort(),
    );
    assert.deepEqual(uids.sort(), ["uid-changed->uid-changed", "uid-recreated->uid-2"]);
    assert.deepEqual(
      informer.store.listKeys().sort(),
      lw
        .objects()
        .map((o) => `ns/${o.metadata.name}`)
        .sort(),
    );
    assert.ok(failures.some((f) => f.recovery === "relist"));
    ac.abort();
    await running;
  });

  it("sends unchanged objects of a relist and resyncs only to handlers with a resync period", async () => {
    const { lw, informer, clock, ac, run } = setup();
    lw.upsert(cm("a"));
    const plain = recorder();
    const syncing = recorder();
    informer.addEventHandler(plain.handler);
    informer.addEventHandler(syncing.handler, { resyncPeriodMs: 60_000 });
    const running = run();
    await informer.waitForSync();
    await until(() => plain.log.length === 1 && syncing.log.length === 1);
    await clock.advanceAsync(60_000);
    await until(() => syncing.log.length === 2, "resync");
    assert.deepEqual(syncing.log[1], "update a@2 -> a@2");
    assert.equal(plain.log.length, 1);
    lw.failNextWatch(errors.expired("too old"));
    lw.endWatches();
    await until(
      () => clock.nextTimerAt() !== undefined && clock.nextTimerAt()! - clock.now() === 800,
      "backoff",
    );
    await clock.advanceAsync(800);
    await until(() => syncing.log.length === 3, "relist");
    assert.equal(syncing.log[2], "update a@2 -> a@2");
    assert.equal(plain.log.length, 1, "no update for an unchanged object without resync");
    ac.abort();
    await running;
  });

  it("raises a resync period under 1 s to 1 s", async () => {
    const { lw, informer, clock, ac, run } = setup();
    lw.upsert(cm("a"));
    const { log, handler } = recorder();
    informer.addEventHandler(handler, { resyncPeriodMs: 10 });
    const running = run();
    await informer.waitForSync();
    await until(() => log.length === 1);
    await clock.advanceAsync(999);
    assert.equal(log.length, 1);
    await clock.advanceAsync(1);
    await until(() => log.length === 2, "the resync");
    ac.abort();
    await running;
  });

  it("gives a handler added late the whole cache as initial adds before later changes", async () => {
    const { lw, informer, ac, run } = setup();
    lw.upsert(cm("a"));
    lw.upsert(cm("b"));
    const running = run();
    await informer.waitForSync();
    const { log, handler } = recorder();
    const reg = informer.addEventHandler(handler);
    assert.equal(reg.hasSynced(), false);
    lw.upsert(cm("c"));
    await reg.waitForSync();
    await until(() => log.length === 3);
    assert.deepEqual(log, ["add a@2 initial", "add b@3 initial", "add c@4"]);
    ac.abort();
    await running;
  });

  it("keeps other handlers and the cache going while one handler is stuck, and survives throwing handlers", async () => {
    const errorsSeen: string[] = [];
    let handlerErrors = 0;
    const metrics: InformerMetrics = {
      lists: { inc() {} },
      listDuration: { observe() {} },
      watches: { inc() {} },
      events: { inc() {} },
      failures: { inc() {} },
      handlerErrors: { inc: () => void handlerErrors++ },
    };
    const logger: Logger = {
      ...quiet,
      error: (fields, msg) => void errorsSeen.push(`${msg} ${fields.key}`),
    };
    const { lw, informer, ac, run } = setup({
      metrics: { newInformerMetrics: () => metrics },
      logger,
    });
    let release: () => void = () => {};
    const stuck = informer.addEventHandler({
      onAdd: () =>
        new Promise<void>((r) => {
          release = r;
        }),
    });
    const { log, handler } = recorder();
    informer.addEventHandler({
      ...handler,
      onAdd: (o, i) => {
        if (o.metadata.name === "bad") throw new Error("handler bug");
        handler.onAdd(o, i);
      },
    });
    const running = run();
    await informer.waitForSync();
    for (const n of ["x", "bad", "y", "z"]) lw.upsert(cm(n));
    await until(() => log.length === 3);
    assert.deepEqual(log, ["add x@2", "add y@4", "add z@5"]);
    assert.equal(informer.store.size, 4);
    assert.equal(stuck.pending, 3, "the stuck handler's buffer holds the rest");
    assert.equal(handlerErrors, 1);
    assert.deepEqual(errorsSeen, ["an event handler threw ns/bad"]);
    release();
    await until(() => stuck.pending === 0 || stuck.pending === 2);
    ac.abort();
    await running;
  });

  it("transforms objects once before the cache and handlers see them", async () => {
    const { lw, informer, ac, run } = setup({
      transform: (o) => ({ ...o, metadata: { ...o.metadata, managedFields: undefined } }),
    });
    lw.upsert({
      ...cm("a"),
      metadata: { ...cm("a").metadata, managedFields: [{ manager: "kubectl" }] },
    });
    const seen: unknown[] = [];
    informer.addEventHandler({ onAdd: (o) => void seen.push(o.metadata.managedFields) });
    const running = run();
    await informer.waitForSync();
    await until(() => seen.length === 1);
    assert.deepEqual(seen, [undefined]);
    assert.equal(informer.store.get("ns/a")?.metadata.managedFields, undefined);
    ac.abort();
    await running;
  });

  it("reports bad input, backs off, relists and ends equal to the server", async () => {
    const { lw, informer, clock, failures, ac, run } = setup();
    lw.upsert(cm("a"));
    const running = run();
    await informer.waitForSync();
    lw.endWatches(new DecodeError("InvalidJSON", "a watch line is not valid JSON", "{nope"));
    lw.upsert(cm("b"));
    await until(() => failures.length === 1);
    assert.equal(failures[0]!.recovery, "relist");
    assert.equal(failures[0]!.delayMs, 800);
    await clock.advanceAsync(800);
    await until(() => informer.store.size === 2, "relisted");
    ac.abort();
    await running;
  });

  it("detects a silent watch on its clock and replaces it", async () => {
    const { lw, informer, clock, failures, ac, run } = setup({ watchIdleTimeoutMs: 30_000 });
    const running = run();
    await informer.waitForSync();
    const watches = () => lw.calls.filter((c) => c.type === "watch").length;
    assert.equal(watches(), 1);
    await clock.advanceAsync(29_999);
    assert.equal(watches(), 1);
    lw.bookmark();
    await until(() => informer.store.resourceVersion === lw.resourceVersion);
    await clock.advanceAsync(29_999);
    assert.equal(watches(), 1, "a bookmark keeps the watch alive");
    await clock.advanceAsync(1);
    await until(() => watches() === 2);
    assert.equal(failures[0]!.error?.constructor?.name, "WatchIdleError");
    ac.abort();
    await running;
  });

  it("lists with pages when the server refuses streaming lists", async () => {
    const { lw, informer, failures, ac, run } = setup({ pageSize: 2 }, false);
    for (const n of ["a", "b", "c", "d", "e"]) lw.upsert(cm(n));
    const running = run();
    await informer.waitForSync();
    assert.equal(informer.store.size, 5);
    assert.deepEqual(
      lw.calls.map((c) => c.type),
      ["watch", "list", "list", "list", "watch"],
    );
    assert.equal(failures[0]!.recovery, "fallback-to-list");
    ac.abort();
    await running;
  });

  it("stops: run resolves, nothing more is delivered, and handlers can no longer be added", async () => {
    const { lw, informer, run } = setup();
    const { log, handler } = recorder();
    const reg = informer.addEventHandler(handler);
    const running = run();
    await informer.waitForSync();
    await informer.stop();
    await running;
    await informer.stop();
    lw.upsert(cm("late"));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(log, []);
    assert.equal(lw.openWatches, 0);
    assert.throws(() => informer.addEventHandler(handler), /stopped/);
    assert.throws(() => informer.run(), /already started/);
    informer.removeEventHandler(reg);
    informer.removeEventHandler(reg);
  });

  it("removes a handler: it gets nothing more", async () => {
    const { lw, informer, ac, run } = setup();
    const a = recorder();
    const b = recorder();
    const reg = informer.addEventHandler(a.handler);
    informer.addEventHandler(b.handler);
    const running = run();
    await informer.waitForSync();
    informer.removeEventHandler(reg);
    lw.upsert(cm("x"));
    await until(() => b.log.length === 1);
    assert.deepEqual(a.log, []);
    ac.abort();
    await running;
  });

  it("rejects waits on abort", async () => {
    const { informer } = setup();
    const ac = new AbortController();
    const waiting = informer.waitForSync(ac.signal);
    ac.abort(new Error("gave up"));
    await assert.rejects(waiting, /gave up/);
    const reg = informer.addEventHandler({});
    await assert.rejects(reg.waitForSync(AbortSignal.abort(new Error("now"))), /now/);
  });

  it("rejects the waits of a caller without a signal when the informer stops before it synced", async () => {
    const { lw, informer, failures, run } = setup();
    lw.failNextList(new Error("down"));
    lw.failNextWatch(new Error("down"));
    const reg = informer.addEventHandler({});
    const running = run();
    const waiting = informer.waitForSync();
    const handlerWaiting = reg.waitForSync();
    await until(() => failures.length > 0, "a failed attempt");
    assert.equal(informer.hasSynced(), false);
    await informer.stop();
    await running;
    await assert.rejects(waiting, /stopped before it synced/);
    await assert.rejects(handlerWaiting, /before it synced/);
    await assert.rejects(informer.waitForSync(), /stopped before it synced/, "and later waits too");
    await assert.rejects(reg.waitForSync(), /before it synced/);
  });

  it("rejects the waits on an informer stopped before it ran, and still resolves them once synced", async () => {
    const never = setup().informer;
    const waiting = never.waitForSync();
    const reg = never.addEventHandler({});
    const handlerWaiting = reg.waitForSync();
    await never.stop();
    await assert.rejects(waiting, /stopped before it synced/);
    await assert.rejects(handlerWaiting, /before it synced/);

    const { informer, run } = setup();
    const synced = informer.addEventHandler({});
    const running = run();
    await informer.waitForSync();
    await synced.waitForSync();
    await informer.stop();
    await running;
    await informer.waitForSync();
    await synced.waitForSync();
  });

  it("rejects a removed handler's wait for its sync", async () => {
    const { lw, informer, run } = setup();
    lw.failNextList(new Error("down"));
    lw.failNextWatch(new Error("down"));
    const reg = informer.addEventHandler({});
    const running = run();
    const waiting = reg.waitForSync();
    informer.removeEventHandler(reg);
    await assert.rejects(waiting, /before it synced/);
    await informer.stop();
    await running;
  });
});
