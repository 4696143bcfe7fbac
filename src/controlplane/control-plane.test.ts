import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { silentLogger } from "../cache/index.ts";
import { createClient } from "../client/index.ts";
import { InvalidOptionError } from "../core/index.ts";
import { configMaps, leases } from "../resources/index.ts";
import { startFaultProxy, startTestServer, waitFor } from "../testing/index.ts";
import { ControlPlane, startControlPlane } from "./control-plane.ts";

const quiet = { logger: silentLogger };

describe("ControlPlane", () => {
  it("checks its options, naming the bad one", () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ client: createClient({ url: "http://127.0.0.1:1" }), clientOptions: {} }, "clientOptions"],
      [{ garbageCollector: "yes" }, "garbageCollector"],
      [{ namespaceLifecycle: 1 }, "namespaceLifecycle"],
      [{ garbageCollectorWorkers: 0 }, "garbageCollectorWorkers"],
      [{ namespaceWorkers: 1.5 }, "namespaceWorkers"],
      [{ discoveryResyncMs: 10 }, "discoveryResyncMs"],
      [{ gracefulShutdownMs: -1 }, "gracefulShutdownMs"],
    ];
    for (const [options, name] of bad) {
      assert.throws(
        () => new ControlPlane({ clientOptions: { url: "http://127.0.0.1:1" }, ...options }),
        (e) => e instanceof InvalidOptionError && e.message.includes(name),
        name,
      );
    }
  });

  it("starts nothing in its constructor; stop is idempotent, before or after start", async () => {
    await using s = await startTestServer({ controllers: false });
    await using proxy = await startFaultProxy({ target: s.url });
    const cp = new ControlPlane({ clientOptions: { url: proxy.url }, ...quiet });
    assert.deepEqual(
      cp.manager.controllers.map((c) => c.name),
      [
        "pvc-protection",
        "pv-protection",
        "clusterrole-aggregation",
        "resource-discovery",
        "garbage-collector",
        "garbage-collector-orphan",
        "namespace",
      ],
    );
    assert.equal(proxy.requests.length, 0);
    await cp.stop();
    await cp.stop();
    assert.equal(proxy.requests.length, 0);
    await assert.rejects(cp.waitForReady(), /stopped before it was started/);
    assert.throws(() => cp.start(), /stopped before start/);

    const running = await startControlPlane({ clientOptions: { url: s.url }, ...quiet });
    assert.throws(() => running.start(), /start can be called once/);
    await running.stop();
    await running.stop();
  });

  it("runs only the controllers asked for, and is ready at once with none", async () => {
    await using s = await startTestServer({ controllers: false });
    await using gcOnly = await startControlPlane({
      clientOptions: { url: s.url },
      namespaceLifecycle: false,
      ...quiet,
    });
    assert.ok(!gcOnly.manager.controllers.some((c) => c.name === "namespace"));
    await using none = await startControlPlane({
      clientOptions: { url: s.url },
      garbageCollector: false,
      namespaceLifecycle: false,
      volumeProtection: false,
      clusterRoleAggregation: false,
      ...quiet,
    });
    assert.deepEqual(none.manager.controllers, []);
    assert.deepEqual(none.monitoredResources, []);
    await using client = createClient({ url: s.url });
    const cms = client.resource(configMaps, { namespace: "default" });
    const owner = await cms.create({ metadata: { name: "owner" } });
    const ref = { apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.metadata!.uid! };
    await cms.create({ metadata: { name: "child", ownerReferences: [ref] } });
    await cms.delete("owner");
    await waitFor(cms, "child", (c) => c === undefined);
  });

  it("gives up waiting when the signal aborts, and stops what it started", async () => {
    await using s = await startTestServer({ controllers: false });
    const ac = new AbortController();
    const reason = new Error("enough");
    ac.abort(reason);
    await assert.rejects(
      startControlPlane({ clientOptions: { url: s.url }, ...quiet }, ac.signal),
      reason,
    );
    const cp = new ControlPlane({ clientOptions: { url: s.url }, ...quiet });
    void cp.start();
    await assert.rejects(cp.waitForReady(ac.signal), reason);
    await cp.waitForReady();
    await cp.stop();
  });

  it("runs its controllers only while it leads, with leader election", async () => {
    await using s = await startTestServer({ controllers: false });
    await using cp = await startControlPlane({
      clientOptions: { url: s.url },
      leaderElection: { name: "kontroller-controller-manager", namespace: "kube-system" },
      ...quiet,
    });
    assert.equal(cp.manager.leading, true);
    await using client = createClient({ url: s.url });
    const lease = await client
      .resource(leases, { namespace: "kube-system" })
      .get("kontroller-controller-manager");
    assert.ok(lease.spec?.holderIdentity);
  });
});
