/**
 * The controller's start and stop guarantees, and its log lines: workers wait for the caches;
 * a drained stop loses nothing queued; stop returns within its grace period whatever a
 * reconcile does; every reconcile ends with one structured line saying why it ran.
 */
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import { pino } from "pino";
import { InformerFactory, silentLogger } from "../cache/index.ts";
import { createClient } from "../client/index.ts";
import { noopControllerMetrics, TerminalError } from "../core/index.ts";
import { configMaps, secrets } from "../resources/index.ts";
import { FakeClock, startTestServer } from "../testing/index.ts";
import { ItemExponentialFailureRateLimiter } from "../workqueue/index.ts";
import { controller } from "./builder.ts";
import { Controller } from "./controller.ts";
import { Calls, setup } from "./controller-fixtures.test.ts";
import { describeReason } from "./reasons.ts";
import type { ReconcileContext } from "./reconciler.ts";

/** Lets pending promise continuations and one turn of I/O run. Not a sleep: no time passes. */
async function settle(turns = 10): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
}

/** A promise and its resolver. */
function gate() {
  let open!: () => void;
  const promise = new Promise<void>((r) => {
    open = r;
  });
  return { promise, open };
}

/** The JSON lines a pino logger wrote, with a wait on them. */
class Lines {
  readonly seen: Record<string, unknown>[] = [];
  #waiters: { test: () => boolean; resolve: () => void }[] = [];
  readonly stream = new Writable({
    write: (chunk: Buffer, _enc, done) => {
      for (const line of chunk.toString("utf8").split("\n")) {
        if (line !== "") this.seen.push(JSON.parse(line) as Record<string, unknown>);
      }
      this.#waiters = this.#waiters.filter((w) => {
        if (!w.test()) return true;
        w.resolve();
        return false;
      });
      done();
    },
  });

  until(test: (seen: Record<string, unknown>[]) => boolean): Promise<void> {
    if (test(this.seen)) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ test: () => test(this.seen), resolve }));
  }
}

describe("Controller start and stop", () => {
  it("starts no worker before every cache it reads has synced", async () => {
    await using server = await startTestServer({ controllers: false });
    await using client = createClient({ url: server.url });
    const cms = client.resource(configMaps, { namespace: "default" });
    for (let i = 0; i < 20; i++) await cms.create({ metadata: { name: `seed-${i}` } });
    const factory = new InformerFactory({ client, logger: silentLogger });
    const lister = factory.lister(configMaps);
    const calls = new Calls();
    const syncedAtCall: boolean[] = [];
    const c = new Controller({
      spec: controller({
        name: "gated",
        for: configMaps,
        owns: [secrets],
        reconcile: (request, ctx) => {
          syncedAtCall.push(c.hasSynced() && lister.list().length >= 20);
          calls.push(request, ctx);
        },
      }),
      factory,
      logger: silentLogger,
    });
    c.connect();
    const started = c.start();
    // A key is ready at once, but no informer runs yet: a worker must not take it.
    c.enqueue("default/early", { type: "requeue" });
    await settle();
    assert.equal(calls.seen.length, 0, "nothing reconciled before the caches synced");
    assert.equal(c.hasSynced(), false);

    const stop = new AbortController();
    factory.start(stop.signal);
    await started;
    assert.equal(c.hasSynced(), true);
    await calls.until((s) => s.length >= 21);
    assert.ok(
      syncedAtCall.every((x) => x),
      "every reconcile, the first included, saw synced caches",
    );
    await c.stop({ graceMs: 1000 });
    stop.abort();
    await factory.shutdown();
  });

  it("with drainQueued, reconciles every queued key before it stops; without, drops them", async () => {
    for (const drainQueued of [true, false]) {
      const calls = new Calls();
      const busy = gate();
      await using t = await setup(async (request, ctx) => {
        calls.push(request, ctx);
        if (request.name === "busy") await busy.promise;
      });
      await t.c.start();
      t.c.enqueue("default/busy", { type: "requeue" });
      await calls.until((s) => s.length === 1);
      // The one worker is busy; five keys wait behind it.
      for (let i = 0; i < 5; i++) t.c.enqueue(`default/queued-${i}`, { type: "requeue" });
      const stopping = t.c.stop({ drainQueued });
      t.c.enqueue("default/too-late", { type: "requeue" });
      busy.open();
      await stopping;
      const names = calls.seen.map((c) => c.request.name);
      assert.deepEqual(
        names,
        drainQueued
          ? ["busy", "queued-0", "queued-1", "queued-2", "queued-3", "queued-4"]
          : ["busy"],
        `drainQueued: ${drainQueued}`,
      );
      assert.equal(calls.seen[0]!.ctx.signal.aborted, false, "the in-flight one finished in time");
    }
  });

  it("returns from stop once the grace period is over, even if a reconcile ignores its signal", async () => {
    const clock = new FakeClock();
    const calls = new Calls();
    const outcomes: string[] = [];
    await using t = await setup(
      (request, ctx) => {
        calls.push(request, ctx);
        return new Promise<void>(() => {}); // never settles, never looks at ctx.signal
      },
      {},
      { ...noopControllerMetrics, reconciled: (o) => outcomes.push(o) },
      clock,
    );
    await t.c.start();
    t.c.enqueue("default/stuck", { type: "requeue" });
    await calls.until((s) => s.length === 1);
    let stopped = false;
    const stopping = t.c.stop({ graceMs: 5000 }).then(() => {
      stopped = true;
    });
    await clock.advanceAsync(4999);
    assert.equal(stopped, false, "in-flight reconciles get the whole grace period");
    assert.equal(calls.seen[0]!.ctx.signal.aborted, false);
    await clock.advanceAsync(1);
    await stopping;
    assert.equal(calls.seen[0]!.ctx.signal.aborted, true, "its signal aborts at the end of it");
    assert.deepEqual(outcomes, ["error"], "and it counts as a failed reconcile");
  });
});

