import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DecodeError, TransportError } from "../client/index.ts";
import {
  ApiError,
  Backoff,
  errors,
  INITIAL_EVENTS_END_ANNOTATION,
  type WatchEvent,
} from "../core/index.ts";
import { InitialEventsTimeoutError, ShortWatchError, WatchIdleError } from "./reflector-errors.ts";
import { type Command, type Effect, ReflectorMachine } from "./reflector-machine.ts";

interface Obj {
  kind?: string;
  metadata: { name: string; namespace?: string; resourceVersion: string };
}

const obj = (name: string, rv: string): Obj => ({
  metadata: { name, namespace: "ns", resourceVersion: rv },
});
const added = (name: string, rv: string): WatchEvent<Obj> => ({
  type: "ADDED",
  object: obj(name, rv),
});
const bookmark = (rv: string, end = false): WatchEvent<Obj> => ({
  type: "BOOKMARK",
  object: {
    metadata: {
      resourceVersion: rv,
      ...(end ? { annotations: { [INITIAL_EVENTS_END_ANNOTATION]: "true" } } : {}),
    },
  },
});

function machine(overrides: { useWatchList?: boolean; pageSize?: number } = {}) {
  return new ReflectorMachine<Obj>({
    pageSize: overrides.pageSize ?? 500,
    pageSizeExplicit: overrides.pageSize !== undefined,
    useWatchList: overrides.useWatchList ?? false,
    minWatchTimeoutSeconds: 300,
    shortWatchMs: 1000,
    backoff: new Backoff({ random: () => 0 }),
    random: () => 0.5,
  });
}

const list = (resourceVersion: string, limit?: number, cont?: string): Command => ({
  type: "list",
  request:
    cont !== undefined
      ? { limit: limit!, continue: cont }
      : { resourceVersion, ...(limit === undefined ? {} : { limit }) },
});
const watch = (resourceVersion: string): Command => ({
  type: "watch",
  request: { resourceVersion, allowWatchBookmarks: true, timeoutSeconds: 450 },
});
const failures = (effects: readonly Effect<Obj>[]) =>
  effects
    .filter((e) => e.type === "failure")
    .map((e) => e.type === "failure" && [e.phase, e.recovery, e.delayMs]);

/** A machine that has listed at rv 10 and is watching. */
function watching(at = 0) {
  const m = machine();
  m.start(at);
  const step = m.listed({ items: [obj("a", "5")], resourceVersion: "10" }, at);
  assert.deepEqual(step.command, watch("10"));
  return m;
}

