import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { describe, it } from "node:test";
import type { IDuplexStream, IEvent, IWatchRequest, IWatchResponse } from "etcd3";
import { Backoff } from "../../core/index.ts";
import { FakeClock } from "../../testing/index.ts";
import { EtcdKeys } from "./etcd-codec.ts";
import { EtcdWatchHub } from "./etcd-watch-hub.ts";
import { EtcdWatchStream, type WatchSubscriber } from "./etcd-watch-stream.ts";
import type { WatchBatch } from "./storage.ts";
import { StorageError } from "./storage-error.ts";

/** A watch stream that records what it is sent and answers what the test tells it to. */
class FakeStream extends EventEmitter {
  readonly sent: IWatchRequest[] = [];
  cancelled = false;
  write(req: IWatchRequest): void {
    this.sent.push(req);
  }
  end(): void {}
  cancel(): void {
    this.cancelled = true;
  }
  respond(res: Partial<IWatchResponse>): void {
    this.emit("data", {
      header: { revision: "0", cluster_id: "1", member_id: "1", raft_term: "1" },
      watch_id: "0",
      created: false,
      canceled: false,
      compact_revision: "0",
      cancel_reason: "",
      fragment: false,
      events: [],
      ...res,
    });
  }
  /** Events at `revision` (header revision too) for watch `id`. */
  events(id: number, revision: number, events: IEvent[]): void {
    this.respond({ watch_id: String(id), header: header(revision), events });
  }
}

function header(revision: number) {
  return { revision: String(revision), cluster_id: "1", member_id: "1", raft_term: "1" };
}

function put(key: string, revision: number, value = "v"): IEvent {
  const kv = {
    key: Buffer.from(key),
    value: Buffer.from(value),
    create_revision: String(revision),
    mod_revision: String(revision),
    version: "1",
    lease: "0",
  };
  return { type: "Put", kv, prev_kv: undefined as unknown as IEvent["prev_kv"] };
}

function rig() {
  const clock = new FakeClock();
  const streams: FakeStream[] = [];
  let fail: Error | undefined;
  const stream = new EtcdWatchStream({
    open: async () => {
      if (fail) throw fail;
      const s = new FakeStream();
      streams.push(s);
      return s as unknown as IDuplexStream<IWatchRequest, IWatchResponse>;
    },
    key: Buffer.from([0]),
    rangeEnd: Buffer.from([0]),
    clock,
    backoff: new Backoff({ initialMs: 100, maxMs: 1000, jitter: 0 }),
  });
  return {
    clock,
    streams,
    stream,
    failOpens: (err: Error | undefined) => {
      fail = err;
    },
    /** Lets the open promise settle. */
    settle: () => new Promise<void>((r) => setImmediate(r)),
  };
}

function recorder() {
  const log: string[] = [];
  const subscriber: WatchSubscriber = {
    batch: (revision, events) =>
      log.push(`${revision}:${events.map((e) => e.kv.key.toString()).join(",")}`),
    compacted: (c) => log.push(`compacted ${c}`),
  };
  return { log, subscriber };
}

