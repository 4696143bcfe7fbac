/**
 * Fault scenarios that end in a relist (410s, refused and unserved lists, streaming lists
 * refused, cut or ignored, and lists the server sends wrong), against the test server over HTTP.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { listerWatcherFor, type ReflectorFailure, SharedInformer } from "kontroller/cache";
import { createClient, type DecodeError } from "kontroller/client";
import { isNotFound, type KubeObject, statusCode } from "kontroller/core";
import { customResourceDefinitions, resourceDefinition } from "kontroller/resources";
import { embeddedOnly, FakeClock, startTestServer } from "kontroller/testing";
import { cm, EXPIRED_WATCH, NO_STREAMING_LISTS, startRig, until } from "./rig.ts";

describe("relist faults", () => {
  it("after 410 the informer relists; missed deletes are tombstones, a recreate an update with a new UID", async () => {
    await using rig = await startRig();
    for (const n of ["keep", "gone", "recreated", "changed"]) await rig.writer.create(cm(n));
    await rig.start();
    await rig.converged();
    await rig.clock.advanceAsync(1000);
    rig.mirror.log.length = 0;
    await rig.proxy.down();
    await until(() => rig.failures.length === 2, "the refused watch");
    await rig.writer.delete("gone");
    await rig.writer.delete("recreated");
    await rig.writer.create(cm("recreated", { second: "life" }));
    await rig.writer.update({ ...(await rig.writer.get("changed")), data: { v: "2" } });
    await rig.writer.create(cm("new"));
    // While the informer was away, the server's history moved past its resourceVersion.
    rig.proxy.failRequests({
      status: 200,
      count: 1,
      match: (r) => r.watch && !r.watchList,
      body: EXPIRED_WATCH,
    });
    await rig.proxy.up();
    await rig.backoff();
    await until(() => rig.failures.some((f) => statusCode(f.error) === 410), "the 410");
    const expired = rig.failures.find((f) => statusCode(f.error) === 410)!;
    assert.equal(expired.recovery, "relist");
    await rig.backoff();
    await rig.converged();
    const relistRequest = rig.proxy.requests.findLast((r) => r.watchList || !r.watch);
    assert.equal(relistRequest?.query.get("resourceVersion"), "", "a consistent read after 410");
    assert.deepEqual(rig.mirror.log.sort(), [
      "add new",
      "delete default/gone (tombstone)",
      "update changed",
      "update recreated (new uid)",
    ]);
  });

  it("a 410 of the server's own: history dropped while the watch was stalled; the re-watch gets 410 and a consistent relist catches up", {
    skip: embeddedOnly(
      "dropping the server's watch history on demand (a 410 from the proxy is the test above)",
    ),
  }, async () => {
    await using rig = await startRig({ informer: { useWatchList: true } });
    for (const n of ["a", "b"]) await rig.writer.create(cm(n));
    await rig.start();
    await rig.converged();
    rig.mirror.log.length = 0;
    rig.proxy.stallWatches();
    await rig.writer.delete("a");
    await rig.writer.create(cm("c"));
    await rig.writer.update({ ...(await rig.writer.get("b")), data: { v: "2" } });
    rig.server.server.dropWatchHistory();
    rig.proxy.cutWatches("end");
    rig.proxy.resumeWatches();
    await until(() => rig.failures.length === 1, "the 410");
    const f = rig.failures[0]!;
    assert.deepEqual([f.phase, f.recovery, f.delayMs], ["watch", "relist", 800]);
    assert.equal(statusCode(f.error), 410);
    const watchesBefore = rig.proxy.requests.filter((r) => r.watchList).length;
    await rig.backoff();
    await rig.converged();
    const relists = rig.proxy.requests.filter((r) => r.watchList);
    assert.equal(relists.length, watchesBefore + 1);
    assert.equal(relists.at(-1)!.query.get("resourceVersion"), "", "a consistent read");
    assert.deepEqual(rig.mirror.log, ["delete default/a (tombstone)", "update b", "add c"]);
  });

  it("a 500 on the watch backs off, then relists (no retry of the watch at the same RV)", async () => {
    await using rig = await startRig();
    await rig.writer.create(cm("a"));
    await rig.start();
    await rig.clock.advanceAsync(1000);
    rig.proxy.failRequests({ status: 500, count: 1, match: (r) => r.watch && !r.watchList });
    const before = rig.proxy.requests.length;
    rig.proxy.cutWatches("end");
    await until(() => rig.failures.length === 1, "the 500");
    const f = rig.failures[0]!;
    assert.deepEqual(
      [f.phase, f.recovery, f.delayMs, statusCode(f.error)],
      ["watch", "relist", 800, 500],
    );
    await rig.writer.create(cm("b"));
    await rig.backoff();
    await rig.converged();
    await rig.watching();
    assert.deepEqual(
      rig.proxy.requests
        .slice(before)
        .map((r) => (r.watchList ? "streaming list" : r.watch ? "watch" : "list")),
      rig.streamingLists ? ["watch", "streaming list"] : ["watch", "list", "watch"],
      "the failed watch, then one relist: a streaming one goes on as the watch",
    );
  });

  it("a list refused with 403 is retried with growing backoff forever, unsynced, and syncs once allowed", async () => {
    await using rig = await startRig({ informer: { useWatchList: false } });
    await rig.writer.create(cm("a"));
    rig.proxy.failRequests({ status: 403, match: (r) => !r.watch });
    const started = rig.start();
    const delays: number[] = [];
    for (let i = 0; i < 5; i++) {
      await until(() => rig.failures.length === i + 1);
      delays.push(rig.failures[i]!.delayMs);
      assert.equal(rig.informer.hasSynced(), false);
      await rig.backoff();
    }
    assert.deepEqual(delays, [800, 1600, 3200, 6400, 12800]);
    assert.ok(rig.failures.every((f) => statusCode(f.error) === 403));
    rig.proxy.heal();
    await rig.clock.advanceAsync(30_000);
    await started;
    await rig.converged();
  });

  it("an informer for a kind the server does not serve (404) waits for its CRD, then syncs", async () => {
    await using server = await startTestServer({ compactionIntervalMs: 0 });
    const widgets = resourceDefinition<KubeObject>({
      group: "example.com",
      version: "v1",
      kind: "Widget",
      plural: "widgets",
    });
    const clock = new FakeClock();
    await using client = createClient({ url: server.url, clock, retry: { maxRetries: 0 } });
    const failures: ReflectorFailure[] = [];
    const informer = new SharedInformer<KubeObject>({
      listerWatcher: listerWatcherFor(client.resource(widgets, { namespace: "default" })),
      clock,
      logger: { error() {}, warn() {}, info() {}, debug() {} },
      onWatchError: (f) => failures.push(f),
      backoff: { random: () => 0 },
    });
    const running = informer.run();
    try {
      await until(() => failures.some((f) => f.delayMs > 0), "a 404");
      assert.ok(
        failures.every((f) => isNotFound(f.error)),
        failures.map((f) => String(f.error)).join("; "),
      );
      assert.equal(informer.hasSynced(), false);
      await client.resource(customResourceDefinitions).create({
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        metadata: { name: "widgets.example.com" },
        spec: {
          group: "example.com",
          names: { kind: "Widget", plural: "widgets", singular: "widget", listKind: "WidgetList" },
          scope: "Namespaced",
          versions: [
            {
              name: "v1",
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: { type: "object" },
              },
            },
          ],
        },
      });
      const widgetClient = client.resource(widgets, { namespace: "default" });
      await until(() => failures.length > 0 && clock.pendingTimers > 0);
      let created = false;
      for (let i = 0; i < 20 && !informer.hasSynced(); i++) {
        if (!created) {
          created = await widgetClient
            .create({ apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w1" } })
            .then(
              () => true,
              () => false,
            );
        }
        const seen = failures.length;
        await clock.advanceAsync(30_000);
        await until(() => informer.hasSynced() || failures.length > seen, "the next attempt");
      }
      await informer.waitForSync();
      await until(() => informer.store.has("default/w1"));
    } finally {
      await informer.stop();
      await running;
    }
  });

  it("a server that refuses streaming lists (422) is listed with pages, from then on", async () => {
    // The informer asks for streaming lists whatever the server serves: the proxy refuses them.
    await using rig = await startRig({ informer: { pageSize: 2, useWatchList: true } });
    for (const n of ["a", "b", "c", "d", "e"]) await rig.writer.create(cm(n));
    rig.proxy.failRequests({ status: 422, match: (r) => r.watchList });
    await rig.start();
    await rig.converged();
    assert.equal(rig.failures[0]!.recovery, "fallback-to-list");
    const lists = rig.proxy.requests.filter((r) => !r.watch);
    assert.ok(lists.length >= 1 && lists.every((r) => r.query.get("limit") === "2"));
    await rig.clock.advanceAsync(1000);
    rig.proxy.cutWatches("end");
    await rig.writer.create(cm("f"));
    await rig.converged();
    assert.equal(
      rig.proxy.requests.filter((r) => r.watchList).length,
      1,
      "no second streaming list",
    );
  });

  it("a streaming list cut before its end bookmark is dropped whole; the cycle lists instead", async (t) => {
    await using rig = await startRig();
    if (!rig.streamingLists) return t.skip(NO_STREAMING_LISTS);
    for (const n of ["a", "b", "c", "d", "e"]) await rig.writer.create(cm(n));
    rig.proxy.endWatchListsAfter(2);
    const sizes: number[] = [];
    rig.informer.addEventHandler({ onAdd: () => void sizes.push(rig.informer.store.size) });
    await rig.start();
    await rig.converged();
    assert.ok(
      sizes.every((s) => s === 5),
      `the cache held all 5 objects at every add: ${sizes}`,
    );
    assert.equal(rig.failures[0]!.recovery, "fallback-to-list");
  });

  it("a server that ignores streaming lists (a plain watch, no end bookmark): after 30 s of silence the informer lists, and pages from then on", {
    // The proxy drops the streaming-list parameters; kube-apiserver (WatchList on) turns a watch
    // from no resourceVersion back into a streaming list, or refuses it where its etcd has no
    // RequestWatchProgress.
    skip: embeddedOnly(
      "a server that ignores streaming lists (kube-apiserver serves a watch from no resourceVersion as a streaming list)",
    ),
  }, async () => {
    await using rig = await startRig({ informer: { useWatchList: true } });
    for (const n of ["a", "b", "c"]) await rig.writer.create(cm(n));
    rig.proxy.ignoreWatchLists();
    const started = rig.start();
    let synced = false;
    void started.then(() => {
      synced = true;
    });
    await until(() => rig.proxy.openWatches === 1, "the streaming list, served as a plain watch");
    await rig.clock.advanceAsync(29_000);
    assert.equal(synced, false, "no sync before the end bookmark that never comes");
    assert.equal(rig.informer.store.size, 0, "nothing cached from an unfinished streaming list");
    await rig.clock.advanceAsync(1_000);
    await started;
    await rig.converged();
    assert.deepEqual(
      rig.failures.map((f) => [f.phase, f.error instanceof Error && f.error.name, f.recovery]),
      [["watch-list", "InitialEventsTimeoutError", "fallback-to-list"]],
    );
    // The next sync, after a 410, is a list: the informer no longer asks this server to stream.
    rig.proxy.failRequests({ status: 410, count: 1, match: (r) => r.watch });
    await rig.writer.create(cm("d"));
    rig.proxy.cutWatches("end");
    await until(() => rig.failures.length === 2, "the 410");
    await rig.backoff();
    await rig.converged();
    assert.equal(rig.proxy.requests.filter((r) => r.watchList).length, 1);
    assert.equal(rig.proxy.requests.filter((r) => !r.watch).length, 2, "two lists");
  });

  it("a relist answered with something that is not a list (one object, a Table) is reported and retried; it never empties the cache", async () => {
    await using rig = await startRig({ informer: { useWatchList: false } });
    for (const n of ["a", "b"]) await rig.writer.create(cm(n));
    await rig.start();
    await rig.converged();
    rig.mirror.log.length = 0;
    const one = await rig.writer.get("a");
    const table = {
      kind: "Table",
      apiVersion: "meta.k8s.io/v1",
      metadata: { resourceVersion: one.metadata?.resourceVersion },
      rows: [],
    };
    for (const body of [JSON.stringify(one), JSON.stringify(table)])
      rig.proxy.failRequests({ status: 200, count: 1, match: (r) => !r.watch, body });
    rig.proxy.failRequests({ status: 500, count: 1, match: (r) => r.watch });
    await until(() => rig.proxy.openWatches === 1, "the watch");
    await rig.clock.advanceAsync(1000);
    rig.proxy.cutWatches("end");
    for (let i = 1; i <= 3; i++) {
      await until(() => rig.failures.length === i, `failure ${i}: the 500, then two bad lists`);
      if (i < 3) await rig.backoff();
    }
    assert.deepEqual(
      rig.failures.map((f) => `${f.phase}:${(f.error as { reason?: string }).reason}`),
      ["watch:InternalError", "list:NotAList", "list:NotAList"],
    );
    assert.equal(rig.informer.store.size, 2, "the cache still holds both objects");
    await rig.backoff();
    await rig.converged();
    assert.deepEqual(rig.mirror.log, [], "no handler heard of anything");
  });

  it("a list without a resourceVersion, or cut short, is reported and retried; nothing half-decoded is cached", async () => {
    await using rig = await startRig({ informer: { useWatchList: false } });
    await rig.writer.create(cm("a"));
    rig.proxy.failRequests({
      status: 200,
      count: 1,
      match: (r) => !r.watch,
      body: JSON.stringify({
        kind: "ConfigMapList",
        apiVersion: "v1",
        metadata: {},
        items: [
          {
            ...cm("ghost"),
            metadata: { name: "ghost", namespace: "default", resourceVersion: "1" },
          },
        ],
      }),
    });
    rig.proxy.failRequests({
      status: 200,
      count: 1,
      match: (r) => !r.watch,
      body: '{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[{"metadata":{"name":"half',
    });
    const started = rig.start();
    await until(() => rig.failures.length === 1);
    assert.equal((rig.failures[0]!.error as DecodeError).reason, "MissingResourceVersion");
    await rig.backoff();
    await until(() => rig.failures.length === 2);
    assert.equal((rig.failures[1]!.error as DecodeError).reason, "Truncated");
    assert.equal(rig.informer.store.size, 0);
    await rig.backoff();
    await started;
    await rig.converged();
    assert.equal(rig.informer.store.has("default/ghost"), false);
  });
});
