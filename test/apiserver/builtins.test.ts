import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { FakeClock, startTestServer, type TestServer } from "kontroller/testing";
import { call, watch } from "./helpers.ts";

describe("API server over HTTP: built-in kinds", () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ controllers: false });
  });
  after(() => s.close());

  it("lets exactly one of two updates of a Lease with the same resourceVersion win", async () => {
    const path = "/apis/coordination.k8s.io/v1/namespaces/default/leases";
    const lease = (
      await call(s.url, "POST", path, {
        metadata: { name: "leader" },
        spec: {
          holderIdentity: "a",
          leaseDurationSeconds: 15,
          renewTime: "2026-01-01T00:00:00.123456Z",
        },
      })
    ).body;
    assert.equal(lease.spec.renewTime, "2026-01-01T00:00:00.123456Z", "MicroTime round-trips");
    const [x, y] = await Promise.all([
      call(s.url, "PUT", `${path}/leader`, {
        ...lease,
        spec: { ...lease.spec, holderIdentity: "b" },
      }),
      call(s.url, "PUT", `${path}/leader`, {
        ...lease,
        spec: { ...lease.spec, holderIdentity: "c" },
      }),
    ]);
    assert.deepEqual([x.status, y.status].sort(), [200, 409]);
    const bad = await call(s.url, "POST", path, {
      metadata: { name: "bad" },
      spec: { leaseDurationSeconds: 0 },
    });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.details.causes[0].field, "spec.leaseDurationSeconds");
  });

  it("serves core events as events.k8s.io/v1 events too, with field selectors", async () => {
    const core = "/api/v1/namespaces/default/events";
    const e = await call(s.url, "POST", core, {
      metadata: { name: "e1" },
      involvedObject: { kind: "Pod", name: "p", namespace: "default" },
      reason: "Started",
      message: "hello",
      type: "Normal",
    });
    assert.equal(e.status, 201);
    const v1 = await call(s.url, "GET", "/apis/events.k8s.io/v1/namespaces/default/events/e1");
    assert.equal(v1.body.apiVersion, "events.k8s.io/v1");
    assert.equal(v1.body.note, "hello");
    assert.equal(v1.body.regarding.name, "p");
    const sel = await call(
      s.url,
      "GET",
      `${core}?fieldSelector=involvedObject.name%3Dp,reason%3DStarted`,
    );
    assert.equal(sel.body.items.length, 1);
    const wrongNs = await call(s.url, "POST", core, {
      metadata: { name: "e2" },
      involvedObject: { kind: "Pod", name: "p", namespace: "other" },
    });
    assert.equal(wrongNs.status, 422);
    const viaV1 = await call(s.url, "POST", "/apis/events.k8s.io/v1/namespaces/default/events", {
      metadata: { name: "e3" },
      eventTime: "2026-01-01T00:00:00.000000Z",
      reportingController: "c",
      reportingInstance: "i",
      action: "Act",
      reason: "R",
      note: "n",
      type: "Normal",
      regarding: { kind: "Pod", name: "p" },
    });
    assert.equal(viaV1.status, 201);
    assert.equal(viaV1.body.note, "n");
    assert.equal((await call(s.url, "GET", `${core}/e3`)).body.message, "n");
  });

  it("validates events.k8s.io/v1 events strictly, core/v1 ones by the legacy rules only", async () => {
    const v1 = "/apis/events.k8s.io/v1/namespaces/default/events";
    const core = "/api/v1/namespaces/default/events";
    const good = {
      metadata: { name: "strict" },
      eventTime: "2026-01-01T00:00:00.000000Z",
      reportingController: "example.com/ctl",
      reportingInstance: "ctl-0",
      action: "Reconcile",
      reason: "Done",
      note: "all good",
      type: "Normal",
      regarding: { kind: "Pod", name: "p", namespace: "default" },
    };
    const { eventTime: _t, ...noTime } = good;
    const bad = await call(s.url, "POST", v1, {
      ...noTime,
      metadata: { name: "bad" },
      type: "Odd",
      deprecatedCount: 3,
      series: { count: 1 },
    });
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.body.details.causes.map((c: { field: string }) => c.field).sort(), [
      "count",
      "eventTime",
      "series.count",
      "series.lastObservedTime",
      "type",
    ]);
    assert.match(bad.body.message, /type: Invalid value: "": has invalid value: Odd/);
    const created = await call(s.url, "POST", v1, good);
    assert.equal(created.status, 201);
    const changed = await call(s.url, "PUT", `${v1}/strict`, { ...created.body, note: "other" });
    assert.equal(changed.status, 422);
    assert.equal(changed.body.details.causes[0].field, "message");
    assert.match(changed.body.details.causes[0].message, /field is immutable/);
    const series = await call(s.url, "PUT", `${v1}/strict`, {
      ...created.body,
      series: { count: 2, lastObservedTime: "2026-01-01T00:01:00.000000Z" },
    });
    assert.equal(series.status, 200, "a series may be added: the recorder's repeat count");
    // Through core/v1 the same event may change (legacy validation only) and take any type.
    const legacy = await call(
      s.url,
      "PATCH",
      `${core}/strict`,
      { message: "changed" },
      {
        "content-type": "application/strategic-merge-patch+json",
      },
    );
    assert.equal(legacy.status, 200);
    const custom = await call(s.url, "POST", core, {
      metadata: { name: "custom-type" },
      involvedObject: { kind: "Pod", name: "p", namespace: "default" },
      type: "Custom",
    });
    assert.equal(custom.status, 201);
    const clusterScoped = await call(s.url, "POST", "/api/v1/namespaces/kube-public/events", {
      metadata: { name: "node-event" },
      involvedObject: { kind: "Node", name: "n1" },
    });
    assert.equal(
      clusterScoped.status,
      422,
      "a cluster-scoped object's old-style event goes in default",
    );
    assert.equal(clusterScoped.body.details.causes[0].field, "involvedObject.namespace");
  });

  it("folds Secret stringData into base64 data and refuses data that is not base64", async () => {
    const path = "/api/v1/namespaces/default/secrets";
    const sec = await call(s.url, "POST", path, {
      metadata: { name: "s" },
      stringData: { user: "admin" },
    });
    assert.deepEqual(sec.body.data, { user: Buffer.from("admin").toString("base64") });
    assert.equal(sec.body.type, "Opaque");
    const bad = await call(s.url, "POST", path, {
      metadata: { name: "t" },
      data: { x: "not base64!" },
    });
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /base64/);
  });

  it("defaults Services and validates their ports", async () => {
    const path = "/api/v1/namespaces/default/services";
    const svc = await call(s.url, "POST", path, {
      metadata: { name: "web" },
      spec: { ports: [{ port: 80 }] },
    });
    assert.equal(svc.status, 201);
    assert.equal(svc.body.spec.type, "ClusterIP");
    assert.match(svc.body.spec.clusterIP, /^10\.0\.0\./);
    assert.deepEqual(svc.body.spec.ports, [{ port: 80, protocol: "TCP", targetPort: 80 }]);
    const bad = await call(s.url, "POST", path, {
      metadata: { name: "bad" },
      spec: { type: "Weird", ports: [{ port: 70000 }] },
    });
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.body.details.causes.map((c: { field: string }) => c.field).sort(), [
      "spec.ports[0].port",
      "spec.type",
    ]);
  });
});

describe("API server over HTTP: bookmarks on a fake clock", () => {
  it("sends a BOOKMARK every bookmark interval to watches that asked for them", async () => {
    const clock = new FakeClock();
    await using s = await startTestServer({
      clock,
      controllers: false,
      watchCache: { bookmarkIntervalMs: 60_000 },
    });
    const cms = "/api/v1/namespaces/default/configmaps";
    const rv = (await call(s.url, "GET", cms)).body.metadata.resourceVersion;
    const w = await watch(s.url, `${cms}?watch=1&allowWatchBookmarks=true&resourceVersion=${rv}`);
    const plain = await watch(s.url, `${cms}?watch=1&resourceVersion=${rv}&timeoutSeconds=90`);
    await clock.advanceAsync(60_000);
    const b = await w.next();
    assert.equal(b.type, "BOOKMARK");
    assert.equal(b.object.kind, "ConfigMap");
    assert.equal(b.object.metadata.resourceVersion, rv);
    await clock.advanceAsync(30_000);
    await plain.ended();
    w.close();
  });
});