describe("EtcdWatchStream", () => {
  it("creates each subscription from its revision, with its own id and prev_kv", async () => {
    const r = rig();
    r.stream.subscribe(7, recorder().subscriber);
    r.stream.subscribe(3, recorder().subscriber);
    await r.settle();
    assert.equal(r.streams.length, 1, "one stream for every subscription");
    const creates = r.streams[0]!.sent.map((s) => s.create_request!);
    assert.deepEqual(
      creates.map((c) => [c.watch_id, c.start_revision, c.prev_kv]),
      [
        [1, 7, true],
        [2, 3, true],
      ],
    );
  });

  it("delivers batches in order and resumes after a failure from one past the last one, after a backoff", async () => {
    const r = rig();
    const rec = recorder();
    const sub = r.stream.subscribe(5, rec.subscriber);
    await r.settle();
    const s1 = r.streams[0]!;
    s1.respond({ watch_id: "1", created: true, header: header(9) });
    s1.events(1, 6, [put("/a", 5), put("/b", 6)]);
    s1.events(1, 8, []); // progress
    assert.deepEqual(rec.log, ["6:/a,/b", "8:"]);
    assert.equal(sub.next, 9, "a created response moves nothing; batches do");
    s1.emit("error", new Error("14 UNAVAILABLE: connection reset"));
    assert.equal(s1.cancelled, true);
    await r.settle();
    assert.equal(r.streams.length, 1, "not reopened before the backoff");
    await r.clock.advanceAsync(100);
    await r.settle();
    assert.equal(r.streams.length, 2);
    assert.equal(r.streams[1]!.sent[0]!.create_request!.start_revision, 9);
    s1.events(1, 20, [put("/late", 20)]); // the abandoned stream is not heard
    assert.deepEqual(rec.log, ["6:/a,/b", "8:"]);
  });

  it("backs off longer while opening keeps failing, and resets once a response arrives", async () => {
    const r = rig();
    r.failOpens(new Error("14 UNAVAILABLE: refused"));
    r.stream.subscribe(1, recorder().subscriber);
    await r.settle();
    for (const delay of [100, 200, 400]) {
      await r.clock.advanceAsync(delay - 1);
      await r.settle();
      await r.clock.advanceAsync(1);
      await r.settle();
    }
    assert.equal(r.streams.length, 0);
    r.failOpens(undefined);
    await r.clock.advanceAsync(800);
    await r.settle();
    assert.equal(r.streams.length, 1);
    r.streams[0]!.events(1, 2, []);
    r.streams[0]!.emit("end");
    await r.clock.advanceAsync(100); // back to the first delay
    await r.settle();
    assert.equal(r.streams.length, 2);
  });

  it("tells a subscription whose revision was compacted, and drops it; other cancellations reconnect", async () => {
    const r = rig();
    const a = recorder();
    const b = recorder();
    r.stream.subscribe(2, a.subscriber);
    r.stream.subscribe(2, b.subscriber);
    await r.settle();
    r.streams[0]!.respond({ watch_id: "1", canceled: true, compact_revision: "40" });
    assert.deepEqual(a.log, ["compacted 40"]);
    assert.equal(r.stream.size, 1);
    r.streams[0]!.respond({ watch_id: "2", canceled: true, cancel_reason: "leader lost" });
    await r.clock.advanceAsync(100);
    await r.settle();
    assert.equal(r.streams.length, 2);
    assert.deepEqual(
      r.streams[1]!.sent.map((s) => s.create_request!.watch_id),
      [2],
      "only the live subscription is re-created",
    );
  });

  it("cancels one subscription on the stream, drops the stream with the last, and closes for good", async () => {
    const r = rig();
    const one = r.stream.subscribe(1, recorder().subscriber);
    const two = r.stream.subscribe(1, recorder().subscriber);
    await r.settle();
    one.cancel();
    one.cancel();
    assert.deepEqual(r.streams[0]!.sent.at(-1), { cancel_request: { watch_id: 1 } });
    two.cancel();
    assert.equal(r.streams[0]!.cancelled, true);
    r.stream.close();
    r.stream.subscribe(1, recorder().subscriber);
    await r.settle();
    assert.equal(r.streams.length, 1, "a closed stream opens nothing");
  });
});