describe("ReflectorMachine: list mode", () => {
  it("lists at RV 0 with pages of 500, replaces the queue with all pages, then watches from the list RV", () => {
    const m = machine();
    assert.deepEqual(m.start(0), list("0", 500));
    const p1 = m.listed({ items: [obj("a", "3")], resourceVersion: "9", continue: "c1" }, 0);
    assert.deepEqual(p1, { effects: [], command: list("", 500, "c1") });
    const p2 = m.listed({ items: [obj("b", "4")], resourceVersion: "9" }, 0);
    assert.deepEqual(p2.effects, [
      { type: "replace", objects: [obj("a", "3"), obj("b", "4")], resourceVersion: "9" },
    ]);
    assert.deepEqual(p2.command, watch("9"));
    assert.equal(m.lastSyncResourceVersion, "9");
  });

  it("relists at the last RV without a limit, unless the first list came back in pages", () => {
    const m = watching();
    const step = m.watchEnded(errors.internal("boom"), true, 5000);
    assert.deepEqual(step.command, { type: "wait", ms: 800 });
    assert.deepEqual(m.waited(6000), list("10"));

    const paged = machine();
    paged.start(0);
    paged.listed({ items: [], resourceVersion: "9", continue: "c" }, 0);
    paged.listed({ items: [], resourceVersion: "9" }, 0);
    paged.watchEnded(errors.internal("boom"), true, 5000);
    assert.deepEqual(paged.waited(6000), list("9", 500));
  });

  it("always pages with an explicit page size", () => {
    const m = machine({ pageSize: 50 });
    m.start(0);
    m.listed({ items: [], resourceVersion: "9" }, 0);
    m.watchEnded(errors.internal("x"), true, 5000);
    assert.deepEqual(m.waited(6000), list("9", 50));
  });

  it("falls back to one unpaged list at the same RV when a continuation expires", () => {
    const m = machine();
    m.start(0);
    m.listed({ items: [obj("a", "1")], resourceVersion: "9", continue: "c1" }, 0);
    const step = m.listFailed(errors.expired("continue too old"), 0);
    assert.deepEqual(step.command, list("0"));
    assert.deepEqual(failures(step.effects), [["list", "relist", 0]]);
    const done = m.listed({ items: [obj("a", "1"), obj("b", "2")], resourceVersion: "12" }, 0);
    assert.equal(done.effects.length, 1);
    assert.equal(
      (done.effects[0] as unknown as { objects: Obj[] }).objects.length,
      2,
      "the expired pages are dropped",
    );
  });

  it("retries a list that got 410 or 'too large' at once with a consistent read", () => {
    const m = watching();
    m.watchEnded(errors.internal("x"), true, 5000);
    m.waited(6000);
    const step = m.listFailed(errors.gone("too old"), 6000);
    assert.deepEqual(step.command, list("", 500));
    assert.deepEqual(failures(step.effects), [["list", "relist", 0]]);
    const m2 = watching();
    m2.watchEnded(errors.internal("x"), true, 5000);
    m2.waited(6000);
    const tooLarge = errors.timeout(
      "Too large resource version: 99, current: 10",
      1,
      "ResourceVersionTooLarge",
    );
    assert.deepEqual(m2.listFailed(tooLarge, 6000).command, list("", 500));
  });

  it("backs off 0.8, 1.6, 3.2 … s between failed lists, capped at 30 s, and never gives up", () => {
    const m = machine();
    m.start(0);
    const delays: number[] = [];
    let now = 0;
    for (let i = 0; i < 9; i++) {
      const step = m.listFailed(new TransportError("GET", "/x", "ECONNREFUSED", "refused"), now);
      assert.equal(step.command.type, "wait");
      const ms = (step.command as { ms: number }).ms;
      delays.push(ms);
      now += ms;
      assert.deepEqual(m.waited(now), list("0", 500));
    }
    assert.deepEqual(delays, [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000, 30000]);
  });

  it("starts the backoff over at 0.8 s once the reflector ran 2 min without a failure", () => {
    const m = watching();
    let now = 0;
    const fail = () => {
      const step = m.watchEnded(errors.internal("boom"), true, now);
      const ms = (step.command as { ms: number }).ms;
      now += ms;
      m.waited(now);
      m.listed({ items: [], resourceVersion: "10" }, now);
      return ms;
    };
    assert.deepEqual([fail(), fail(), fail()], [800, 1600, 3200]);
    now += 60_000;
    assert.equal(fail(), 6400, "a minute of health is not enough");
    now += 120_001;
    assert.equal(fail(), 800);
  });
});

