import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError, type KubeObject } from "../../core/index.ts";
import { configMaps } from "../../resources/index.ts";
import { FakeClock } from "../../testing/index.ts";
import { MemoryStorage } from "../storage/memory-storage.ts";
import { jsonEncoder } from "../watchcache/cache-event.ts";
import { WatchCache } from "../watchcache/watch-cache.ts";
import { decodeFromStorage } from "./codec.ts";
import { Store } from "./store.ts";
import type { StoreOptions } from "./store-options.ts";
import { attrsOf, type Strategy } from "./strategy.ts";

const PREFIX = "/registry/configmaps/";
const START = Date.UTC(2026, 0, 1, 12, 0, 0);

/** A Store of ConfigMaps over a fresh MemoryStorage, with a FakeClock. */
async function storeOf(options: Partial<StoreOptions> = {}) {
  const storage = new MemoryStorage();
  const clock = new FakeClock({ startMs: START });
  const strategy: Strategy = options.strategy ?? { trackGeneration: true };
  const cache = new WatchCache({
    storage,
    clock,
    prefix: PREFIX,
    kind: configMaps.kind,
    apiVersion: "v1",
    decode: decodeFromStorage,
    attrs: (o) => attrsOf(strategy, o),
  });
  await cache.start();
  const store = new Store({
    def: configMaps,
    storage,
    cache,
    prefix: PREFIX,
    strategy,
    clock,
    encoder: jsonEncoder,
    ...options,
  });
  return {
    store,
    storage,
    clock,
    async [Symbol.asyncDispose]() {
      await cache.close();
      await storage.close();
    },
  };
}

const cm = (name: string, data: Record<string, string> = {}, meta: object = {}): KubeObject =>
  ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, ...meta }, data }) as KubeObject;

async function rejectsWith(p: Promise<unknown>, code: number, reason?: string): Promise<void> {
  await assert.rejects(p, (err) => {
    assert.ok(err instanceof ApiError, String(err));
    assert.equal(err.code, code, err.message);
    if (reason !== undefined) assert.equal(err.reason, reason);
    return true;
  });
}

