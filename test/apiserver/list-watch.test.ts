import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "kontroller/testing";
import { call, configMap, watch } from "./helpers.ts";

const cms = "/api/v1/namespaces/default/configmaps";

describe("API server over HTTP: lists", () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ controllers: false });
    for (const n of ["e", "a", "d", "c", "b"])
      await call(s.url, "POST", cms, configMap(n, {}, { tier: n < "c" ? "front" : "back" }));
  });
  after(() => s.close());

  it("lists in name order with the list kind and the current resourceVersion", async () => {
    const r = await call(s.url, "GET", cms);
    assert.equal(r.body.kind, "ConfigMapList");
    assert.equal(r.body.apiVersion, "v1");
    assert.deepEqual(
      r.body.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      ["a", "b", "c", "d", "e"],
    );
    // As kube's typed lists: apiVersion and kind on the list, not on its items.
    assert.equal(r.body.items[0].kind, undefined);
    assert.equal(r.body.items[0].apiVersion, undefined);
    const max = Math.max(
      ...r.body.items.map((i: { metadata: { resourceVersion: string } }) =>
        Number(i.metadata.resourceVersion),
      ),
    );
    assert.ok(Number(r.body.metadata.resourceVersion) >= max);
    const empty = await call(s.url, "GET", "/api/v1/namespaces/kube-public/configmaps");
    assert.deepEqual(empty.body.items, []);
  });

  it("filters by label and field selectors, also across namespaces", async () => {
    const l = await call(s.url, "GET", `${cms}?labelSelector=tier%3Dfront`);
    assert.deepEqual(
      l.body.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      ["a", "b"],
    );
    const f = await call(
      s.url,
      "GET",
      `/api/v1/configmaps?fieldSelector=metadata.name%3Dc,metadata.namespace%3Ddefault`,
    );
    assert.deepEqual(
      f.body.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      ["c"],
    );
    const ns = await call(s.url, "GET", "/api/v1/namespaces?fieldSelector=status.phase%3DActive");
    assert.equal(ns.body.items.length, 4);
  });

  it("pages with limit/continue over a consistent snapshot, with remainingItemCount", async () => {
    const p1 = await call(s.url, "GET", `${cms}?limit=2`);
    assert.equal(p1.body.items.length, 2);
    assert.equal(p1.body.metadata.remainingItemCount, 3);
    assert.ok(p1.body.metadata.continue);
    await call(s.url, "POST", cms, configMap("bb"));
    const p2 = await call(s.url, "GET", `${cms}?limit=2&continue=${p1.body.metadata.continue}`);
    assert.deepEqual(
      p2.body.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      ["c", "d"],
      "bb was created after the snapshot",
    );
    assert.equal(p2.body.metadata.resourceVersion, p1.body.metadata.resourceVersion);
    const p3 = await call(s.url, "GET", `${cms}?limit=2&continue=${p2.body.metadata.continue}`);
    assert.deepEqual(
      p3.body.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      ["e"],
    );
    assert.equal(p3.body.metadata.continue, undefined);
    await call(s.url, "DELETE", `${cms}/bb`);
    const bad = await call(s.url, "GET", `${cms}?limit=2&continue=garbage`);
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /invalid continue token/);
    const withRv = await call(
      s.url,
      "GET",
      `${cms}?limit=2&resourceVersion=3&continue=${p1.body.metadata.continue}`,
    );
    assert.equal(withRv.status, 400);
  });

  it("answers 410 Expired with a fresh token once the snapshot is compacted", async () => {
    const p1 = await call(s.url, "GET", `${cms}?limit=2`);
    await call(s.url, "POST", cms, configMap("later"));
    const storage = s.server.registry.storage;
    await storage.compact(await storage.currentRevision());
    const p2 = await call(s.url, "GET", `${cms}?limit=2&continue=${p1.body.metadata.continue}`);
    assert.equal(p2.status, 410);
    assert.equal(p2.body.reason, "Expired");
    assert.match(p2.body.message, /The provided continue parameter is too old/);
    const fresh = await call(s.url, "GET", `${cms}?limit=10&continue=${p2.body.metadata.continue}`);
    assert.equal(fresh.status, 200);
    assert.deepEqual(
      fresh.body.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      ["c", "d", "e", "later"],
    );
    await call(s.url, "DELETE", `${cms}/later`);
  });

  it("serves resourceVersion 0, exact and not-older-than reads", async () => {
    const now = Number((await call(s.url, "GET", cms)).body.metadata.resourceVersion);
    assert.equal((await call(s.url, "GET", `${cms}?resourceVersion=0`)).status, 200);
    const nt = await call(
      s.url,
      "GET",
      `${cms}?resourceVersion=${now}&resourceVersionMatch=NotOlderThan`,
    );
    assert.equal(nt.status, 200);
    const exact = await call(
      s.url,
      "GET",
      `${cms}?resourceVersion=${now}&resourceVersionMatch=Exact`,
    );
    assert.equal(exact.status, 200);
    assert.equal(exact.body.metadata.resourceVersion, String(now));
    const old = await call(s.url, "GET", `${cms}?resourceVersion=1&resourceVersionMatch=Exact`);
    assert.equal(old.status, 410);
  });

  it("returns Tables with printer columns and partial object metadata", async () => {
    const t = await call(s.url, "GET", cms, undefined, {
      accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
    });
    assert.equal(t.body.kind, "Table");
    assert.deepEqual(
      t.body.columnDefinitions.map((c: { name: string }) => c.name),
      ["Name", "Data", "Age"],
    );
    assert.deepEqual(t.body.rows[0].cells.slice(0, 2), ["a", 1]);
    assert.equal(t.body.rows[0].object.kind, "PartialObjectMetadata");
    const m = await call(s.url, "GET", cms, undefined, {
      accept: "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io",
    });
    assert.equal(m.body.kind, "PartialObjectMetadataList");
    assert.equal(m.body.items[0].metadata.name, "a");
    const bad = await call(s.url, "GET", `${cms}?includeObject=Everything`, undefined, {
      accept: "application/json;as=Table;v=v1;g=meta.k8s.io",
    });
    assert.equal(bad.status, 400);
  });
});

