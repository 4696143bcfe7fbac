import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InvalidOptionError } from "../core/index.ts";
import { FakeClock } from "../testing/index.ts";
import { decide } from "./decide.ts";
import { FakeStore } from "./fake-lock.test-helper.ts";
import { LeaderElector, type LeaderElectorOptions } from "./leader-elector.ts";

const rec = (holder: string, renewTimeMs = 0, leaderTransitions = 0) => ({
  holderIdentity: holder,
  leaseDurationSeconds: 15,
  acquireTimeMs: 0,
  renewTimeMs,
  leaderTransitions,
});

describe("decide (one acquire-or-renew step)", () => {
  it("creates a missing lock", () => {
    assert.deepEqual(decide("a", undefined, undefined, 100, 15), {
      action: "create",
      record: {
        holderIdentity: "a",
        leaseDurationSeconds: 15,
        acquireTimeMs: 100,
        renewTimeMs: 100,
        leaderTransitions: 0,
      },
    });
  });

  it("waits while another holder's lease, as observed locally, has not expired", () => {
    const r = rec("b", 0);
    assert.deepEqual(decide("a", r, { record: r, observedAtMs: 1000 }, 15_999, 15), {
      action: "wait",
      holder: "b",
    });
    // A record seen for the first time counts from now, whatever its renewTime says (clock skew).
    assert.equal(decide("a", r, undefined, 1_000_000, 15).action, "wait");
  });

  it("takes over an expired lease, counting a transition", () => {
    const r = rec("b", 0, 3);
    const d = decide("a", r, { record: r, observedAtMs: 1000 }, 16_000, 15);
    assert.deepEqual(d, {
      action: "update",
      record: {
        holderIdentity: "a",
        leaseDurationSeconds: 15,
        acquireTimeMs: 16_000,
        renewTimeMs: 16_000,
        leaderTransitions: 4,
      },
    });
  });

  it("renews its own lease, keeping acquire time and transitions", () => {
    const r = { ...rec("a", 500, 2), acquireTimeMs: 400 };
    assert.deepEqual(decide("a", r, undefined, 900, 15), {
      action: "update",
      record: {
        holderIdentity: "a",
        leaseDurationSeconds: 15,
        acquireTimeMs: 400,
        renewTimeMs: 900,
        leaderTransitions: 2,
      },
    });
  });

  it("acquires a released lock at once", () => {
    const r = rec("", 0, 1);
    assert.equal(decide("a", r, { record: r, observedAtMs: 0 }, 1, 15).action, "update");
  });
});

interface Candidate {
  elector: LeaderElector;
  stop: AbortController;
  done: Promise<void>;
  events: string[];
}

function candidate(
  store: FakeStore,
  clock: FakeClock,
  identity: string,
  extra: Partial<LeaderElectorOptions> = {},
): Candidate {
  const events: string[] = [];
  const elector = new LeaderElector({
    lock: store.lockFor(identity),
    identity,
    clock,
    random: () => 0,
    onStartedLeading: (signal) => {
      events.push("started");
      signal.addEventListener("abort", () => events.push("leadership-aborted"));
    },
    onStoppedLeading: () => events.push("stopped"),
    onNewLeader: (id) => events.push(`leader:${id}`),
    ...extra,
  });
  const stop = new AbortController();
  return { elector, stop, done: elector.run(stop.signal), events };
}

/** Advances in small steps, asserting after each that at most one candidate believes it leads. */
async function elapse(clock: FakeClock, ms: number, candidates: Candidate[]): Promise<void> {
  for (let t = 0; t < ms; t += 100) {
    await clock.advanceAsync(100);
    const leaders = candidates.filter((c) => c.elector.isLeader);
    assert.ok(leaders.length <= 1, `two leaders at ${clock.now()}`);
  }
}

