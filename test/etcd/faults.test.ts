/**
 * Losing etcd, and compaction, under the API server: etcd down at start, killed mid-write and
 * restarted with the same data while informers watch, and compacted past a server that was cut
 * off from it.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EtcdStorage, isStorageError, type StorageError } from "kontroller/apiserver";
import { isGone } from "kontroller/core";
import { startEtcd } from "kontroller/testing";
import { call, configMap, watch } from "../apiserver/helpers.ts";
import { cm, InformerProbe, startMember, stateOf } from "./rig.ts";

const cms = "/api/v1/namespaces/default/configmaps";

describe("etcd faults", () => {
  it("etcd down at start: calls fail Unavailable; ready() retries until etcd serves", {
    timeout: 60_000,
  }, async () => {
    await using etcd = await startEtcd();
    await etcd.kill();
    await using storage = new EtcdStorage({ endpoints: [etcd.endpoint], requestTimeoutMs: 2000 });
    await assert.rejects(storage.currentRevision(), (err: unknown) => {
      assert.ok(isStorageError(err, "Unavailable"), String(err));
      assert.match(err.message, new RegExp(`etcd at ${etcd.endpoint} is unavailable`));
      return true;
    });
    await assert.rejects(storage.create("/x", "1"), (err) => isStorageError(err, "Unavailable"));
    const retries: StorageError[] = [];
    const revision = await storage.ready({
      onRetry: (err) => {
        retries.push(err);
        if (retries.length === 1) void etcd.restart();
      },
    });
    assert.ok(revision >= 1);
    assert.ok(retries.length >= 1 && retries.every((e) => e.code === "Unavailable"));
    const kv = await storage.create("/x", "1");
    assert.equal(kv.modRevision, revision + 1);
  });

  it("writes while etcd is down get 503 ServiceUnavailable; informers that watch through the outage converge with nothing lost", {
    timeout: 60_000,
  }, async () => {
    await using etcd = await startEtcd();
    await using m = await startMember(etcd);
    for (const n of ["a", "b", "c", "d"]) await m.configMaps.create(cm(n));
    await using probe = new InformerProbe(m.url);
    await probe.start();
    await probe.converged(stateOf((await m.configMaps.list()).items));
    probe.log.length = 0;

    await etcd.kill();
    const refused = await call(m.url, "POST", cms, configMap("during"));
    assert.equal(refused.status, 503, JSON.stringify(refused.body));
    assert.equal(refused.body.kind, "Status");
    assert.equal(refused.body.reason, "ServiceUnavailable");
    assert.equal(refused.headers.get("retry-after"), "1");
    assert.match(refused.body.message, /etcd at .* is unavailable/);
    const update = await call(m.url, "PUT", `${cms}/a`, configMap("a", { data: { v: "x" } }));
    assert.equal(update.status, 503);
    assert.equal((await call(m.url, "GET", `${cms}/a`)).status, 503, "a read that needs etcd");
    assert.equal((await call(m.url, "GET", "/healthz")).status, 200, "the server itself lives");

    await etcd.restart();
    await m.storage.ready();
    await m.configMaps.update({ ...(await m.configMaps.get("a")), data: { v: "2" } });
    await m.configMaps.delete("b");
    await m.configMaps.create(cm("e"));
    await m.configMaps.delete("c");
    await m.configMaps.create(cm("c", { again: "yes" }));

    const want = stateOf((await m.configMaps.list()).items);
    await probe.converged(want);
    assert.deepEqual([...want.keys()].sort(), ["a", "c", "d", "e"]);
    assert.deepEqual(probe.log, [
      "update a",
      "delete default/b",
      "add e",
      "delete default/c",
      "add c",
    ]);
    assert.equal(probe.mirror.get("default/c")?.data?.again, "yes");
  });

  it("a hung etcd: calls fail Unavailable once requestTimeoutMs passes, and succeed once it runs again", {
    timeout: 60_000,
  }, async () => {
    await using etcd = await startEtcd();
    await using storage = new EtcdStorage({ endpoints: [etcd.endpoint], requestTimeoutMs: 300 });
    await storage.create("/before", "1");
    etcd.pause();
    try {
      await assert.rejects(storage.create("/during", "1"), (err: unknown) => {
        assert.ok(isStorageError(err, "Unavailable"), String(err));
        assert.match(err.message, /Deadline exceeded|DEADLINE_EXCEEDED|did not answer/);
        return true;
      });
    } finally {
      etcd.resume();
    }
    await storage.ready();
    const kv = await storage.create("/after", "1");
    assert.equal(kv.version, 1);
  });

  it("etcd killed while writes are in flight: each ends 201 or a 5xx Status, none hangs, and every 201 is kept", {
    timeout: 60_000,
  }, async () => {
    await using etcd = await startEtcd();
    await using m = await startMember(etcd);
    let killed: Promise<void> | undefined;
    let ok = 0;
    const replies = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const r = await call(m.url, "POST", cms, configMap(`w-${i}`));
        if (r.status === 201 && ++ok === 5) killed = etcd.kill();
        return { name: `w-${i}`, status: r.status, body: r.body };
      }),
    );
    await killed;
    const created = replies.filter((r) => r.status === 201);
    const failed = replies.filter((r) => r.status !== 201);
    assert.ok(created.length >= 5, `${created.length} created`);
    for (const f of failed) {
      assert.ok(f.status === 503 || f.status === 500, `${f.name}: ${f.status}`);
      assert.equal(f.body.kind, "Status");
    }
    await etcd.restart();
    await m.storage.ready();
    const after = new Map(
      (await m.configMaps.list()).items.map((o) => [o.metadata?.name, o.metadata?.resourceVersion]),
    );
    for (const c of created) {
      assert.equal(after.get(c.name), c.body.metadata.resourceVersion, `${c.name} was kept`);
    }
    // The server serves on: a write after the outage succeeds.
    assert.equal((await call(m.url, "POST", cms, configMap("after"))).status, 201);
  });

  it("compaction past a server cut off from etcd: its caches relist, its watchers get 410 and relist", {
    timeout: 60_000,
  }, async () => {
    await using etcd = await startEtcd();
    await using a = await startMember(etcd, { proxied: true });
    await using b = await startMember(etcd);
    for (const n of ["keep", "gone", "changed"]) await b.configMaps.create(cm(n));
    const start = await a.configMaps.list();
    await using probe = new InformerProbe(a.url);
    await probe.start();
    await probe.converged(stateOf(start.items));
    probe.log.length = 0;

    a.proxy!.cut();
    assert.equal((await call(a.url, "POST", cms, configMap("refused"))).status, 503);
    await b.configMaps.delete("gone");
    await b.configMaps.update({ ...(await b.configMaps.get("changed")), data: { v: "2" } });
    await b.configMaps.create(cm("new"));
    await b.storage.compact(await b.storage.currentRevision());
    a.proxy!.restore();

    await probe.until(() => probe.failures.some((f) => isGone(f.error)));
    const expired = probe.failures.find((f) => isGone(f.error))!;
    assert.equal(expired.recovery, "relist");
    const want = stateOf((await b.configMaps.list()).items);
    await probe.converged(want);
    assert.deepEqual([...want.keys()].sort(), ["changed", "keep", "new"]);
    assert.deepEqual(probe.log.sort(), [
      "add new",
      "delete default/gone (tombstone)",
      "update changed",
    ]);

    // A watch from before the compaction is too old for the relisted cache: 410 Expired.
    const old = await watch(a.url, `${cms}?watch=1&resourceVersion=${start.resourceVersion}`);
    const event = await old.next();
    old.close();
    assert.equal(event.type, "ERROR");
    assert.equal(event.object.code, 410);
    // Paging from etcd at a compacted revision is 410 too.
    const page = await call(
      a.url,
      "GET",
      `${cms}?limit=1&resourceVersion=${start.resourceVersion}&resourceVersionMatch=Exact`,
    );
    assert.equal(page.status, 410);
  });
});
