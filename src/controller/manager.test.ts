import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { silentLogger } from "../cache/index.ts";
import { createClient } from "../client/index.ts";
import { InvalidOptionError } from "../core/index.ts";
import { configMaps } from "../resources/index.ts";
import { startTestServer } from "../testing/index.ts";
import { controller } from "./builder.ts";
import { LeadershipLostError, Manager } from "./manager.ts";

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
      healthPort: 0,
      healthHost: "127.0.0.1",
    });
    const seen = signalled<string>();
    manager.add(
      controller({
        name: "cms",
        for: configMaps,
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
});
