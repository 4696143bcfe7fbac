/**
 * Fault scenarios of the watch (closed, reset or cut mid-stream, a server down, 429s, a silent
 * watch, watches that close at once, bad lines, a server restart), against the test server over
 * HTTP, through the fault proxy. After each fault the cache equals the server and the handler
 * saw a consistent sequence.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiServer, MemoryStorage } from "kontroller/apiserver";
import { listerWatcherFor, type ReflectorFailure, SharedInformer } from "kontroller/cache";
import { createClient, DecodeError, TransportError } from "kontroller/client";
import { ApiError, errnoCode } from "kontroller/core";
import { type ConfigMap, configMaps } from "kontroller/resources";
import { embeddedOnly, FakeClock, startFaultProxy } from "kontroller/testing";
import { cm, mirroringHandler, startRig, until } from "./rig.ts";

/** An error as the table names it: its Kubernetes or decode reason, system code, or class. */
const failureLabel = (e: unknown) =>
  e instanceof ApiError || e instanceof DecodeError
    ? e.reason
    : (errnoCode(e) ?? (e instanceof Error ? e.name : String(e)));

const reasons = (fs: ReflectorFailure[]) =>
  fs.map((f) => `${f.phase}:${f.recovery}:${f.delayMs}:${failureLabel(f.error)}`);