describe("ReflectorMachine: watch", () => {
  it("passes event batches through and tracks the last RV, bookmarks included", () => {
    const m = watching();
    const batch = [added("b", "11"), bookmark("15")];
    assert.deepEqual(m.watchEvents(batch), [{ type: "events", events: batch }]);
    assert.equal(m.lastSyncResourceVersion, "15");
  });

  it("re-watches at once from the last RV after a clean close, with a random timeout in [300, 600)", () => {
    const m = watching();
    m.watchEvents([added("b", "11")]);
    assert.deepEqual(m.watchEnded(undefined, true, 2000), { effects: [], command: watch("11") });
  });

  it("treats a watch that closes in under a second without events as a failure: backoff, relist", () => {
    const m = watching(1000);
    const step = m.watchEnded(undefined, true, 1500);
    assert.ok((step.effects[0] as { error: unknown }).error instanceof ShortWatchError);
    assert.deepEqual(step.command, { type: "wait", ms: 800 });
    assert.deepEqual(m.waited(3000), list("10"));
  });

  it("relists with a consistent read, after backoff, when the watch gets 410", () => {
    const m = watching();
    const step = m.watchEnded(errors.expired("too old resource version: 10 (20)"), true, 5000);
    assert.deepEqual(failures(step.effects), [["watch", "relist", 800]]);
    assert.deepEqual(m.waited(6000), list("", 500));
  });

  it("re-watches without relisting after a refused connection or a 429", () => {
    for (const error of [
      new TransportError("GET", "/x", "ECONNREFUSED", "refused"),
      errors.tooManyRequests("slow down", 1),
    ]) {
      const m = watching();
      const step = m.watchEnded(error, false, 5000);
      assert.deepEqual(failures(step.effects), [["watch", "rewatch", 800]]);
      assert.deepEqual(m.waited(6000), watch("10"));
    }
  });

  it("re-watches at once after a reset or truncated stream that delivered events", () => {
    for (const error of [
      new TransportError("GET", "/x", "ECONNRESET", "reset"),
      new DecodeError("Truncated", "cut"),
    ]) {
      const m = watching();
      m.watchEvents([added("b", "11")]);
      const step = m.watchEnded(error, true, 5000);
      assert.deepEqual(failures(step.effects), [["watch", "rewatch", 0]]);
      assert.deepEqual(step.command, watch("11"));
    }
  });

  it("re-watches at once after a dead (idle) watch", () => {
    const m = watching();
    const step = m.watchEnded(new WatchIdleError(90_000), true, 95_000);
    assert.deepEqual(failures(step.effects), [["watch", "rewatch", 0]]);
    assert.deepEqual(step.command, watch("10"));
  });

  it("backs off and relists after a bad line, a foreign kind or a 5xx", () => {
    for (const error of [
      new DecodeError("InvalidJSON", "bad"),
      new DecodeError("WrongKind", "bad"),
      new DecodeError("UnknownEventType", "bad"),
      errors.internal("boom"),
      new TransportError("GET", "/x", "ECONNRESET", "reset before the response"),
    ]) {
      const m = watching();
      m.watchEvents([added("b", "11")]);
      const step = m.watchEnded(
        error,
        error instanceof DecodeError || error instanceof ApiError,
        5000,
      );
      assert.equal(step.command.type, "wait", String(error));
      assert.deepEqual(m.waited(6000), list("11"));
    }
  });
});

