/**
 * Informers, handlers, listers and the factory against the test server over HTTP, including
 * handler faults: a handler that hangs, one that throws, one added after sync.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  InformerFactory,
  type Logger,
  listerWatcherFor,
  type ReflectorFailure,
  SharedInformer,
} from "kontroller/cache";
import { createClient } from "kontroller/client";
import { deletionHandlingKey, isNotFound, objectKey } from "kontroller/core";
import { type ConfigMap, configMaps, namespaces } from "kontroller/resources";
import { FakeClock, startFaultProxy, startTestServer, waitFor } from "kontroller/testing";
import { cm, servesStreamingLists, startRig, until } from "./rig.ts";

describe("informers over HTTP", () => {
  it("a handler that never returns holds up neither other handlers nor the cache", async () => {
    await using rig = await startRig();
    await rig.start();
    const stuck = rig.informer.addEventHandler({ onAdd: () => new Promise<void>(() => {}) });
    for (let i = 0; i < 20; i++) await rig.writer.create(cm(`c${i}`));
    await rig.converged();
    assert.equal(stuck.pending, 19, "its buffer holds everything after the first call");
    assert.equal(stuck.hasSynced(), true);
  });

  it("a handler that throws is logged and counted, and delivery goes on", async () => {
    const logged: string[] = [];
    const logger: Logger = {
      warn() {},
      info() {},
      debug() {},
      error: (f, m) => void logged.push(`${m}: ${f.key}`),
    };
    await using rig = await startRig({ informer: { logger } });
    rig.informer.addEventHandler({
      onAdd(obj) {
        if (obj.metadata?.name === "boom") throw new Error("handler bug");
      },
      async onUpdate() {
        throw new Error("async handler bug");
      },
    });
    await rig.start();
    await rig.writer.create(cm("boom"));
    await rig.writer.create(cm("fine"));
    await rig.writer.update({ ...(await rig.writer.get("fine")), data: { v: "2" } });
    await rig.converged();
    await until(() => logged.length === 2);
    assert.deepEqual(logged, [
      "an event handler threw: default/boom",
      "an event handler threw: default/fine",
    ]);
  });

  it("a handler added after sync gets the whole cache as initial adds before new events", async () => {
    await using rig = await startRig();
    for (const n of ["a", "b"]) await rig.writer.create(cm(n));
    await rig.start();
    const log: string[] = [];
    const reg = rig.informer.addEventHandler({
      onAdd: (o, initial) => void log.push(`${o.metadata?.name}${initial ? " initial" : ""}`),
    });
    await rig.writer.create(cm("c"));
    await reg.waitForSync();
    await until(() => log.length === 3);
    assert.deepEqual(log, ["a initial", "b initial", "c"]);
  });

  it("deleting the watched namespace delivers each delete once, and nothing after (client-node #570)", async () => {
    await using server = await startTestServer({ compactionIntervalMs: 0 });
    await using client = createClient({ url: server.url });
    await client.resource(namespaces).create({ metadata: { name: "team" } });
    const writer = client.resource(configMaps, { namespace: "team" });
    for (const n of ["x", "y"]) await writer.create({ metadata: { name: n } });
    const clock = new FakeClock();
    await using watching = createClient({ url: server.url, clock, retry: { maxRetries: 0 } });
    const failures: ReflectorFailure[] = [];
    const informer = new SharedInformer<ConfigMap>({
      listerWatcher: listerWatcherFor(watching.resource(configMaps, { namespace: "team" })),
      clock,
      logger: silent,
      onWatchError: (f) => failures.push(f),
      useWatchList: await servesStreamingLists(server),
    });
    const log: string[] = [];
    informer.addEventHandler({
      onAdd: (o) => void log.push(`add ${o.metadata?.name}`),
      onUpdate: (_o, n) => void log.push(`update ${n.metadata?.name}`),
      onDelete: (o) => void log.push(`delete ${deletionHandlingKey(o)}`),
    });
    const running = informer.run();
    try {
      await informer.waitForSync();
      await client.resource(namespaces).delete("team");
      await until(() => log.length === 4, "the deletes");
      await waitFor(client.resource(namespaces), "team", (ns) => ns === undefined);
      // Five minutes on the informer's clock: the server (on the real clock) sends no bookmark
      // in them, so the idle watch is replaced every 90 s; each new watch brings nothing.
      for (let i = 0; i < 10; i++) {
        await clock.advanceAsync(30_000);
        for (let j = 0; j < 20; j++) await new Promise((r) => setImmediate(r));
      }
      assert.deepEqual(log, ["add x", "add y", "delete team/x", "delete team/y"]);
      assert.equal(informer.store.size, 0);
      const seen = failures.map((f) => `${f.recovery} ${f.error instanceof Error && f.error.name}`);
      assert.ok(seen.length >= 2, `idle watches replaced: ${seen.length}`);
      assert.ok(
        seen.every((f) => f === "rewatch WatchIdleError"),
        seen.join("; "),
      );
    } finally {
      await informer.stop();
      await running;
    }
  });

  it("a label-selected informer sees objects enter and leave its selection", async () => {
    await using server = await startTestServer({ compactionIntervalMs: 0 });
    await using client = createClient({ url: server.url });
    const writer = client.resource(configMaps, { namespace: "default" });
    await using factory = new InformerFactory({ client, logger: silent });
    const web = factory.informer(configMaps, { labelSelector: "app=web" });
    const log: string[] = [];
    web.addEventHandler({
      onAdd: (o) => void log.push(`add ${o.metadata?.name}`),
      onDelete: (o) => void log.push(`delete ${objectKey(o as ConfigMap)}`),
    });
    factory.start();
    await factory.waitForCacheSync();
    await writer.create({ metadata: { name: "x", labels: { app: "web" } } });
    await writer.create({ metadata: { name: "y", labels: { app: "db" } } });
    await writer.patch("x", "merge", { metadata: { labels: { app: "api" } } });
    await until(() => log.length === 2);
    assert.deepEqual(log, ["add x", "delete default/x"]);
    assert.equal(web.store.size, 0);
  });

  it("the factory's informers hold one watch each, however many handlers, and stop when start's signal aborts", async () => {
    await using server = await startTestServer({ compactionIntervalMs: 0, controllers: false });
    // The factory's client alone goes through the proxy, which counts its watches.
    await using proxy = await startFaultProxy({ target: server.url });
    await using client = createClient({ url: proxy.url });
    await client.resource(configMaps, { namespace: "default" }).create(cm("a"));
    await using factory = new InformerFactory({ client, logger: silent });
    const cms = factory.informer(configMaps);
    const seen: string[] = [];
    // The server may hold ConfigMaps of its own (kube-apiserver's in kube-system): only "a" counts.
    for (let i = 0; i < 5; i++)
      cms.addEventHandler({
        onAdd: (o) => void (o.metadata?.name === "a" && seen.push(`${i} ${o.metadata?.namespace}`)),
      });
    factory.informer(namespaces);
    const ac = new AbortController();
    factory.start(ac.signal);
    await factory.waitForCacheSync(ac.signal);
    await until(() => seen.length === 5, "every handler's add");
    assert.deepEqual(
      seen.sort(),
      [0, 1, 2, 3, 4].map((i) => `${i} default`),
    );
    // After a list (a server without streaming lists), the watch is a request of its own.
    await until(() => proxy.openWatches === 2, `one watch per informer: ${proxy.openWatches}`);
    ac.abort();
    await until(() => proxy.openWatches === 0, "the watches to close");
    assert.throws(() => cms.addEventHandler({}), /stopped/);
  });

  it("the factory shares one informer per resource, namespace and selectors, and listers read it", async () => {
    await using server = await startTestServer({ compactionIntervalMs: 0 });
    await using client = createClient({ url: server.url });
    const writer = client.resource(configMaps, { namespace: "default" });
    await writer.create({ metadata: { name: "a", labels: { tier: "1" } } });
    await writer.create({ metadata: { name: "b", labels: { tier: "2" } } });
    await using factory = new InformerFactory({ client, logger: silent });
    const one = factory.informer(configMaps);
    assert.equal(factory.informer(configMaps), one);
    assert.equal(factory.informer(configMaps, { labelSelector: "" }), one);
    const inDefault = factory.informer(configMaps, { namespace: "default" });
    assert.notEqual(inDefault, one);
    assert.equal(
      factory.informer(configMaps, { labelSelector: "b=2,a=1" }),
      factory.informer(configMaps, { labelSelector: "a=1,b=2" }),
    );
    const byTier = factory.informer(configMaps, {
      indexers: { tier: (o) => [o.metadata?.labels?.tier ?? ""] },
    });
    assert.equal(byTier, one);
    factory.start();
    const synced = await factory.waitForCacheSync();
    assert.equal(synced.length, 3);
    const lister = factory.lister(configMaps);
    assert.equal(lister.get("default", "a").metadata?.labels?.tier, "1");
    assert.deepEqual(
      lister
        .namespace("default")
        .list("tier=2")
        .map((o) => o.metadata?.name),
      ["b"],
    );
    assert.throws(() => lister.get("default", "nope"), isNotFound);
    assert.deepEqual(
      one.store.byIndex("tier", "2").map((o) => o.metadata?.name),
      ["b"],
    );
    factory.informer(configMaps, { namespace: "kube-system" });
    factory.start();
    assert.equal((await factory.waitForCacheSync()).length, 4, "start runs informers added later");
    await factory.shutdown();
    assert.throws(() => factory.informer(configMaps), /shut down/);
  });
});

const silent: Logger = { error() {}, warn() {}, info() {}, debug() {} };
