import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { InvalidOptionError } from "../../core/index.ts";
import { type EtcdProcess, startEtcd, storageConformance } from "../../testing/index.ts";
import { runConformanceWithNodeTest } from "../../testing/node-test.ts";
import { EtcdStorage } from "./etcd-storage.ts";
import { isStorageError } from "./storage-error.ts";

// One etcd for the file; each test gets its own key prefix (tests in a file run one at a time,
// so the revision arithmetic of the suite holds).
let etcd: EtcdProcess;
let n = 0;
before(async () => {
  etcd = await startEtcd();
});
after(() => etcd.close());

runConformanceWithNodeTest(storageConformance, {
  name: "EtcdStorage",
  make: async () => new EtcdStorage({ endpoints: [etcd.endpoint], prefix: `/conformance-${++n}` }),
});

describe("EtcdStorage options and lifecycle", () => {
  it("refuses bad options with an InvalidOptionError naming the option", () => {
    for (const [options, option] of [
      [{ endpoints: [] }, "endpoints"],
      [{ endpoints: ["127.0.0.1:2379"] }, "endpoints"],
      [{ prefix: "/a\u0000b" }, "prefix"],
      [{ requestTimeoutMs: 0 }, "requestTimeoutMs"],
      [{ watchLogCapacity: -1 }, "watchLogCapacity"],
      [{ watchLogCapacity: 1.5 }, "watchLogCapacity"],
    ] as const) {
      assert.throws(
        () => new EtcdStorage(options),
        (err: unknown) => err instanceof InvalidOptionError && err.option === option,
        option,
      );
    }
  });

  it("connects to nothing until called, and refuses calls and watches once closed", async () => {
    // Port 1 serves nothing: constructing is fine, as is closing without a call.
    const idle = new EtcdStorage({ endpoints: ["http://127.0.0.1:1"] });
    await idle.close();
    const s = new EtcdStorage({ endpoints: [etcd.endpoint], prefix: `/closed-${++n}` });
    await s.create("/k", "v");
    await s.close();
    await s.close();
    for (const call of [s.get("/k"), s.create("/x", "1"), s.list("/"), s.currentRevision()]) {
      await assert.rejects(call, (err: unknown) => isStorageError(err, "Closed"));
    }
    await assert.rejects(s.watch("/")[Symbol.asyncIterator]().next(), (err: unknown) =>
      isStorageError(err, "Closed"),
    );
  });

  it("answers a list larger than grpc-js's default 4 MiB message limit", async () => {
    await using s = new EtcdStorage({ endpoints: [etcd.endpoint], prefix: `/big-${++n}` });
    const value = "x".repeat(64 * 1024);
    await Promise.all(
      Array.from({ length: 80 }, (_, i) => s.create(`/k${String(i).padStart(3, "0")}`, value)),
    );
    const all = await s.list("/");
    assert.equal(all.kvs.length, 80, "5 MiB in one response");
    assert.equal(all.kvs[79]!.value.length, value.length);
  });
});

describe("EtcdStorage shutdown", () => {
  /** "pending" while the promise has not settled within a few turns of the event loop. */
  async function pending(p: Promise<unknown>): Promise<boolean> {
    let settled = false;
    const mark = () => {
      settled = true;
    };
    void p.then(mark, mark);
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    return !settled;
  }

  it("close() answers the calls under way before it disconnects, and refuses new ones", async () => {
    const s = new EtcdStorage({ endpoints: [etcd.endpoint], prefix: `/shutdown-${++n}` });
    await s.create("/registry/a", "1");
    etcd.pause();
    let created: Promise<unknown>;
    let closing: Promise<void>;
    try {
      created = s.create("/registry/b", "2");
      closing = s.close();
      assert.equal(await pending(closing), true, "close() waits for the create under way");
      await assert.rejects(s.get("/registry/a"), (err: unknown) => isStorageError(err, "Closed"));
    } finally {
      etcd.resume();
    }
    await created;
    await closing;
  });

  it("destroy() fails the calls under way with Closed and does not wait for them", async () => {
    const s = new EtcdStorage({ endpoints: [etcd.endpoint], prefix: `/shutdown-${++n}` });
    await s.create("/registry/a", "1");
    etcd.pause();
    try {
      const created = s.create("/registry/b", "2");
      const closing = s.close();
      await s.destroy();
      await closing;
      await assert.rejects(created, (err: unknown) => isStorageError(err, "Closed"));
    } finally {
      etcd.resume();
    }
  });
});