describe("watch faults", () => {
  it("the server closes a watch: a new watch from the last RV at once, no list, no notifications", async () => {
    await using rig = await startRig();
    await rig.writer.create(cm("a"));
    await rig.start();
    await rig.converged();
    const logged = rig.mirror.log.length;
    const rv = rig.informer.lastSyncResourceVersion;
    // A watch that ends within a second without an event is a short one (client-go's rule):
    // this one has lived.
    await rig.clock.advanceAsync(1000);
    const before = rig.proxy.requests.length;
    // A clean end of the response, as the server ends a watch at its timeout.
    rig.proxy.cutWatches("end");
    await until(
      () => rig.proxy.requests.length > before && rig.proxy.openWatches === 1,
      "a new watch",
    );
    const after = rig.proxy.requests.slice(before);
    assert.deepEqual(
      after.map((r) => [
        r.watch,
        r.watchList,
        r.query.get("resourceVersion"),
        r.query.get("allowWatchBookmarks"),
        r.query.get("timeoutSeconds"),
      ]),
      [[true, false, rv, "true", "300"]],
      "bookmarks asked for, timeoutSeconds drawn from [300, 600) (random() = 0 here)",
    );
    assert.equal(rig.mirror.log.length, logged);
    assert.deepEqual(rig.failures, []);
    await rig.writer.create(cm("b"));
    await rig.converged();
  });

  for (const mode of ["reset", "truncate"] as const) {
    it(`a ${mode} mid-stream is reported and followed by a new watch from the last RV, no list`, async () => {
      await using rig = await startRig();
      await rig.writer.create(cm("a"));
      await rig.start();
      await rig.clock.advanceAsync(1000);
      const before = rig.proxy.requests.length;
      rig.proxy.cutWatches(mode);
      await until(() => rig.failures.length === 1 && rig.proxy.openWatches === 1, "a new watch");
      assert.equal(rig.failures.length, 1);
      const f = rig.failures[0]!;
      assert.deepEqual([f.phase, f.recovery, f.delayMs], ["watch", "rewatch", 0]);
      if (mode === "reset") assert.ok(f.error instanceof TransportError, String(f.error));
      else assert.equal((f.error as DecodeError).reason, "Truncated");
      assert.ok(rig.proxy.requests.slice(before).every((r) => r.watch && !r.watchList));
      await rig.writer.create(cm("b"));
      await rig.converged();
    });
  }

  it("the server is down: watches retried with backoff 0.8, 1.6, 3.2 s, no list, then catch up", async () => {
    await using rig = await startRig();
    await rig.writer.create(cm("a"));
    await rig.start();
    await rig.clock.advanceAsync(1000);
    const before = rig.proxy.requests.length;
    await rig.proxy.down();
    await until(() => rig.failures.length === 2, "the refused watch");
    await rig.writer.create(cm("b"));
    await rig.writer.delete("a");
    await rig.backoff();
    await until(() => rig.failures.length === 3);
    await rig.backoff();
    await until(() => rig.failures.length === 4);
    assert.ok(rig.failures[0]!.error instanceof TransportError);
    assert.deepEqual(reasons(rig.failures.slice(1)), [
      "watch:rewatch:800:ECONNREFUSED",
      "watch:rewatch:1600:ECONNREFUSED",
      "watch:rewatch:3200:ECONNREFUSED",
    ]);
    await rig.proxy.up();
    await rig.backoff();
    await rig.converged();
    assert.ok(
      rig.proxy.requests.slice(before).every((r) => r.watch && !r.watchList),
      "no list",
    );
    assert.deepEqual(rig.mirror.log, ["add a (initial)", "add b", "delete default/a"]);
  });

  it("a 429 on the watch backs off and re-watches without a list", async () => {
    await using rig = await startRig();
    await rig.start();
    await rig.clock.advanceAsync(1000);
    rig.proxy.failRequests({ status: 429, retryAfterSeconds: 1, count: 1, match: (r) => r.watch });
    const before = rig.proxy.requests.length;
    rig.proxy.cutWatches("end");
    await until(() => rig.failures.length === 1);
    assert.deepEqual(reasons(rig.failures), ["watch:rewatch:800:TooManyRequests"]);
    await rig.writer.create(cm("b"));
    await rig.backoff();
    await rig.converged();
    assert.ok(rig.proxy.requests.slice(before).every((r) => r.watch && !r.watchList));
  });

  it("a 429 on the list is retried by the client after Retry-After, or by the reflector", async () => {
    for (const maxRetries of [3, 0]) {
      await using rig = await startRig({ maxRetries, informer: { useWatchList: false } });
      await rig.writer.create(cm("a"));
      rig.proxy.failRequests({
        status: 429,
        retryAfterSeconds: 2,
        count: 1,
        match: (r) => !r.watch,
      });
      const started = rig.start();
      await until(() => rig.clock.pendingTimers > 0 && rig.proxy.requests.length === 1, "the 429");
      if (maxRetries > 0) {
        assert.equal(
          rig.clock.nextTimerAt()! - rig.clock.now(),
          2000,
          "the client waits Retry-After",
        );
        await rig.clock.advanceAsync(2000);
      } else {
        await until(() => rig.failures.length === 1);
        assert.deepEqual(reasons(rig.failures), ["list:relist:800:TooManyRequests"]);
        await rig.backoff();
      }
      await started;
      await rig.converged();
      assert.equal(rig.failures.length, maxRetries > 0 ? 0 : 1);
    }
  });

  it("a stalled watch's backlog is counted while held and delivered whole on resume", async () => {
    await using rig = await startRig();
    await rig.writer.create(cm("a"));
    await rig.start();
    rig.proxy.stallWatches();
    for (const name of ["b", "c", "d"]) await rig.writer.create(cm(name));
    await rig.proxy.whenHeld(3);
    assert.equal(rig.proxy.heldLines, 3);
    assert.equal(rig.informer.store.size, 1, "nothing passes the stall");
    rig.proxy.resumeWatches();
    assert.equal(rig.proxy.heldLines, 0);
    await rig.converged();
    assert.equal(rig.informer.store.size, 4);
  });

  it("a black-holed watch is detected on the informer's clock and replaced", async () => {
    await using rig = await startRig({ informer: { watchIdleTimeoutMs: 60_000 } });
    await rig.writer.create(cm("a"));
    await rig.start();
    rig.proxy.stallWatches();
    await rig.writer.create(cm("b"));
    await rig.writer.update({ ...(await rig.writer.get("a")), data: { v: "2" } });
    await rig.clock.advanceAsync(59_999);
    assert.equal(rig.informer.store.size, 1, "nothing arrives while the watch is silent");
    await rig.clock.advanceAsync(1);
    await until(() => rig.failures.length === 1);
    assert.deepEqual(reasons(rig.failures), ["watch:rewatch:0:WatchIdleError"]);
    await rig.converged();
  });

  it("watches that close at once without events back off instead of looping", async () => {
    await using rig = await startRig();
    await rig.writer.create(cm("a"));
    await rig.start();
    await rig.clock.advanceAsync(1000);
    rig.proxy.failRequests({ status: 200, body: "", match: (r) => r.watch });
    rig.proxy.cutWatches("end");
    const shortDelays: number[] = [];
    for (let round = 0; round < 3; round++) {
      const shorts = () =>
        rig.failures.filter((x) => x.error instanceof Error && x.error.name === "ShortWatchError");
      await until(() => shorts().length > round, "a short watch");
      const f = shorts()[round]!;
      shortDelays.push(f.delayMs);
      const requests = rig.proxy.requests.length;
      for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
      assert.equal(rig.proxy.requests.length, requests, "nothing is sent while backing off");
      await rig.clock.advanceAsync(f.delayMs);
    }
    assert.deepEqual(shortDelays, [800, 1600, 3200]);
    rig.proxy.heal();
    await rig.writer.create(cm("b"));
    await rig.clock.advanceAsync(10_000);
    await rig.converged();
  });

  it("a foreign kind, a bad JSON line or an unknown event type is reported and healed by a relist", async () => {
    const lines = [
      JSON.stringify({
        type: "ADDED",
        object: {
          kind: "Secret",
          apiVersion: "v1",
          metadata: { name: "s", namespace: "default", resourceVersion: "1" },
        },
      }),
      `{"type":"ADDED","object":{"metadata":${"x".repeat(10_000)}`,
      JSON.stringify({
        type: "RENAMED",
        object: {
          kind: "ConfigMap",
          apiVersion: "v1",
          metadata: { name: "z", resourceVersion: "1" },
        },
      }),
    ];
    const expected = ["WrongKind", "InvalidJSON", "UnknownEventType"];
    await using rig = await startRig();
    await rig.writer.create(cm("a"));
    await rig.start();
    for (const [i, line] of lines.entries()) {
      await rig.watching();
      await rig.clock.advanceAsync(1000);
      rig.proxy.injectLine(line);
      await rig.writer.create(cm(`after-${i}`));
      await until(() => rig.failures.length === i + 1, `the failure for ${expected[i]}`);
      const f = rig.failures[i]!;
      assert.ok(f.error instanceof DecodeError);
      assert.equal(f.error.reason, expected[i]);
      assert.equal(f.recovery, "relist");
      assert.ok(f.error.message.length < 700, "the offending bytes are cut");
      await rig.backoff();
      await rig.converged();
      assert.ok(rig.informer.store.list().every((o) => o.kind === "ConfigMap"));
    }
  });

  it("recovers when the server restarts on the same port", {
    skip: embeddedOnly(
      "a server restarted on the same port over the same storage (the test restarts an embedded server of its own; a pooled kube-apiserver is not restarted)",
    ),
  }, async () => {
    const storage = new MemoryStorage();
    let server = new ApiServer({ storage, compactionIntervalMs: 0 });
    const url = await server.listen();
    const port = Number(new URL(url).port);
    await using proxy = await startFaultProxy({ target: url });
    await using direct = createClient({ url });
    const writer = direct.resource(configMaps, { namespace: "default" });
    const clock = new FakeClock();
    await using client = createClient({ url: proxy.url, clock, retry: { maxRetries: 0 } });
    const failures: ReflectorFailure[] = [];
    const mirror = mirroringHandler();
    const informer = new SharedInformer<ConfigMap>({
      listerWatcher: listerWatcherFor(client.resource(configMaps, { namespace: "default" })),
      clock,
      logger: { error() {}, warn() {}, info() {}, debug() {} },
      onWatchError: (f) => failures.push(f),
      backoff: { random: () => 0 },
    });
    informer.addEventHandler(mirror.handler);
    await writer.create(cm("a"));
    const running = informer.run();
    await informer.waitForSync();
    try {
      await server.close();
      await until(() => failures.length >= 1, "a failure while the server is down");
      server = new ApiServer({ storage, port, compactionIntervalMs: 0 });
      await server.listen();
      await writer.create(cm("b"));
      await writer.delete("a");
      const caughtUp = () => informer.store.size === 1 && informer.store.has("default/b");
      for (let i = 0; i < 10 && !caughtUp(); i++) {
        const seen = failures.length;
        await clock.advanceAsync(30_000);
        await until(() => caughtUp() || failures.length > seen, "the next attempt");
      }
      assert.ok(caughtUp(), "the cache caught up");
      await until(() => mirror.model.size === 1 && mirror.model.has("default/b"));
      assert.deepEqual(mirror.problems, []);
    } finally {
      await informer.stop();
      await running;
      await server.close();
      await storage.close();
    }
  });
});
