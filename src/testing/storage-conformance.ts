import assert from "node:assert/strict";
import {
  isStorageError,
  type Storage,
  type StorageErrorCode,
  type WatchBatch,
} from "../apiserver/index.ts";
import type { ConformanceSubject, ConformanceSuite } from "./conformance.ts";

/** An API server storage backend under test. */
export interface StorageSubject extends ConformanceSubject {
  /** Opens a fresh, empty store; every case opens its own and closes it. */
  make(): Promise<Storage>;
}

/** Runs `fn` on a fresh store of the subject, and closes the store. */
const withStore =
  (fn: (s: Storage) => Promise<void>) =>
  async (subject: StorageSubject): Promise<void> => {
    const s = await subject.make();
    try {
      await fn(s);
    } finally {
      await s.close();
    }
  };

/**
 * The behaviour every API server `Storage` guarantees: one global revision, compare-and-swap
 * writes, multi-version reads, ordered range lists with limits, watches from a revision, and
 * compaction. Run it against your backend with node:test:
 * `runConformanceWithNodeTest(storageConformance, { name: "MyStorage", make: async () => new MyStorage() })`,
 * or with another runner through `conformanceCases`.
 */
export const storageConformance: ConformanceSuite<StorageSubject> = {
  name: "Storage conformance",
  cases: [
    {
      name: "gives every write the next value of one global revision",
      run: withStore(async (s) => {
        const r0 = await s.currentRevision();
        assert.ok(r0 >= 1, `a new store is at revision ${r0}, expected >= 1`);
        const a = await s.create("/a", "1");
        const b = await s.create("/b", "2");
        assert.equal(a.modRevision, r0 + 1);
        assert.equal(b.modRevision, r0 + 2);
        const a2 = await s.update("/a", "3", a.modRevision);
        assert.equal(a2.modRevision, r0 + 3);
        const d = await s.delete("/b");
        assert.equal(d.revision, r0 + 4);
        assert.equal(await s.currentRevision(), r0 + 4);
      }),
    },

    {
      name: "creates only absent keys and keeps createRevision and version across updates",
      run: withStore(async (s) => {
        const kv = await s.create("/k", "v1");
        assert.deepEqual(
          { key: kv.key, value: kv.value, version: kv.version },
          { key: "/k", value: "v1", version: 1 },
        );
        assert.equal(kv.createRevision, kv.modRevision);
        await rejectsWith(s.create("/k", "again"), "KeyExists");
        const kv2 = await s.update("/k", "v2", kv.modRevision);
        assert.equal(kv2.createRevision, kv.createRevision);
        assert.equal(kv2.version, 2);
        assert.equal((await s.get("/k"))?.value, "v2");
      }),
    },

    {
      name: "refuses an update or delete at a stale revision, and writes to a missing key",
      run: withStore(async (s) => {
        const kv = await s.create("/k", "v1");
        await s.update("/k", "v2", kv.modRevision);
        await rejectsWith(s.update("/k", "v3", kv.modRevision), "Conflict");
        await rejectsWith(s.delete("/k", kv.modRevision), "Conflict");
        assert.equal((await s.get("/k"))?.value, "v2", "a refused write changes nothing");
        await rejectsWith(s.update("/missing", "x", 1), "NotFound");
        await rejectsWith(s.delete("/missing"), "NotFound");
      }),
    },

    {
      name: "deletes, returning the previous entry, and lets the key be created again",
      run: withStore(async (s) => {
        const kv = await s.create("/k", "v1");
        const d = await s.delete("/k", kv.modRevision);
        assert.equal(d.prev.value, "v1");
        assert.equal(await s.get("/k"), undefined);
        const again = await s.create("/k", "v2");
        assert.equal(again.version, 1);
        assert.equal(again.createRevision, again.modRevision);
      }),
    },

    {
      name: "reads a key as it was at a past revision",
      run: withStore(async (s) => {
        const v1 = await s.create("/k", "v1");
        const v2 = await s.update("/k", "v2", v1.modRevision);
        const del = await s.delete("/k");
        assert.equal((await s.get("/k", { revision: v1.modRevision }))?.value, "v1");
        assert.equal((await s.get("/k", { revision: v2.modRevision }))?.value, "v2");
        assert.equal(await s.get("/k", { revision: del.revision }), undefined);
        await rejectsWith(s.get("/k", { revision: del.revision + 10 }), "FutureRevision");
      }),
    },

    {
      name: "lists a prefix in key order, in pages, as a consistent snapshot",
      run: withStore(async (s) => {
        for (const k of ["c", "a", "e", "b", "d"]) await s.create(`/p/${k}`, k);
        await s.create("/q/z", "other prefix");
        await s.create("/p", "the prefix itself is not under /p/");
        const all = await s.list("/p/");
        assert.deepEqual(
          all.kvs.map((kv) => kv.value),
          ["a", "b", "c", "d", "e"],
        );
        assert.equal(all.more, false);
        const page1 = await s.list("/p/", { limit: 2, countRemaining: true });
        assert.deepEqual(
          page1.kvs.map((kv) => kv.value),
          ["a", "b"],
        );
        assert.equal(page1.more, true);
        assert.equal(page1.remaining, 3);
        // Writes after the first page do not show in later pages read at its revision.
        await s.create("/p/bb", "bb");
        await s.delete("/p/d");
        const page2 = await s.list("/p/", {
          limit: 2,
          startKey: `${page1.kvs[1]!.key}\u0000`,
          revision: page1.revision,
        });
        assert.deepEqual(
          page2.kvs.map((kv) => kv.value),
          ["c", "d"],
        );
        assert.equal(page2.revision, page1.revision);
        const page3 = await s.list("/p/", {
          limit: 2,
          startKey: `${page2.kvs[1]!.key}\u0000`,
          revision: page1.revision,
        });
        assert.deepEqual(
          page3.kvs.map((kv) => kv.value),
          ["e"],
        );
        assert.equal(page3.more, false);
        const now = await s.list("/p/");
        assert.deepEqual(
          now.kvs.map((kv) => kv.value),
          ["a", "b", "bb", "c", "e"],
        );
        assert.equal(now.revision, await s.currentRevision());
      }),
    },

    {
      name: "forgets history before a compaction, and still reads at the compacted revision",
      run: withStore(async (s) => {
        const v1 = await s.create("/k", "v1");
        const v2 = await s.update("/k", "v2", v1.modRevision);
        await s.create("/gone", "x");
        await s.delete("/gone");
        const v3 = await s.update("/k", "v3", v2.modRevision);
        await s.compact(v2.modRevision);
        assert.equal(await s.compactedRevision(), v2.modRevision);
        await rejectsWith(s.get("/k", { revision: v1.modRevision }), "Compacted");
        await rejectsWith(s.list("/", { revision: v1.modRevision }), "Compacted");
        assert.equal((await s.get("/k", { revision: v2.modRevision }))?.value, "v2");
        assert.equal((await s.get("/k", { revision: v3.modRevision }))?.value, "v3");
        await s.compact(await s.currentRevision());
        assert.deepEqual(
          (await s.list("/")).kvs.map((kv) => kv.key),
          ["/k"],
        );
        await s.compact(1); // below the current compaction: nothing happens
        const it = s.watch("/", { fromRevision: v1.modRevision })[Symbol.asyncIterator]();
        await rejectsWith(it.next(), "Compacted");
      }),
    },

    {
      name: "replays a watch from a past revision, then delivers live changes in revision order",
      run: withStore(async (s) => {
        const a = await s.create("/w/a", "a1");
        await s.create("/other/x", "x");
        const a2 = await s.update("/w/a", "a2", a.modRevision);
        const ac = new AbortController();
        const it = s.watch("/w/", { fromRevision: a.modRevision, signal: ac.signal });
        const seen = collect(it, (events) => events.length >= 4);
        await s.create("/w/b", "b1");
        await s.delete("/w/a", a2.modRevision);
        await s.create("/other/y", "y");
        const events = await seen;
        ac.abort();
        assert.deepEqual(
          events.map((e) =>
            e.type === "put" ? `put ${e.kv.key}=${e.kv.value}` : `delete ${e.key}`,
          ),
          ["put /w/a=a1", "put /w/a=a2", "put /w/b=b1", "delete /w/a"],
        );
        const revs = events.map((e) => (e.type === "put" ? e.kv.modRevision : e.revision));
        assert.deepEqual(
          revs,
          [...revs].sort((x, y) => x - y),
        );
        const del = events[3]!;
        assert.ok(del.type === "delete" && del.prev.value === "a2", "a deletion carries prev");
      }),
    },

    {
      name: "tells a watcher the store's revision even when nothing under its prefix changes",
      run: withStore(async (s) => {
        const ac = new AbortController();
        const it = s.watch("/quiet/", { signal: ac.signal })[Symbol.asyncIterator]();
        const kv = await s.create("/busy/a", "1");
        let batch: WatchBatch | undefined;
        do {
          const r = await it.next();
          assert.ok(!r.done, "the watch ended early");
          batch = r.value;
          assert.equal(batch.events.length, 0);
        } while (batch.revision < kv.modRevision);
        assert.equal(batch.revision, kv.modRevision);
        ac.abort();
      }),
    },

    {
      name: "ends a watch when its signal aborts or the store closes",
      run: withStore(async (s) => {
        const ac = new AbortController();
        const it = s.watch("/", { signal: ac.signal })[Symbol.asyncIterator]();
        const next = it.next();
        ac.abort();
        assert.equal((await next).done, true);
        const it2 = s.watch("/")[Symbol.asyncIterator]();
        const next2 = it2.next();
        await s.close();
        assert.equal((await next2).done, true);
        await rejectsWith(s.get("/k"), "Closed");
        await s.close(); // idempotent
      }),
    },
  ],
};

async function rejectsWith(p: Promise<unknown>, code: StorageErrorCode): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(isStorageError(err), `expected a StorageError ${code}, got ${String(err)}`);
    assert.equal(err.code, code);
    return true;
  });
}

async function collect(
  iterable: AsyncIterable<WatchBatch>,
  done: (events: WatchBatch["events"][number][]) => boolean,
): Promise<WatchBatch["events"][number][]> {
  const events: WatchBatch["events"][number][] = [];
  for await (const batch of iterable) {
    events.push(...batch.events);
    if (done(events)) break;
  }
  return events;
}
