/**
 * A watch over time, against the test server over HTTP: bookmarks keep a quiet watch
 * alive and the server's own timeout renews it (client-node #596, #958, #2432: watches that
 * went silent, or were torn down every 30 s); a server slow to answer; watch restarts that do
 * not pile up connections (client-node #494).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { listerWatcherFor, type ReflectorFailure, SharedInformer } from "kontroller/cache";
import { createClient } from "kontroller/client";
import { type InformerMetrics, noopInformerMetrics } from "kontroller/core";
import { type ConfigMap, configMaps } from "kontroller/resources";
import { embeddedOnly, FakeClock, startFaultProxy, startTestServer } from "kontroller/testing";
import { cm, startRig, until } from "./rig.ts";

const quiet = { error() {}, warn() {}, info() {}, debug() {} };

describe("watches over time", () => {
  it("a quiet watch lives on the server's bookmarks until the server's timeout, then a new one starts at once", {
    skip: embeddedOnly(
      "virtual time: the server's bookmarks and watch timeout run on the test's FakeClock",
    ),
  }, async () => {
    // The server and the informer share one fake clock: bookmarks, the server's watch deadline
    // and the informer's idle timer all run on it.
    const clock = new FakeClock();
    await using server = await startTestServer({
      clock,
      controllers: false,
      compactionIntervalMs: 0,
    });
    await using proxy = await startFaultProxy({ target: server.url });
    await using client = createClient({ url: proxy.url, clock, retry: { maxRetries: 0 } });
    await client.resource(configMaps, { namespace: "default" }).create(cm("a"));
    let events = 0;
    let opened = 0;
    const metrics: InformerMetrics = {
      ...noopInformerMetrics,
      events: {
        inc(n = 1) {
          events += n;
        },
      },
      watches: {
        inc() {
          opened++;
        },
      },
    };
    const failures: ReflectorFailure[] = [];
    const informer = new SharedInformer<ConfigMap>({
      listerWatcher: listerWatcherFor(client.resource(configMaps, { namespace: "default" })),
      clock,
      logger: quiet,
      metrics: { newInformerMetrics: () => metrics },
      onWatchError: (f) => failures.push(f),
      random: () => 0, // timeoutSeconds=300
      backoff: { random: () => 0 },
    });
    const running = informer.run();
    try {
      await informer.waitForSync();
      const rv = informer.lastSyncResourceVersion;
      const watches = () => proxy.requests.filter((r) => r.watch);
      assert.equal(watches().length, 1);
      // Each watch (the streaming list's, then a plain one) gets bookmarks at 60, 120, 180 and
      // 240 s of its life and a last one at 298 s: never 90 s of silence. The server ends it at
      // 300 s; a new one starts at once.
      for (let n = 1; n <= 2; n++) {
        for (const step of [60_000, 60_000, 60_000, 60_000, 58_000]) {
          const seen = events;
          await clock.advanceAsync(step);
          await until(() => events > seen, `a bookmark at ${clock.now()}`);
        }
        assert.equal(watches().length, n, "one watch for the whole 298 s");
        await clock.advanceAsync(2000);
        // Accepted by the server (its timers set), not only sent.
        await until(() => opened === n + 1, "the next watch, after the server's timeout");
        const next = watches()[n]!;
        assert.deepEqual(
          [next.watchList, next.query.get("resourceVersion")],
          [false, rv],
          "a watch from the last RV, no relist",
        );
      }
      assert.equal(
        proxy.requests.filter((r) => r.method === "GET" && !r.watch).length,
        0,
        "no list",
      );
      assert.deepEqual(failures, [], "a watch that lasted 300 s and ended cleanly is no failure");
    } finally {
      await informer.stop();
      await running;
    }
  });

  it("waits for a slow list on its clock, without failing, and syncs once it is answered", async () => {
    await using rig = await startRig({ informer: { useWatchList: false } });
    await rig.writer.create(cm("a"));
    rig.proxy.delayRequests({ ms: 5000, count: 1, match: (r) => !r.watch });
    const started = rig.start();
    await until(() => rig.proxy.requests.length === 1 && rig.clock.pendingTimers > 0);
    await rig.clock.advanceAsync(4999);
    assert.equal(rig.informer.hasSynced(), false);
    await rig.clock.advanceAsync(1);
    await started;
    await rig.converged();
    assert.deepEqual(rig.failures, []);
  });

  it("gives up on a watch the server does not answer after watchIdleTimeoutMs, and sends it again", async () => {
    await using rig = await startRig({ informer: { watchIdleTimeoutMs: 90_000 } });
    await rig.writer.create(cm("a"));
    await rig.start();
    await rig.clock.advanceAsync(1000);
    rig.proxy.delayRequests({ ms: 120_000, count: 1, match: (r) => r.watch });
    const before = rig.proxy.requests.length;
    rig.proxy.cutWatches("end");
    await until(() => rig.proxy.requests.length === before + 1, "the held watch");
    await rig.writer.create(cm("b"));
    await rig.clock.advanceAsync(89_999);
    assert.equal(rig.failures.length, 0);
    await rig.clock.advanceAsync(1);
    await until(() => rig.failures.length === 1);
    const f = rig.failures[0]!;
    assert.deepEqual(
      [f.phase, f.recovery, f.delayMs, f.error instanceof Error && f.error.name],
      ["watch", "rewatch", 0, "WatchIdleError"],
    );
    await rig.converged();
  });

  it("restarting watches many times holds no more connections than a few (no leak per watch)", async () => {
    await using rig = await startRig();
    await rig.writer.create(cm("a"));
    await rig.start();
    const modes = ["end", "reset", "truncate"] as const;
    for (let i = 0; i < 30; i++) {
      await rig.clock.advanceAsync(1000);
      const before = rig.proxy.requests.length;
      rig.proxy.cutWatches(modes[i % 3]);
      await until(
        () => rig.proxy.requests.length > before && rig.proxy.openWatches === 1,
        `watch ${i + 2}`,
      );
    }
    assert.deepEqual(
      rig.failures.map((f) => f.recovery),
      Array(20).fill("rewatch"),
      "resets and truncations re-watch at once; clean ends are no failure",
    );
    await rig.writer.create(cm("b"));
    await rig.converged();
    await until(() => rig.proxy.connections <= 3, `connections: ${rig.proxy.connections}`);
  });
});
