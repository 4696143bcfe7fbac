import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { FieldSelector, type KubeObject, LabelSelector } from "../../core/index.ts";
import { MemoryStorage } from "../storage/memory-storage.ts";
import { eventRevision, type StorageEvent } from "../storage/storage.ts";
import type { CacheWatcher } from "./cache-watcher.ts";
import { WatchCache } from "./watch-cache.ts";

const PREFIX = "/registry/things/";
const all = { label: LabelSelector.everything(), field: FieldSelector.everything() };

type Op =
  | { kind: "put"; key: number; value: number }
  | { kind: "delete"; key: number }
  | { kind: "watch"; back: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("put" as const),
      key: fc.integer({ min: 0, max: 4 }),
      value: fc.integer({ min: 0, max: 3 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("delete" as const),
      key: fc.integer({ min: 0, max: 4 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("watch" as const),
      back: fc.integer({ min: 0, max: 10 }),
    }),
  },
);

async function drain(w: CacheWatcher): Promise<{ type: string; rv: number; name: string }[]> {
  w.close("client");
  const out: { type: string; rv: number; name: string }[] = [];
  for await (const lines of w) {
    // A buffer holds one or more whole lines.
    for (const l of Buffer.concat(lines).toString().split("\n").slice(0, -1)) {
      const e = JSON.parse(l) as { type: string; object: KubeObject };
      out.push({
        type: e.type,
        rv: Number(e.object.metadata?.resourceVersion),
        name: e.object.metadata?.name ?? "",
      });
    }
  }
  return out;
}

describe("WatchCache (property)", () => {
  it("every watcher sees exactly the storage history after its start revision, in order, once", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 60 }), async (ops) => {
        const storage = new MemoryStorage();
        const cache = new WatchCache({
          storage,
          prefix: PREFIX,
          kind: "Thing",
          apiVersion: "v1",
          decode: (kv) => ({
            ...(JSON.parse(kv.value) as KubeObject),
            metadata: {
              name: kv.key.slice(PREFIX.length),
              resourceVersion: String(kv.modRevision),
            },
          }),
          attrs: () => ({ labels: {}, fields: {} }),
          watcherBufferSize: 10_000,
        });
        await cache.start();
        const history: StorageEvent[] = [];
        const revisions: number[] = [await storage.currentRevision()];
        const watchers: { w: CacheWatcher; start: number }[] = [];
        for (const o of ops) {
          if (o.kind === "watch") {
            const start = revisions[Math.max(0, revisions.length - 1 - o.back)]!;
            watchers.push({ w: cache.watch({ filter: all, startRv: start }), start });
            continue;
          }
          const key = `${PREFIX}k${o.key}`;
          const cur = await storage.get(key);
          let rev: number;
          if (o.kind === "put") {
            const value = JSON.stringify({ value: o.value });
            const kv = cur
              ? await storage.update(key, value, cur.modRevision)
              : await storage.create(key, value);
            history.push(cur ? { type: "put", kv, prev: cur } : { type: "put", kv });
            rev = kv.modRevision;
          } else {
            if (cur === undefined) continue;
            const d = await storage.delete(key);
            history.push({ type: "delete", key, revision: d.revision, prev: d.prev });
            rev = d.revision;
          }
          revisions.push(rev);
          await cache.waitUntilFresh(rev);
        }
        for (const { w, start } of watchers) {
          const seen = await drain(w);
          const expected = history
            .filter((e) => eventRevision(e) > start)
            .map((e) => ({
              type: e.type === "delete" ? "DELETED" : e.prev ? "MODIFIED" : "ADDED",
              rv: eventRevision(e),
              name: (e.type === "put" ? e.kv.key : e.key).slice(PREFIX.length),
            }));
          assert.deepEqual(seen, expected);
        }
        await cache.close();
        await storage.close();
      }),
      { numRuns: 100 },
    );
  });
});
