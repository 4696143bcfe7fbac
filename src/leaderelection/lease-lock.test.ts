import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createClient } from "../client/index.ts";
import { isConflict } from "../core/index.ts";
import { startTestServer } from "../testing/index.ts";
import { LeaderElector } from "./leader-elector.ts";
import { LeaseLock } from "./lease-lock.ts";

describe("LeaseLock against an API server", () => {
  it("creates, reads and compare-and-swaps a Lease", async () => {
    await using server = await startTestServer();
    await using client = createClient({ url: server.url });
    const leases = client.resource("Lease", { namespace: "default" });
    const lock = new LeaseLock({ leases, name: "my-controller" });
    assert.equal(await lock.get(), undefined);
    const record = {
      holderIdentity: "a",
      leaseDurationSeconds: 15,
      acquireTimeMs: 1000,
      renewTimeMs: 2000,
      leaderTransitions: 0,
    };
    const v1 = await lock.create(record);
    const got = await lock.get();
    assert.deepEqual(got, { record, version: v1 });
    const lease = await leases.get("my-controller");
    assert.equal(lease.spec?.renewTime, "1970-01-01T00:00:02.000000Z");
    assert.equal(lease.spec?.holderIdentity, "a");
    const v2 = await lock.update({ ...record, renewTimeMs: 3000 }, v1);
    assert.notEqual(v2, v1);
    await assert.rejects(lock.update({ ...record, holderIdentity: "b" }, v1), isConflict);
    assert.equal((await lock.get())?.record.holderIdentity, "a");
    assert.equal(lock.describe(), "default/my-controller");
  });

  it("elects one of two candidates, and hands over on release", async () => {
    await using server = await startTestServer();
    await using client = createClient({ url: server.url });
    const leases = client.resource("Lease", { namespace: "default" });
    const started: string[] = [];
    const make = (id: string) => {
      const stop = new AbortController();
      let leading!: () => void;
      const becameLeader = new Promise<void>((r) => {
        leading = r;
      });
      const elector = new LeaderElector({
        lock: new LeaseLock({ leases, name: "pair" }),
        identity: id,
        retryPeriodMs: 50,
        renewDeadlineMs: 200,
        leaseDurationMs: 1000,
        onStartedLeading: () => {
          started.push(id);
          leading();
        },
      });
      return { elector, stop, becameLeader, done: elector.run(stop.signal) };
    };
    const a = make("a");
    await a.becameLeader;
    const b = make("b");
    // b cannot lead while a renews; a's release lets b in.
    assert.equal(b.elector.isLeader, false);
    a.stop.abort();
    await a.done;
    await b.becameLeader;
    assert.deepEqual(started, ["a", "b"]);
    const lease = await leases.get("pair");
    assert.equal(lease.spec?.holderIdentity, "b");
    assert.equal(lease.spec?.leaseTransitions, 1);
    b.stop.abort();
    await b.done;
  });
});