describe("Controller priorities", () => {
  it("queues resyncs at low priority, behind a fresh event", async () => {
    await using server = await startTestServer({ controllers: false });
    await using client = createClient({ url: server.url });
    const cms = client.resource(configMaps, { namespace: "default" });
    for (const name of ["a", "b"]) await cms.create({ metadata: { name } });
    const clock = new FakeClock();
    const factory = new InformerFactory({
      client,
      logger: silentLogger,
      clock,
      defaultResyncPeriodMs: 10_000,
    });
    const calls = new Calls();
    const busy = gate();
    // The priority function sees each event just before it is queued: the test waits on it.
    const queued = new Calls();
    const c = new Controller({
      spec: controller({
        name: "resyncs",
        for: configMaps,
        // Only "default": a real kube-apiserver keeps ConfigMaps of its own in kube-system.
        namespace: "default",
        priority: ({ event, object }) => {
          queued.push({ name: `${event} ${object.metadata?.name}` }, {} as ReconcileContext);
          return undefined; // the default
        },
        reconcile: async (request, ctx) => {
          calls.push(request, ctx);
          if (request.name === "blocker") await busy.promise;
        },
      }),
      factory,
      logger: silentLogger,
      clock,
    });
    c.connect();
    const stop = new AbortController();
    factory.start(stop.signal);
    await c.start();
    await calls.until((s) => s.length === 2);
    // Hold the only worker; then the resync period passes, and a fresh object comes.
    c.enqueue("default/blocker", { type: "requeue" });
    await calls.until((s) => s.length === 3);
    await clock.advanceAsync(10_000);
    await queued.until((q) => q.filter((x) => x.request.name.startsWith("resync")).length === 2);
    await cms.create({ metadata: { name: "fresh" } });
    await queued.until((q) => q.some((x) => x.request.name === "add fresh"));
    busy.open();
    await calls.until((s) => s.length === 6);
    assert.deepEqual(
      calls.seen.slice(3).map((x) => [x.request.name, describeReason(x.ctx.reason)]),
      [
        ["fresh", "add of ConfigMap default/fresh"],
        ["a", "resync of ConfigMap default/a"],
        ["b", "resync of ConfigMap default/b"],
      ],
    );
    await c.stop({ graceMs: 1000 });
    stop.abort();
    await factory.shutdown();
  });
});

describe("Controller log lines", () => {
  it("ends every reconcile with one pino line: controller, key, reconcile id, reason, wait", async () => {
    const lines = new Lines();
    const logger = pino({ level: "debug" }, lines.stream);
    let flaky = 1;
    await using t = await setup(
      ({ name }) => {
        if (name === "flaky" && flaky-- > 0) throw new Error("transient");
        if (name === "doomed") throw new TerminalError("bad spec");
      },
      { rateLimiter: new ItemExponentialFailureRateLimiter({ baseDelayMs: 1, maxDelayMs: 1 }) },
      undefined,
      undefined,
      async () => {},
      logger,
    );
    await t.c.start();
    for (const name of ["fine", "flaky", "doomed"]) await t.cms.create({ metadata: { name } });
    const ends = () => lines.seen.filter((l) => typeof l.reconcileId === "string");
    // fine: 1 reconcile; flaky: a failure and its retry; doomed: 1 terminal failure.
    await lines.until(() => ends().length >= 4);
    const byKey = (name: string) => ends().filter((l) => l.key === `default/${name}`);
    assert.deepEqual(
      byKey("flaky").map((l) => [l.msg, l.reason]),
      [
        ["reconcile failed; retrying with backoff", "add of ConfigMap default/flaky"],
        ["reconciled", "retry 1 after: transient"],
      ],
    );
    assert.deepEqual(
      byKey("doomed").map((l) => l.msg),
      ["reconcile failed with a terminal error; not retrying"],
    );
    assert.deepEqual(
      byKey("fine").map((l) => [l.msg, l.reason, l.result]),
      [["reconciled", "add of ConfigMap default/fine", "success"]],
    );
    for (const l of ends()) {
      assert.equal(l.controller, "test");
      assert.match(String(l.reconcileId), /^[0-9a-f-]{36}$/);
      assert.equal(typeof l.waitedMs, "number", JSON.stringify(l));
      assert.equal(typeof l.durationMs, "number", JSON.stringify(l));
    }
    assert.equal(new Set(ends().map((l) => l.reconcileId)).size, ends().length, "one line each");
  });
});
