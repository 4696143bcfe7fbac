/**
 * List and watch semantics over HTTP beyond list-watch.test.ts: start points of watches
 * (future, "now" without initial events, legacy without the end bookmark), metadata-only watches,
 * paging metadata with selectors, and freshness waits that give up.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { FakeClock, startTestServer, type TestServer } from "kontroller/testing";
import { call, configMap, type Loose, watch } from "./helpers.ts";

const cms = "/api/v1/namespaces/default/configmaps";
const names = (items: Loose[]) => items.map((i) => i.metadata.name);

describe("API server over HTTP: watch start points and outputs", () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ controllers: false });
    await call(s.url, "POST", cms, configMap("existing", {}, { app: "a" }));
  });
  after(() => s.close());

  const rvNow = async () => Number((await call(s.url, "GET", cms)).body.metadata.resourceVersion);

  it("waits at a future resourceVersion and sends only what comes after it", async () => {
    const now = await rvNow();
    const w = await watch(s.url, `${cms}?watch=1&resourceVersion=${now + 2}`);
    for (const n of ["f1", "f2", "f3"]) await call(s.url, "POST", cms, configMap(n));
    const e = await w.next();
    assert.deepEqual([e.type, e.object.metadata.name], ["ADDED", "f3"]);
    assert.equal(e.object.metadata.resourceVersion, String(now + 3));
    w.close();
  });

  it("starts at now with no initial events for sendInitialEvents=false", async () => {
    const w = await watch(
      s.url,
      `${cms}?watch=1&sendInitialEvents=false&resourceVersionMatch=NotOlderThan`,
    );
    await call(s.url, "POST", cms, configMap("after-start"));
    const e = await w.next();
    assert.deepEqual([e.type, e.object.metadata.name], ["ADDED", "after-start"]);
    w.close();
  });

  it("sends a legacy watch's initial events without the initial-events-end bookmark (only a streaming list has one), bookmarks allowed or not", async () => {
    const w = await watch(s.url, `${cms}?watch=1&allowWatchBookmarks=true&labelSelector=app%3Da`);
    const first = await w.next();
    assert.deepEqual([first.type, first.object.metadata.name], ["ADDED", "existing"]);
    await call(s.url, "POST", cms, configMap("live", {}, { app: "a" }));
    const next = await w.next();
    assert.deepEqual([next.type, next.object.metadata.name], ["ADDED", "live"]);
    w.close();
    const streaming = await watch(
      s.url,
      `${cms}?watch=1&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&labelSelector=app%3Da`,
    );
    const items = [await streaming.next(), await streaming.next()];
    assert.deepEqual(names(items.map((e) => e.object)).sort(), ["existing", "live"]);
    const end = await streaming.next();
    assert.equal(end.type, "BOOKMARK");
    assert.equal(end.object.metadata.annotations["k8s.io/initial-events-end"], "true");
    streaming.close();
  });

  it("sends PartialObjectMetadata events to a metadata-only watch", async () => {
    const now = await rvNow();
    const w = await watch(s.url, `${cms}?watch=1&resourceVersion=${now}`, {
      accept: "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1",
    });
    await call(s.url, "POST", cms, configMap("meta-only", { data: { secret: "x" } }, { l: "v" }));
    const e = await w.next();
    assert.equal(e.type, "ADDED");
    assert.deepEqual(Object.keys(e.object).sort(), ["apiVersion", "kind", "metadata"]);
    assert.equal(e.object.kind, "PartialObjectMetadata");
    assert.equal(e.object.apiVersion, "meta.k8s.io/v1");
    assert.equal(e.object.metadata.labels.l, "v");
    w.close();
  });

  it("names the history's oldest resourceVersion in the 410 ERROR event", async () => {
    const now = await rvNow();
    s.server.dropWatchHistory();
    await call(s.url, "POST", cms, configMap("moved-on"));
    const w = await watch(s.url, `${cms}?watch=1&resourceVersion=${now - 1}`);
    const e = await w.next();
    assert.equal(e.type, "ERROR");
    assert.deepEqual(
      { kind: e.object.kind, status: e.object.status, code: e.object.code },
      { kind: "Status", status: "Failure", code: 410 },
    );
    assert.equal(e.object.message, `too old resource version: ${now - 1} (${now})`);
    await w.ended();
  });

  it("refuses a field selector that conflicts with the name of a single-object watch", async () => {
    const r = await call(
      s.url,
      "GET",
      `${cms}/existing?watch=1&fieldSelector=metadata.name%3Dother`,
    );
    assert.equal(r.status, 400);
    assert.equal(r.body.reason, "BadRequest");
  });
});

describe("API server over HTTP: list paging with selectors", () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ controllers: false });
    for (const n of ["a", "b", "c", "d"])
      await call(s.url, "POST", cms, configMap(n, {}, { even: String(n === "b" || n === "d") }));
  });
  after(() => s.close());

  it("pages selected items, with no remainingItemCount (it would count the unselected)", async () => {
    const p1 = await call(s.url, "GET", `${cms}?limit=1&labelSelector=even%3Dtrue`);
    assert.deepEqual(names(p1.body.items), ["b"]);
    assert.ok(p1.body.metadata.continue);
    assert.equal(p1.body.metadata.remainingItemCount, undefined);
    const p2 = await call(
      s.url,
      "GET",
      `${cms}?limit=1&labelSelector=even%3Dtrue&continue=${p1.body.metadata.continue}`,
    );
    assert.deepEqual(names(p2.body.items), ["d"]);
    const notIn = await call(s.url, "GET", `${cms}?labelSelector=even%20notin%20(true),!missing`);
    assert.deepEqual(names(notIn.body.items), ["a", "c"]);
    const ne = await call(s.url, "GET", `${cms}?labelSelector=other!%3Dx`);
    assert.deepEqual(
      names(ne.body.items),
      ["a", "b", "c", "d"],
      "!= matches objects without the key",
    );
  });
});

describe("API server over HTTP: watch length on a fake clock", () => {
  it("ends a watch without timeoutSeconds between 1 and 2 times the minimum request timeout", async () => {
    const clock = new FakeClock();
    await using s = await startTestServer({
      clock,
      controllers: false,
      minRequestTimeoutSeconds: 100,
    });
    const watchers = () => s.server.stats()["/registry/configmaps/"]!.watchers;
    const w = await watch(s.url, `${cms}?watch=1&resourceVersion=0`);
    assert.equal(w.status, 200);
    await clock.advanceAsync(99_999);
    assert.equal(watchers(), 1, "still open before the minimum");
    await clock.advanceAsync(100_001);
    await w.ended();
    assert.equal(watchers(), 0);
  });
});

describe("API server over HTTP: freshness on a fake clock", () => {
  it("waits for a resourceVersion the cache has not reached, then answers 504 with Retry-After", async () => {
    const clock = new FakeClock();
    await using s = await startTestServer({ clock, controllers: false });
    const now = Number((await call(s.url, "GET", cms)).body.metadata.resourceVersion);
    const timers = clock.pendingTimers;
    const pending = call(
      s.url,
      "GET",
      `${cms}?resourceVersion=${now + 100}&resourceVersionMatch=NotOlderThan`,
    );
    const get = call(s.url, "GET", `${cms}/nothing?resourceVersion=${now + 100}`);
    // Each request is waiting once its freshness timer is pending on the clock.
    while (clock.pendingTimers < timers + 2) await new Promise((r) => setImmediate(r));
    await clock.advanceAsync(3000);
    for (const r of [await pending, await get]) {
      assert.equal(r.status, 504);
      assert.equal(r.body.reason, "Timeout");
      assert.equal(r.body.message, `Too large resource version: ${now + 100}, current: ${now}`);
      assert.equal(r.body.details.causes[0].reason, "ResourceVersionTooLarge");
      assert.equal(r.headers.get("retry-after"), "1");
    }
  });
});