describe("LeaderElector", () => {
  it("acquires a free lock, renews it, and releases it on cancel", async () => {
    const clock = new FakeClock({ startMs: 0 });
    const store = new FakeStore();
    const a = candidate(store, clock, "a");
    await elapse(clock, 100, [a]);
    assert.equal(a.elector.isLeader, true);
    assert.deepEqual(a.events, ["leader:a", "started"]);
    const before = store.record!.renewTimeMs;
    await elapse(clock, 4000, [a]);
    assert.ok(store.record!.renewTimeMs > before, "renews every retry period");
    assert.equal(store.record!.holderIdentity, "a");
    a.stop.abort();
    await a.done;
    assert.equal(a.elector.isLeader, false);
    assert.equal(store.record!.holderIdentity, "", "released");
    assert.equal(store.record!.leaseDurationSeconds, 1);
    assert.deepEqual(a.events, ["leader:a", "started", "leadership-aborted", "leader:", "stopped"]);
  });

  it("releases on cancel even after a renewal whose answer was lost (it reads the lock's version first)", async () => {
    const clock = new FakeClock({ startMs: 0 });
    const store = new FakeStore();
    const a = candidate(store, clock, "a");
    await elapse(clock, 100, [a]);
    assert.equal(a.elector.isLeader, true);
    store.lostAnswers.add("a");
    const renewed = store.version;
    await elapse(clock, 2000, [a]);
    assert.ok(store.version > renewed, "renewals went through, unbeknown to a");
    store.lostAnswers.clear();
    a.stop.abort();
    await a.done;
    assert.equal(store.record!.holderIdentity, "", "released");
  });

  it("lets a waiting candidate take over at once after a release", async () => {
    const clock = new FakeClock({ startMs: 0 });
    const store = new FakeStore();
    const a = candidate(store, clock, "a");
    await elapse(clock, 100, [a]);
    const b = candidate(store, clock, "b");
    await elapse(clock, 5000, [a, b]);
    assert.equal(b.elector.isLeader, false);
    assert.equal(b.elector.leader, "a");
    a.stop.abort();
    await a.done;
    await elapse(clock, 2 * 2000, [a, b]); // one retry period (no jitter drawn here) is enough
    assert.equal(b.elector.isLeader, true);
    assert.equal(store.record!.leaderTransitions, 1);
    b.stop.abort();
    await b.done;
  });

  it("never has two leaders when the leader is cut off; the other takes over within the lease duration", async () => {
    const clock = new FakeClock({ startMs: 0 });
    const store = new FakeStore();
    const errors: unknown[] = [];
    const a = candidate(store, clock, "a", { onError: (e) => errors.push(e) });
    await elapse(clock, 100, [a]);
    const b = candidate(store, clock, "b");
    await elapse(clock, 3000, [a, b]);
    const cutAt = clock.now();
    store.partitioned.add("a");
    // a stops believing by its renew deadline; b waits out the lease, never overlapping.
    await elapse(clock, 10_000, [a, b]);
    assert.equal(a.elector.isLeader, false, "a gives up by its renew deadline");
    await a.done;
    assert.deepEqual(a.events.slice(-2), ["leadership-aborted", "stopped"]);
    while (!b.elector.isLeader) await elapse(clock, 100, [a, b]);
    const tookOverAfter = clock.now() - cutAt;
    assert.ok(tookOverAfter <= 15_000 + 2 * 2000 * 2.2, `took over after ${tookOverAfter} ms`);
    assert.ok(errors.length > 0, "lock errors are reported");
    b.stop.abort();
    await b.done;
  });

  it("refuses a second concurrent run", async () => {
    const clock = new FakeClock({ startMs: 0 });
    const a = candidate(new FakeStore(), clock, "a");
    await assert.rejects(a.elector.run(new AbortController().signal), /already running/);
    a.stop.abort();
    await a.done;
  });

  it("reports a throwing callback and keeps leading", async () => {
    const clock = new FakeClock({ startMs: 0 });
    const errors: unknown[] = [];
    const a = candidate(new FakeStore(), clock, "a", {
      onStartedLeading: () => {
        throw new Error("boom");
      },
      onError: (e) => errors.push(e),
    });
    await elapse(clock, 2500, [a]);
    assert.equal(a.elector.isLeader, true);
    assert.match(String(errors[0]), /boom/);
    a.stop.abort();
    await a.done;
  });

  it("refuses inconsistent timings and missing options, naming them", () => {
    const base = { lock: new FakeStore().lockFor("a"), identity: "a", onStartedLeading: () => {} };
    const cases: [Partial<LeaderElectorOptions>, string][] = [
      [{ identity: "" }, "identity"],
      [{ retryPeriodMs: 0 }, "retryPeriodMs"],
      [{ renewDeadlineMs: 2000 }, "renewDeadlineMs"],
      [{ leaseDurationMs: 12_000 }, "leaseDurationMs"],
      [{ leaseDurationMs: 15_500 }, "leaseDurationMs"],
      [{ onStartedLeading: undefined }, "onStartedLeading"],
    ];
    for (const [override, option] of cases) {
      assert.throws(
        () => new LeaderElector({ ...base, ...override } as LeaderElectorOptions),
        (e: unknown) => e instanceof InvalidOptionError && e.option === option,
        option,
      );
    }
  });
});