describe("EtcdWatchHub", () => {
  function hub(logCapacity = 100) {
    const r = rig();
    let current = 10;
    const h = new EtcdWatchHub({
      stream: r.stream,
      keys: new EtcdKeys("/p"),
      logCapacity,
      currentRevision: async () => current,
      compactedError: (from, c) =>
        new StorageError("Compacted", `${from} < ${c}`, {
          currentRevision: 0,
          compactedRevision: c,
        }),
      closedError: () =>
        new StorageError("Closed", "closed", { currentRevision: 0, compactedRevision: 0 }),
    });
    return {
      ...r,
      hub: h,
      setCurrent: (n: number) => {
        current = n;
      },
    };
  }

  async function take(it: AsyncIterator<WatchBatch>, n: number): Promise<string[]> {
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      const { value, done } = await it.next();
      if (done) break;
      out.push(
        `${value.revision}:${value.events.map((e) => (e.type === "put" ? `+${e.kv.key}` : `-${e.key}`)).join(",")}`,
      );
    }
    return out;
  }

  it("feeds every watcher from one subscription: its changes, and progress for everyone else's", async () => {
    const h = hub();
    const a = h.hub.watch("/a/")[Symbol.asyncIterator]();
    const b = h.hub.watch("/b/")[Symbol.asyncIterator]();
    await h.settle();
    assert.equal(h.stream.size, 1, "one feed");
    assert.deepEqual(await take(a, 1), ["10:"], "a watch from now learns the revision at once");
    const feed = h.streams[0]!;
    feed.events(1, 11, [put("/p/a/x", 11)]);
    feed.events(1, 12, [put("/other-tenant/y", 12)]);
    feed.events(1, 13, [put("/p/b/z", 13)]);
    assert.deepEqual(await take(a, 2), ["11:+/a/x", "13:"], "progress once per turn, the latest");
    assert.deepEqual(
      await take(b, 2),
      ["10:", "13:+/b/z"],
      "its change at 13 supersedes news of 12",
    );
  });

  it("replays a watch from the recent past out of its log, then goes live; older starts get their own etcd watch", async () => {
    const h = hub(2);
    const first = h.hub.watch("/", { fromRevision: 11 })[Symbol.asyncIterator]();
    await h.settle();
    const feed = h.streams[0]!;
    feed.events(1, 11, [put("/p/a", 11)]);
    feed.events(1, 12, [put("/p/b", 12)]);
    feed.events(1, 13, [put("/p/c", 13)]); // the log keeps two events: it starts at 12 now
    assert.deepEqual(await take(first, 3), ["11:+/a", "12:+/b", "13:+/c"]);
    const recent = h.hub.watch("/", { fromRevision: 12 })[Symbol.asyncIterator]();
    await h.settle();
    assert.deepEqual(await take(recent, 2), ["12:+/b", "13:+/c"]);
    h.hub.watch("/", { fromRevision: 11 });
    await h.settle();
    assert.equal(h.stream.size, 2, "from before the log: a subscription of its own");
    assert.equal(feed.sent.at(-1)!.create_request!.start_revision, 11);
  });

  it("fails every fed watcher with Compacted when the feed's resume point was compacted", async () => {
    const h = hub();
    const a = h.hub.watch("/a/", { fromRevision: 11 })[Symbol.asyncIterator]();
    await h.settle();
    h.streams[0]!.respond({ watch_id: "1", canceled: true, compact_revision: "30" });
    await assert.rejects(a.next(), (err: unknown) => {
      assert.ok(err instanceof StorageError && err.code === "Compacted");
      return true;
    });
    h.setCurrent(31);
    const again = h.hub.watch("/a/")[Symbol.asyncIterator]();
    await h.settle();
    assert.deepEqual(await take(again, 1), ["31:"], "a new feed starts for the next watch");
  });

  it("ends watches on abort (leaving the feed) and on close; refuses watches after close", async () => {
    const h = hub();
    const ac = new AbortController();
    const a = h.hub.watch("/a/", { signal: ac.signal })[Symbol.asyncIterator]();
    const b = h.hub.watch("/b/")[Symbol.asyncIterator]();
    await h.settle();
    await take(a, 1);
    ac.abort();
    assert.equal((await a.next()).done, true);
    h.hub.close();
    await take(b, 1);
    assert.equal((await b.next()).done, true);
    assert.equal(h.stream.size, 0);
    await assert.rejects(
      h.hub.watch("/")[Symbol.asyncIterator]().next(),
      (err: unknown) => err instanceof StorageError && err.code === "Closed",
    );
  });
});