describe("API server over HTTP: watches", () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ controllers: false });
  });
  after(() => s.close());

  it("streams ADDED/MODIFIED/DELETED after a resourceVersion, one JSON object per line", async () => {
    const rv = (await call(s.url, "GET", cms)).body.metadata.resourceVersion;
    const w = await watch(s.url, `${cms}?watch=1&resourceVersion=${rv}`);
    assert.equal(w.status, 200);
    const c = (await call(s.url, "POST", cms, configMap("w1"))).body;
    await call(s.url, "PUT", `${cms}/w1`, { ...c, data: { k: "2" } });
    await call(s.url, "DELETE", `${cms}/w1`);
    const types = [];
    for (let i = 0; i < 3; i++) types.push((await w.next()).type);
    assert.deepEqual(types, ["ADDED", "MODIFIED", "DELETED"]);
    w.close();
  });

  it("turns selector transitions into ADDED and DELETED", async () => {
    const rv = (await call(s.url, "GET", cms)).body.metadata.resourceVersion;
    const w = await watch(s.url, `${cms}?watch=true&labelSelector=app%3Dweb&resourceVersion=${rv}`);
    const c = (await call(s.url, "POST", cms, configMap("sel", {}, { app: "db" }))).body;
    const into = (
      await call(s.url, "PUT", `${cms}/sel`, {
        ...c,
        metadata: { ...c.metadata, labels: { app: "web" } },
      })
    ).body;
    await call(s.url, "PUT", `${cms}/sel`, {
      ...into,
      metadata: { ...into.metadata, labels: { app: "db" } },
    });
    const a = await w.next();
    const d = await w.next();
    assert.equal(a.type, "ADDED");
    assert.equal(d.type, "DELETED");
    assert.equal(d.object.metadata.labels.app, "web", "DELETED carries the last matching state");
    w.close();
  });

  it("sends a 410 ERROR event for a resourceVersion older than the history", async () => {
    await using t = await startTestServer({
      watchCache: { historyMinCapacity: 2, historyMaxCapacity: 2 },
    });
    const first = (await call(t.url, "POST", cms, configMap("x0"))).body.metadata.resourceVersion;
    for (let i = 1; i < 5; i++) await call(t.url, "POST", cms, configMap(`x${i}`));
    const w = await watch(t.url, `${cms}?watch=1&resourceVersion=${Number(first) - 1}`);
    assert.equal(w.status, 200);
    const e = await w.next();
    assert.equal(e.type, "ERROR");
    assert.equal(e.object.code, 410);
    assert.equal(e.object.reason, "Expired");
    await w.ended();
  });

  it("streams the initial state and the initial-events-end bookmark for sendInitialEvents", async () => {
    await call(s.url, "POST", cms, configMap("init"));
    const w = await watch(
      s.url,
      `${cms}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
    );
    const events = [];
    for (;;) {
      const e = await w.next();
      events.push(e);
      if (e.type === "BOOKMARK") break;
    }
    assert.ok(events.slice(0, -1).every((e) => e.type === "ADDED"));
    assert.ok(events.some((e) => e.object.metadata.name === "init"));
    const bm = events[events.length - 1];
    assert.equal(bm.object.kind, "ConfigMap");
    assert.equal(bm.object.metadata.annotations["k8s.io/initial-events-end"], "true");
    w.close();
    const bad = await call(s.url, "GET", `${cms}?watch=1&sendInitialEvents=true`);
    assert.equal(bad.status, 422);
  });

  it("ends the stream at timeoutSeconds and watches a single object by name", async () => {
    const w = await watch(
      s.url,
      `${cms}?watch=1&timeoutSeconds=1&resourceVersion=0&fieldSelector=metadata.name%3Dnothing`,
    );
    await w.ended();
    const byName = await watch(s.url, `${cms}/init?watch=1`);
    assert.equal((await byName.next()).object.metadata.name, "init");
    byName.close();
  });

  it("serves Table watch events with column definitions in the first only", async () => {
    const rv = (await call(s.url, "GET", cms)).body.metadata.resourceVersion;
    const w = await watch(s.url, `${cms}?watch=1&resourceVersion=${rv}`, {
      accept: "application/json;as=Table;v=v1;g=meta.k8s.io",
    });
    await call(s.url, "POST", cms, configMap("t1"));
    await call(s.url, "POST", cms, configMap("t2"));
    const a = await w.next();
    const b = await w.next();
    assert.equal(a.object.kind, "Table");
    assert.ok(a.object.columnDefinitions.length > 0);
    assert.equal(b.object.columnDefinitions, null);
    assert.equal(b.object.rows[0].cells[0], "t2");
    w.close();
  });

  it("closes every watch when told to (fault injection) and lets clients resume", async () => {
    const rv = (await call(s.url, "GET", cms)).body.metadata.resourceVersion;
    const w = await watch(s.url, `${cms}?watch=1&resourceVersion=${rv}`);
    await call(s.url, "POST", cms, configMap("cut1"));
    const seen = (await w.next()).object.metadata.resourceVersion;
    s.server.cutWatches();
    await w.ended();
    await call(s.url, "POST", cms, configMap("cut2"));
    const again = await watch(s.url, `${cms}?watch=1&resourceVersion=${seen}`);
    assert.equal((await again.next()).object.metadata.name, "cut2");
    again.close();
  });
});