describe("Store over MemoryStorage", () => {
  it("creates with a uid, the clock's time, generation 1 and the storage revision", async () => {
    await using t = await storeOf();
    const created = await t.store.create("ns", cm("a", { k: "v" }));
    const meta = created.metadata!;
    assert.match(meta.uid ?? "", /^[0-9a-f-]{36}$/);
    assert.equal(meta.creationTimestamp, "2026-01-01T12:00:00Z");
    assert.equal(meta.generation, 1);
    assert.equal(meta.namespace, "ns");
    assert.equal(meta.resourceVersion, String(await t.storage.currentRevision()));
    assert.deepEqual(await t.store.get("ns", "a"), created);
    await rejectsWith(t.store.create("ns", cm("a")), 409, "AlreadyExists");
  });

  it("checks a dry-run create without storing it", async () => {
    await using t = await storeOf();
    const before = await t.storage.currentRevision();
    await t.store.create("ns", cm("a"), { dryRun: true });
    assert.equal(await t.storage.currentRevision(), before);
    await rejectsWith(t.store.get("ns", "a"), 404);
  });

  it("generates another name when a generated one is taken, and gives up with 409", async () => {
    let draws = 0;
    // The first suffix drawn is "bbbbb" twice, then "ccccc".
    const random = () => (draws++ < 10 ? 0 : 1 / 27);
    await using t = await storeOf({ random });
    const first = await t.store.create("ns", cm("", {}, { generateName: "web-" }));
    assert.equal(first.metadata?.name, "web-bbbbb");
    const second = await t.store.create("ns", cm("", {}, { generateName: "web-" }));
    assert.equal(second.metadata?.name, "web-ccccc");

    await using full = await storeOf({ random: () => 0 });
    await full.store.create("ns", cm("", {}, { generateName: "x-" }));
    await rejectsWith(full.store.create("ns", cm("", {}, { generateName: "x-" })), 409);
  });

  it("re-reads and re-applies the change after a concurrent write (compare-and-swap)", async () => {
    await using t = await storeOf();
    const created = await t.store.create("ns", cm("a", { n: "0" }));
    let attempts = 0;
    const seen: string[] = [];
    const updated = await t.store.guaranteedUpdate(
      "ns",
      "a",
      (current) => {
        attempts++;
        return {
          ...current,
          data: { ...(current as { data: object }).data, mine: "y" },
        } as KubeObject;
      },
      {
        transform: (stored) => {
          seen.push((stored as { data: { n: string } }).data.n);
          if (seen.length === 1) {
            // A concurrent writer changes the object after this attempt's read.
            void t.storage.update(
              t.store.key("ns", "a"),
              JSON.stringify({
                ...created,
                metadata: { ...created.metadata, resourceVersion: undefined },
                data: { n: "1" },
              }),
              Number(created.metadata?.resourceVersion),
            );
          }
        },
      },
    );
    assert.equal(attempts, 2);
    assert.deepEqual(seen, ["0", "1"]);
    assert.deepEqual((updated as { data: object }).data, { n: "1", mine: "y" });
  });

  it("refuses an update at a stale resourceVersion (409) and of a missing object (404)", async () => {
    await using t = await storeOf();
    const created = await t.store.create("ns", cm("a"));
    await t.store.update("ns", "a", { ...created, data: { x: "1" } } as KubeObject);
    await rejectsWith(t.store.update("ns", "a", created), 409, "Conflict");
    await rejectsWith(t.store.update("ns", "b", cm("b")), 404);
  });

  it("stores nothing for an update that changes nothing", async () => {
    await using t = await storeOf();
    const created = await t.store.create("ns", cm("a", { k: "v" }));
    const before = await t.storage.currentRevision();
    const same = await t.store.update("ns", "a", created);
    assert.equal(await t.storage.currentRevision(), before);
    assert.equal(same.metadata?.resourceVersion, created.metadata?.resourceVersion);
  });

  it("marks an object with finalizers for deletion, and removes it once they are gone", async () => {
    const deletions: number[] = [];
    await using t = await storeOf({ onDeletionWritten: (_name, rv) => deletions.push(rv) });
    await t.store.create("ns", cm("a", {}, { finalizers: ["example.com/keep"] }));
    t.clock.advance(5_000);
    const marked = await t.store.delete("ns", "a");
    assert.equal(marked.deleted, false);
    assert.equal(marked.object.metadata?.deletionTimestamp, "2026-01-01T12:00:05Z");
    assert.equal(marked.object.metadata?.deletionGracePeriodSeconds, 0);
    assert.equal(marked.object.metadata?.generation, 2);
    t.clock.advance(60_000);
    const again = await t.store.delete("ns", "a");
    assert.equal(again.object.metadata?.deletionTimestamp, "2026-01-01T12:00:05Z");
    await rejectsWith(t.store.create("ns", cm("a")), 409, "AlreadyExists");

    await t.store.guaranteedUpdate("ns", "a", (o) => ({
      ...o,
      metadata: { ...o.metadata, finalizers: [] },
    }));
    await rejectsWith(t.store.get("ns", "a"), 404);
    assert.equal(deletions.length, 1);
  });

  it("deletes an object without finalizers at once, with its preconditions checked", async () => {
    const deletions: string[] = [];
    await using t = await storeOf({ onDeletionWritten: (name) => deletions.push(name) });
    const created = await t.store.create("ns", cm("a"));
    await rejectsWith(t.store.delete("ns", "a", { preconditions: { uid: "other" } }), 409);
    const dry = await t.store.delete("ns", "a", {}, { dryRun: true });
    assert.equal(dry.deleted, true);
    await t.store.get("ns", "a");
    const gone = await t.store.delete("ns", "a", { preconditions: { uid: created.metadata?.uid } });
    assert.equal(gone.deleted, true);
    assert.deepEqual(deletions, ["a"]);
    await rejectsWith(t.store.get("ns", "a"), 404);
    await rejectsWith(t.store.delete("ns", "a"), 404);
  });

  it("adds the orphan finalizer for propagationPolicy=Orphan and keeps the object", async () => {
    await using t = await storeOf();
    await t.store.create("ns", cm("a"));
    const out = await t.store.delete("ns", "a", { propagationPolicy: "Orphan" });
    assert.equal(out.deleted, false);
    assert.deepEqual(out.object.metadata?.finalizers, ["orphan"]);
  });
});
