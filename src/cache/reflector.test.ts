import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DecodeError } from "../client/index.ts";
import {
  errors,
  type InformerMetrics,
  type KubeObject,
  noopInformerMetrics,
  type WatchEvent,
} from "../core/index.ts";
import { FakeClock, FakeListerWatcher } from "../testing/index.ts";
import { DeltaFIFO } from "./delta-fifo.ts";
import type { ListerWatcher } from "./lister-watcher.ts";
import type { Logger } from "./logger.ts";
import { Reflector, type ReflectorOptions } from "./reflector.ts";

interface Cm extends KubeObject {
  metadata: { name: string; namespace: string; resourceVersion?: string };
}

const cm = (name: string, rv?: string): Cm => ({
  kind: "ConfigMap",
  apiVersion: "v1",
  metadata: { name, namespace: "ns", ...(rv === undefined ? {} : { resourceVersion: rv }) },
});

/** Lets promise continuations run until `done()` (event-loop turns, never wall time). */
async function until(done: () => boolean, what = "condition"): Promise<void> {
  for (let i = 0; i < 5000; i++) {
    if (done()) return;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A logger and metrics that record what they are given. */
function recorders() {
  const logged: { level: string; message: string; fields: Record<string, unknown> }[] = [];
  const at =
    (level: string) =>
    (fields: Record<string, unknown>, message: string): void =>
      void logged.push({ level, message, fields });
  const logger: Logger = {
    error: at("error"),
    warn: at("warn"),
    info: at("info"),
    debug: at("debug"),
  };
  const failures: string[] = [];
  const metrics: InformerMetrics = {
    ...noopInformerMetrics,
    failures: { inc: (phase, reason) => void failures.push(`${phase}:${reason}`) },
  };
  return { logged, logger, failures, metrics: { newInformerMetrics: () => metrics } };
}

function reflector(lw: ListerWatcher<Cm>, extra: Partial<ReflectorOptions<Cm>> = {}) {
  const clock = new FakeClock();
  const queue = new DeltaFIFO<Cm>();
  const r = new Reflector<Cm>({
    listerWatcher: lw,
    queue,
    clock,
    name: "cms",
    random: () => 0,
    backoff: { random: () => 0 },
    ...extra,
  });
  const ac = new AbortController();
  const running = r.run(ac.signal);
  return {
    clock,
    queue,
    reflector: r,
    async stop() {
      ac.abort();
      await running;
    },
  };
}

/**
 * A server that takes a streaming list for a plain watch: it sends its state as ADDED events
 * (none if `state` is false) and never the end bookmark. Its first plain watch fails with 410,
 * so that the reflector has to sync again; later ones stay open. Records each call.
 */
function ignoresSendInitialEvents(state: boolean) {
  const calls: string[] = [];
  let plainWatches = 0;
  const hang = (signal: AbortSignal) =>
    new Promise<never>((_, reject) =>
      signal.addEventListener("abort", () => reject(signal.reason), { once: true }),
    );
  const lw: ListerWatcher<Cm> = {
    list: async () => {
      calls.push("list");
      return { items: [cm("a", "2")], resourceVersion: "2" };
    },
    watch: async (call) => {
      calls.push(call.sendInitialEvents ? "watch-list" : "watch");
      if (!call.sendInitialEvents && plainWatches++ === 0) throw errors.expired("too old");
      return {
        async *[Symbol.asyncIterator]() {
          if (call.sendInitialEvents && state) yield [{ type: "ADDED", object: cm("a", "2") }];
          await hang(call.signal);
        },
      };
    },
  };
  return { lw, calls };
}

describe("Reflector: a streaming list that never ends", () => {
  it("is given up after 30 s of silence; a server that sent its state as a plain watch gets paged lists from then on", async () => {
    const server = ignoresSendInitialEvents(true);
    const reported: string[] = [];
    const r = reflector(server.lw, {
      onWatchError: (f) =>
        void reported.push(`${f.phase} ${f.error instanceof Error && f.error.name} ${f.recovery}`),
    });
    await until(() => server.calls.length === 1, "the streaming list");
    await r.clock.advanceAsync(29_999);
    assert.deepEqual(server.calls, ["watch-list"]);
    assert.equal(r.queue.size, 0, "nothing replaced before the end");
    await r.clock.advanceAsync(1);
    await until(() => server.calls.length === 3, "the list and watch that follow");
    assert.equal(r.queue.size, 1, "the list's replace");
    // The watch fails with 410: the sync that follows is a list, not another streaming list.
    assert.deepEqual(reported, [
      "watch-list InitialEventsTimeoutError fallback-to-list",
      "watch ApiError relist",
    ]);
    await r.clock.advanceAsync(30_000);
    await until(() => server.calls.length === 5, "the second sync");
    assert.deepEqual(server.calls, ["watch-list", "list", "watch", "list", "watch"]);
    await r.stop();
  });

  it("is given up after 30 s without a single event, and tried again at the next sync", async () => {
    const server = ignoresSendInitialEvents(false);
    const r = reflector(server.lw, { onWatchError: () => {} });
    await until(() => server.calls.length === 1, "the streaming list");
    await r.clock.advanceAsync(30_000);
    await until(() => server.calls.length === 3, "the list and watch that follow");
    await r.clock.advanceAsync(30_000);
    await until(() => server.calls.length === 4, "the second sync");
    assert.deepEqual(server.calls, ["watch-list", "list", "watch", "watch-list"]);
    await r.stop();
  });

  it("refuses an initialEventsTimeoutMs that is not a positive number", () => {
    assert.throws(
      () => reflector(new FakeListerWatcher<Cm>(), { initialEventsTimeoutMs: 0 }),
      /initialEventsTimeoutMs/,
    );
  });
});

describe("Reflector: reports", () => {
  it("without onWatchError, logs each failure (410 quietly, bad input as a warning with the bytes cut) and counts it by phase and reason", async () => {
    const lw = new FakeListerWatcher<Cm>();
    lw.upsert(cm("a"));
    const { logged, logger, failures, metrics } = recorders();
    const r = reflector(lw, { logger, metrics });
    await until(() => lw.openWatches === 1, "the watch");
    const bad = `{"type":"ADDED","object":${"x".repeat(5000)}`;
    lw.endWatches(new DecodeError("InvalidJSON", "a watch line is not valid JSON", bad));
    await until(() => logged.length === 1, "the report");
    const warned = logged[0]!;
    assert.equal(warned.level, "warn");
    assert.equal(warned.message, "list/watch failed");
    assert.deepEqual(
      [warned.fields.reflector, warned.fields.phase, warned.fields.reason, warned.fields.recovery],
      ["cms", "watch", "InvalidJSON", "relist"],
    );
    assert.equal(warned.fields.delayMs, 800);
    const err = warned.fields.err as DecodeError;
    assert.ok(err.message.length < 400, `the offending line is cut: ${err.message.length}`);
    assert.ok(err.sample.startsWith('{"type":"ADDED","object":xxx'));
    await r.clock.advanceAsync(800);
    await until(() => lw.openWatches === 1, "the watch after the relist");
    lw.endWatches(errors.expired("too old resource version: 2 (3)"));
    await until(() => logged.length === 2, "the second report");
    assert.deepEqual(
      [logged[1]!.level, logged[1]!.message, logged[1]!.fields.reason],
      ["info", "watch restarted", "Expired"],
    );
    assert.deepEqual(failures, ["watch:InvalidJSON", "watch:Expired"]);
    await r.stop();
  });

  it("keeps going when the watch-error handler throws, logging that it threw", async () => {
    const lw = new FakeListerWatcher<Cm>();
    const { logged, logger } = recorders();
    const r = reflector(lw, {
      logger,
      onWatchError: () => {
        throw new Error("handler bug");
      },
    });
    await until(() => lw.openWatches === 1, "the watch");
    lw.endWatches(errors.internal("boom"));
    await until(() => logged.length === 1);
    assert.equal(logged[0]!.message, "the watch-error handler threw");
    await r.clock.advanceAsync(800);
    await until(() => lw.openWatches === 1, "the next watch");
    lw.upsert(cm("b"));
    await until(() => r.reflector.lastSyncResourceVersion === lw.resourceVersion);
    await r.stop();
  });

  it("warns every 10 s of silence while a streaming list waits for its end bookmark, and stops once it is over", async () => {
    let watches = 0;
    // A server that sends one initial object and then nothing, not even the end bookmark.
    const silent: ListerWatcher<Cm> = {
      list: async () => ({ items: [cm("a", "2")], resourceVersion: "2" }),
      watch: async (call) => {
        watches++;
        return {
          async *[Symbol.asyncIterator]() {
            const first: WatchEvent<Cm>[] = [{ type: "ADDED", object: cm("a", "2") }];
            if (call.sendInitialEvents) yield first;
            await new Promise((_, reject) =>
              call.signal.addEventListener("abort", () => reject(call.signal.reason), {
                once: true,
              }),
            );
          },
        };
      },
    };
    const { logged, logger } = recorders();
    const r = reflector(silent, {
      logger,
      watchIdleTimeoutMs: 35_000,
      initialEventsTimeoutMs: 60_000,
      onWatchError: () => {},
    });
    await until(() => watches === 1, "the streaming list");
    await r.clock.advanceAsync(9_999);
    assert.equal(logged.length, 0);
    await r.clock.advanceAsync(1);
    await r.clock.advanceAsync(20_000);
    const warnings = () => logged.filter((l) => l.level === "warn");
    assert.deepEqual(
      warnings().map((l) => [l.message, l.fields.reflector, l.fields.silentMs]),
      [10_000, 20_000, 30_000].map((ms) => [
        "the streaming list has not sent its initial-events-end bookmark yet",
        "cms",
        ms,
      ]),
    );
    // At 35 s the watch is presumed dead: this cycle lists instead, then watches; no more warnings.
    await r.clock.advanceAsync(5_000);
    await until(() => watches === 2, "the watch after the list");
    assert.equal(r.queue.size, 1, "the list's replace");
    await r.clock.advanceAsync(30_000);
    assert.equal(warnings().length, 3);
    await r.stop();
  });
});
