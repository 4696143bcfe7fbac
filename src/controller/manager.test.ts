import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type Logger, silentLogger } from "../cache/index.ts";
import { createClient, type ResourceClient } from "../client/index.ts";
import { InvalidOptionError, type KubeObject, TerminalError } from "../core/index.ts";
import { PrometheusMetrics } from "../metrics/index.ts";
import { configMaps, eventsV1, leases } from "../resources/index.ts";
import { FakeClock, startTestServer } from "../testing/index.ts";
import { controller } from "./builder.ts";
import { LeadershipLostError, Manager } from "./manager.ts";

/** Resolves with the first object of `resource` that `test` accepts: lists, then watches. */
async function firstMatching<T extends KubeObject>(
  resource: ResourceClient<T>,
  test: (obj: T) => boolean,
): Promise<T> {
  const list = await resource.list();
  const found = list.items.find(test);
  if (found !== undefined) return found;
  const stop = new AbortController();
  try {
    for await (const e of resource.watch({
      resourceVersion: list.resourceVersion,
      signal: stop.signal,
    })) {
      if (e.type !== "BOOKMARK" && e.type !== "DELETED" && test(e.object)) return e.object;
    }
  } finally {
    stop.abort();
  }
  throw new Error("the watch ended before a matching object appeared");
}

/** A logger that resolves `synced` when the manager logs that its caches synced. */
function syncLogger(): Logger & { synced: Promise<void> } {
  const synced = signalled();
  return {
    ...silentLogger,
    info: (_fields, message) => {
      if (message === "caches synced") synced.resolve();
    },
    synced: synced.promise,
  };
}