describe("ReflectorMachine: streaming list", () => {
  const watchList = (rv: string): Command => ({
    type: "watch",
    request: {
      resourceVersion: rv,
      resourceVersionMatch: "NotOlderThan",
      sendInitialEvents: true,
      allowWatchBookmarks: true,
      timeoutSeconds: 450,
    },
  });

  it("starts with a consistent streaming list and replaces only at the end bookmark, then keeps watching", () => {
    const m = machine({ useWatchList: true });
    assert.deepEqual(m.start(0), watchList(""));
    assert.deepEqual(m.watchEvents([added("a", "3"), added("b", "4"), bookmark("5")]), []);
    const after = [added("c", "9")];
    const effects = m.watchEvents([added("d", "6"), bookmark("8", true), ...after]);
    assert.deepEqual(effects, [
      {
        type: "replace",
        objects: [obj("a", "3"), obj("b", "4"), obj("d", "6")],
        resourceVersion: "8",
      },
      { type: "events", events: after },
    ]);
    assert.equal(m.lastSyncResourceVersion, "9");
    assert.equal(m.phase, "watching");
  });

  it("applies MODIFIED and DELETED before the end bookmark to the initial set", () => {
    const m = machine({ useWatchList: true });
    m.start(0);
    const effects = m.watchEvents([
      added("a", "3"),
      added("b", "4"),
      { type: "MODIFIED", object: obj("a", "5") },
      { type: "DELETED", object: obj("b", "6") },
      bookmark("6", true),
    ]);
    assert.deepEqual(effects, [
      { type: "replace", objects: [obj("a", "5")], resourceVersion: "6" },
    ]);
  });

  it("falls back to paged lists for good when the server refuses the streaming list (422)", () => {
    const m = machine({ useWatchList: true });
    m.start(0);
    const refusal = new ApiError({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      reason: "Invalid",
      code: 422,
    });
    const step = m.watchEnded(refusal, false, 10);
    assert.deepEqual(step.command, list("0", 500));
    assert.deepEqual(failures(step.effects), [["watch-list", "fallback-to-list", 0]]);
    assert.equal(m.watchListEnabled, false);
    m.listed({ items: [], resourceVersion: "7" }, 20);
    m.watchEnded(errors.expired("old"), true, 5000);
    assert.deepEqual(m.waited(6000), list("", 500));
  });

  it("drops a streaming list that ends before its bookmark and lists with pages in that cycle", () => {
    const m = machine({ useWatchList: true });
    m.start(0);
    m.watchEvents([added("a", "3")]);
    const step = m.watchEnded(new TransportError("GET", "/x", "ECONNRESET", "reset"), true, 100);
    assert.deepEqual(step.command, list("0", 500));
    assert.deepEqual(failures(step.effects), [["watch-list", "fallback-to-list", 0]]);
    assert.equal(m.watchListEnabled, true, "the next relist tries streaming again");
    const done = m.listed({ items: [obj("b", "4")], resourceVersion: "4" }, 200);
    assert.deepEqual(done.effects, [
      { type: "replace", objects: [obj("b", "4")], resourceVersion: "4" },
    ]);
  });

  it("stops trying streaming lists after one closed cleanly with nothing in it", () => {
    const m = machine({ useWatchList: true });
    m.start(0);
    const step = m.watchEnded(undefined, true, 5);
    assert.deepEqual(step.command, list("0", 500));
    assert.deepEqual(failures(step.effects), [["watch-list", "fallback-to-list", 0]]);
    assert.equal(m.watchListEnabled, false);
    const partial = machine({ useWatchList: true });
    partial.start(0);
    partial.watchEvents([added("a", "3")]);
    partial.watchEnded(undefined, true, 5);
    assert.equal(partial.watchListEnabled, true, "a list cut after some events is retried later");
  });

  it("given up waiting for the end bookmark, lists in that cycle; for good if events had come", () => {
    const ignored = machine({ useWatchList: true });
    ignored.start(0);
    ignored.watchEvents([added("a", "3"), added("b", "4")]);
    const step = ignored.watchEnded(new InitialEventsTimeoutError(30_000), true, 31_000);
    assert.deepEqual(step.command, list("0", 500));
    assert.deepEqual(failures(step.effects), [["watch-list", "fallback-to-list", 0]]);
    assert.equal(ignored.watchListEnabled, false, "a server that sent a plain watch's state");
    const silent = machine({ useWatchList: true });
    silent.start(0);
    silent.watchEnded(new InitialEventsTimeoutError(30_000), true, 30_000);
    assert.equal(silent.watchListEnabled, true, "silent from the start: tried again next time");
  });

  it("retries the streaming list after backoff when refused or rate limited, with RV '' after 410", () => {
    const m = machine({ useWatchList: true });
    m.start(0);
    assert.deepEqual(
      failures(
        m.watchEnded(new TransportError("GET", "/x", "ECONNREFUSED", "x"), false, 0).effects,
      ),
      [["watch-list", "relist", 800]],
    );
    assert.deepEqual(m.waited(800), watchList(""));
    m.watchEvents([bookmark("20", true)]);
    m.watchEnded(errors.expired("old"), true, 5000);
    assert.deepEqual(m.waited(9000), watchList(""));
    m.watchEvents([bookmark("30", true)]);
    m.watchEnded(errors.internal("x"), true, 20_000);
    assert.deepEqual(m.waited(30_000), watchList("30"));
  });
});