/** A promise with its resolver. */
function signalled<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe("Manager", () => {
  it("runs controllers after the caches sync, serves metrics and probes, and stops cleanly", async () => {
    await using server = await startTestServer();
    const manager = new Manager({
      clientOptions: { url: server.url },
      logger: silentLogger,
      metrics: new PrometheusMetrics(),
      healthPort: 0,
      healthHost: "127.0.0.1",
    });
    const seen = signalled<string>();
    manager.add(
      controller({
        name: "cms",
        for: configMaps,
        // Only "default": a real kube-apiserver keeps ConfigMaps of its own in kube-system.
        namespace: "default",
        reconcile: ({ name }) => {
          seen.resolve(name);
        },
      }),
    );
    assert.throws(
      () => manager.add(controller({ name: "cms", for: configMaps, reconcile: () => {} })),
      InvalidOptionError,
    );
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    await using client = createClient({ url: server.url });
    await client
      .resource(configMaps, { namespace: "default" })
      .create({ metadata: { name: "hello" } });
    assert.equal(await seen.promise, "hello");
    assert.equal(manager.ready, true);
    assert.equal(manager.leading, true);
    const metrics = await (await fetch(`${manager.healthUrl}/metrics`)).text();
    assert.match(
      metrics,
      /controller_runtime_reconcile_total\{controller="cms",result="success"\} 1/,
    );
    assert.match(metrics, /workqueue_adds_total\{name="cms"\}/);
    assert.match(metrics, /informer_lists_total|informer_watches_total/);
    assert.equal((await fetch(`${manager.healthUrl}/readyz`)).status, 200);
    assert.equal((await fetch(`${manager.healthUrl}/healthz`)).status, 200);
    stop.abort();
    await running;
    assert.equal(manager.leading, false);
    await assert.rejects(fetch(`${manager.healthUrl}/healthz`), "the endpoint is closed");
    assert.throws(
      () => manager.add(controller({ name: "late", for: configMaps, reconcile: () => {} })),
      /before start/,
    );
  });

  it("with leader election, runs controllers in one replica at a time and hands over on stop", async () => {
    await using server = await startTestServer();
    const reconciledBy: string[] = [];
    const make = (identity: string) => {
      const m = new Manager({
        clientOptions: { url: server.url },
        logger: silentLogger,
        leaderElection: {
          name: "test-lock",
          identity,
          leaseDurationMs: 1000,
          renewDeadlineMs: 500,
          retryPeriodMs: 100,
        },
      });
      const first = signalled();
      m.add(
        controller({
          name: "cms",
          for: configMaps,
          reconcile: () => {
            reconciledBy.push(identity);
            first.resolve();
          },
        }),
      );
      const stop = new AbortController();
      return { m, stop, first: first.promise, running: m.start(stop.signal) };
    };
    await using client = createClient({ url: server.url });
    await client.resource(configMaps, { namespace: "default" }).create({ metadata: { name: "x" } });
    const a = make("a");
    await a.first;
    const b = make("b");
    assert.equal(b.m.leading, false);
    a.stop.abort();
    await a.running;
    await b.first;
    assert.deepEqual([...new Set(reconciledBy)], ["a", "b"]);
    b.stop.abort();
    await b.running;
  });

  it("rejects from start when an informer stops on its own before the caches synced", async () => {
    // Nothing listens on port 1: the informer retries for ever, until it is stopped.
    const failed = signalled();
    const manager = new Manager({
      clientOptions: { url: "http://127.0.0.1:1" },
      logger: { ...silentLogger, warn: () => failed.resolve() },
    });
    manager.add(controller({ name: "cms", for: configMaps, reconcile: () => {} }));
    const running = manager.start(new AbortController().signal);
    await failed.promise; // the informer runs, and has failed to list
    await manager.factory.informer(configMaps).stop();
    await assert.rejects(running, /stopped before it synced/);
    assert.equal(manager.ready, false);
  });

  it("refuses bad options", () => {
    assert.throws(
      () => new Manager({ healthPort: -1, clientOptions: { url: "http://127.0.0.1:1" } }),
      /option healthPort/,
    );
    assert.throws(
      () =>
        new Manager({
          client: createClient({ url: "http://127.0.0.1:1" }),
          clientOptions: { url: "http://x" },
        }),
      /option clientOptions must not be given together with client/,
    );
  });

  it("rejects with LeadershipLostError when the lease is taken away", async () => {
    await using server = await startTestServer();
    const m = new Manager({
      clientOptions: { url: server.url },
      logger: silentLogger,
      leaderElection: {
        name: "lost-lock",
        identity: "me",
        leaseDurationMs: 1000,
        renewDeadlineMs: 500,
        retryPeriodMs: 100,
      },
    });
    const leading = signalled();
    // Reconciles run only while leading: the first one says it leads.
    m.add(controller({ name: "cms", for: configMaps, reconcile: () => leading.resolve() }));
    await using client = createClient({ url: server.url });
    await client.resource(configMaps, { namespace: "default" }).create({ metadata: { name: "x" } });
    const running = m.start(new AbortController().signal);
    const leases = client.resource("Lease", { namespace: "default" });
    await leading.promise;
    assert.equal(m.leading, true);
    const lease = await leases.get("lost-lock");
    await leases.update({
      ...lease,
      spec: { ...lease.spec, holderIdentity: "thief", leaseDurationSeconds: 60 },
    });
    await assert.rejects(running, LeadershipLostError);
  });

  it("gives in-flight reconciles the default 30 s grace period on stop, then aborts them", async () => {
    await using server = await startTestServer({ controllers: false });
    const clock = new FakeClock();
    const manager = new Manager({
      clientOptions: { url: server.url },
      logger: silentLogger,
      clock,
    });
    const inFlight = signalled<AbortSignal>();
    manager.add(
      controller({
        name: "slow",
        for: configMaps,
        // Finishes only when its signal aborts.
        reconcile: (_r, { signal }) =>
          new Promise<void>((resolve) => {
            inFlight.resolve(signal);
            signal.addEventListener("abort", () => resolve(), { once: true });
          }),
      }),
    );
    await using client = createClient({ url: server.url });
    await client.resource(configMaps, { namespace: "default" }).create({ metadata: { name: "x" } });
    const stop = new AbortController();
    let stopped = false;
    const running = manager.start(stop.signal).then(() => {
      stopped = true;
    });
    const signal = await inFlight.promise;
    stop.abort();
    await clock.advanceAsync(29_999);
    assert.equal(signal.aborted, false, "the reconcile still has time");
    assert.equal(stopped, false, "the manager waits for it");
    await clock.advanceAsync(1);
    assert.equal(signal.aborted, true, "30 s after the stop, its signal aborts");
    await running;
  });

  it("releases the Lease on stop, and is ready while standing by", async () => {
    await using server = await startTestServer({ controllers: false });
    await using client = createClient({ url: server.url });
    const make = (identity: string) => {
      const logger = syncLogger();
      const m = new Manager({
        clientOptions: { url: server.url },
        logger,
        healthPort: 0,
        healthHost: "127.0.0.1",
        leaderElection: {
          name: "ready-lock",
          identity,
          leaseDurationMs: 5000,
          renewDeadlineMs: 2000,
          retryPeriodMs: 100,
        },
      });
      const leading = signalled();
      m.add(controller({ name: "cms", for: configMaps, reconcile: () => leading.resolve() }));
      const stop = new AbortController();
      const running = m.start(stop.signal);
      return { m, stop, leading: leading.promise, synced: logger.synced, running };
    };
    await client.resource(configMaps, { namespace: "default" }).create({ metadata: { name: "x" } });
    const a = make("a");
    await a.leading;
    const b = make("b");
    const lease = client.resource(leases, { namespace: "default" });
    // b has synced and runs its elector, without the lease: standing by, and ready.
    await b.synced;
    assert.equal(b.m.ready, true);
    assert.equal(b.m.leading, false);
    assert.equal((await fetch(`${b.m.healthUrl}/readyz`)).status, 200);
    assert.equal((await lease.get("ready-lock")).spec?.holderIdentity, "a");
    b.stop.abort();
    await b.running;
    a.stop.abort();
    await a.running;
    const released = await lease.get("ready-lock");
    assert.equal(released.spec?.holderIdentity, "", "a handed the Lease back on stop");
    assert.equal(released.spec?.leaseDurationSeconds, 1);
  });

  it("records a TerminalError as a Warning event on the reconciled object", async () => {
    await using server = await startTestServer({ controllers: false });
    await using client = createClient({ url: server.url });
    const manager = new Manager({ client, logger: silentLogger });
    manager.add(
      controller({
        name: "picky",
        for: configMaps,
        reconcile: () => {
          throw new TerminalError("spec.data.mode must be fast or slow");
        },
      }),
    );
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    await client
      .resource(configMaps, { namespace: "default" })
      .create({ metadata: { name: "bad" } });
    const events = client.resource(eventsV1, { namespace: "default" });
    const event = await firstMatching(events, (e) => e.reason === "ReconcileFailed");
    assert.deepEqual(
      {
        type: event.type,
        kind: event.regarding?.kind,
        name: event.regarding?.name,
        note: event.note,
        by: event.reportingController,
      },
      {
        type: "Warning",
        kind: "ConfigMap",
        name: "bad",
        note: "spec.data.mode must be fast or slow",
        by: "kontroller",
      },
    );
    stop.abort();
    await running;
  });
});
