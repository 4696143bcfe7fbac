/**
 * Properties of the queues on random sequences of operations, against a tiny reference model
 * written from the checklist (`queue-model.test-helper.ts`): every queue, and the rate-limiting
 * queue with every strategy, behaves as the model — one worker per item, nothing lost, one
 * processing per burst of adds, never early — and reports the metrics the model predicts. Then
 * the order properties of the two-lane, fair and priority strategies.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { FakeClock } from "../testing/index.ts";
import { DelayingQueue } from "./delaying-queue.ts";
import { FairStrategy } from "./fair-strategy.ts";
import { PriorityQueue } from "./priority-queue.ts";
import { Queue } from "./queue.ts";
import { ALL_OPS, KEYS, Model, type Op, op, RecordingProvider } from "./queue-model.test-helper.ts";
import { ItemExponentialFailureRateLimiter } from "./rate-limiters.ts";
import { RateLimitingQueue } from "./rate-limiting-queue.ts";
import { TwoLaneStrategy } from "./two-lane-strategy.ts";

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

const key = fc.constantFrom(...KEYS);

/** A queue under test: how to build it, which operations it has, whether it is FIFO. */
interface Subject {
  name: string;
  make(setup: {
    clock: FakeClock;
    rateLimiter: ItemExponentialFailureRateLimiter<string>;
    metrics: RecordingProvider;
  }): Queue<string>;
  ops: readonly Op["t"][];
  /** Ready items leave in the model's FIFO order; otherwise the model follows the queue's pick. */
  fifo: boolean;
  /** A priority queue: its depth by priority must count the ready items (all at priority 0). */
  priority?: boolean;
}

const NOT_DELAYING: readonly Op["t"][] = ["add", "get", "done", "advance", "shutDown"];
const NOT_RATE_LIMITING: readonly Op["t"][] = [...NOT_DELAYING, "addAfter"];

const SUBJECTS: Subject[] = [
  {
    name: "Queue",
    make: ({ clock, metrics }) => new Queue<string>({ clock, name: "q", metrics }),
    ops: NOT_DELAYING,
    fifo: true,
  },
  {
    name: "DelayingQueue",
    make: ({ clock, metrics }) => new DelayingQueue<string>({ clock, name: "q", metrics }),
    ops: NOT_RATE_LIMITING,
    fifo: true,
  },
  {
    name: "RateLimitingQueue",
    make: ({ clock, rateLimiter, metrics }) =>
      new RateLimitingQueue<string>({ clock, rateLimiter, name: "q", metrics }),
    ops: ALL_OPS,
    fifo: true,
  },
  {
    name: "PriorityQueue, every item at priority 0",
    make: ({ clock, rateLimiter, metrics }) =>
      new PriorityQueue<string>({ clock, rateLimiter, name: "q", metrics }),
    ops: ALL_OPS,
    fifo: true,
    priority: true,
  },
  {
    name: "RateLimitingQueue with TwoLaneStrategy",
    make: ({ clock, rateLimiter, metrics }) =>
      new RateLimitingQueue<string>({
        clock,
        rateLimiter,
        name: "q",
        metrics,
        strategy: new TwoLaneStrategy<string>({ isFast: (k) => k === "b" || k === "d" }),
      }),
    ops: ALL_OPS,
    fifo: false,
  },
  {
    name: "RateLimitingQueue with FairStrategy",
    make: ({ clock, rateLimiter, metrics }) =>
      new RateLimitingQueue<string>({
        clock,
        rateLimiter,
        name: "q",
        metrics,
        strategy: new FairStrategy<string>({ tenantOf: (k) => (k < "c" ? "t1" : "t2") }),
      }),
    ops: ALL_OPS,
    fifo: false,
  },
];

/** The queue's methods beyond `Queue`, for the subjects that have them. */
type Full = RateLimitingQueue<string>;

/** Runs `ops` on a fresh queue of `subject` and on the model, comparing them after each step. */
async function agreesWithModel(subject: Subject, ops: Op[]): Promise<void> {
  const clock = new FakeClock({ startMs: 0 });
  const rateLimiter = new ItemExponentialFailureRateLimiter<string>({
    baseDelayMs: 1,
    maxDelayMs: 1000,
  });
  const metrics = new RecordingProvider();
  const q = subject.make({ clock, rateLimiter, metrics }) as Full;
  const m = new Model();
  /** What the workers hold: never two of one item. */
  const held: string[] = [];
  /** Results of blocked gets, in the order the gets were made. */
  const blocked: (string | undefined)[] = [];
  let blockedMade = 0;
  let handOuts = 0;
  let dones = 0;
  /** Failures inside the callbacks of blocked gets, rethrown after each step. */
  const failures: unknown[] = [];
  /** The earliest time each item may be handed out (set by a delayed add). */
  const notBefore = new Map<string, number>();
  const take = (k: string | undefined) => {
    if (k === undefined) return;
    handOuts++;
    assert.ok(!held.includes(k), `${k} handed to a second worker`);
    assert.ok(clock.now() >= (notBefore.get(k) ?? 0), `${k} handed out before its time`);
    notBefore.delete(k);
    held.push(k);
  };

  for (const o of ops) {
    switch (o.t) {
      case "add":
        q.add(o.k);
        m.add(o.k);
        notBefore.delete(o.k);
        break;
      case "addAfter":
        q.addAfter(o.k, o.ms);
        m.addAfter(o.k, o.ms);
        if (o.ms <= 0 && !m.shuttingDown) notBefore.delete(o.k);
        else if (o.ms > 0 && !m.dirty.has(o.k)) {
          notBefore.set(o.k, Math.min(notBefore.get(o.k) ?? Infinity, clock.now() + o.ms));
        }
        break;
      case "addRateLimited": {
        const n = m.failures.get(o.k) ?? 0;
        q.addRateLimited(o.k);
        m.addRateLimited(o.k);
        if (!m.shuttingDown && !m.dirty.has(o.k)) {
          const at = clock.now() + Math.min(2 ** n, 1000);
          notBefore.set(o.k, Math.min(notBefore.get(o.k) ?? Infinity, at));
        }
        break;
      }
      case "get": {
        if (m.queue.length === 0 && !m.shuttingDown) {
          assert.equal(m.get(), "blocked");
          const slot = blockedMade++;
          q.get().then((v) => {
            blocked[slot] = v;
            try {
              take(v);
            } catch (e) {
              failures.push(e);
            }
          });
        } else {
          const got = await q.get();
          const expected = m.get((ready) =>
            subject.fifo ? 0 : ready.indexOf(got ?? "(undefined)"),
          );
          assert.equal(got, expected);
          take(got);
        }
        break;
      }
      case "done": {
        const k = held[o.i % Math.max(1, held.length)];
        if (k === undefined) {
          q.done("never-handed-out");
          break;
        }
        held.splice(held.indexOf(k), 1);
        q.done(k);
        m.done(k);
        dones++;
        break;
      }
      case "forget":
        q.forget(o.k);
        m.failures.delete(o.k);
        assert.equal(q.numRequeues(o.k), 0);
        break;
      case "advance":
        clock.advance(o.ms);
        m.advance(o.ms);
        break;
      case "shutDown":
        q.shutDown();
        m.shutDown();
        break;
    }
    await flush();
    if (failures.length > 0) throw failures[0];
    // Blocked gets got what the model handed them, in order.
    const handed = blocked.filter((v) => v !== undefined);
    assert.deepEqual(handed, m.handedToBlocked);
    assert.equal(q.size, m.queue.length);
    const snap = q.snapshot();
    const ready = snap.ready.map((e) => e.item);
    assert.deepEqual(
      subject.fifo ? ready : ready.sort(),
      subject.fifo ? m.queue : [...m.queue].sort(),
    );
    assert.deepEqual(snap.inFlight.map((e) => e.item).sort(), [...m.inFlight].sort());
    assert.deepEqual(snap.waiting.map((e) => e.item).sort(), [...m.waiting.keys()].sort());
    // The metrics say what happened: adds, retries and latency, the waiting gauge, depth by priority).
    assert.equal(metrics.depth, m.dirty.size, "workqueue_depth counts the dirty items");
    assert.equal(metrics.adds, m.adds, "workqueue_adds_total counts items becoming dirty");
    assert.equal(metrics.retries, m.retries, "workqueue_retries_total counts every addAfter");
    assert.equal(metrics.waiting, m.waiting.size, "workqueue_waiting counts waiting items");
    assert.equal(metrics.queueDurations.length, handOuts, "one queue duration per hand-out");
    assert.equal(metrics.workDurations.length, dones, "one work duration per done");
    if (subject.priority) {
      assert.deepEqual(
        [...metrics.byPriority].filter(([, n]) => n !== 0),
        m.queue.length > 0 ? [[0, m.queue.length]] : [],
        "depth by priority counts the ready items",
      );
    }
  }

  // Nothing accepted is lost: after shutdown, workers that keep going process every dirty item.
  const owed = new Set(m.dirty);
  q.shutDown();
  await flush();
  for (const k of [...held]) {
    held.splice(held.indexOf(k), 1);
    q.done(k);
  }
  for (let k = await q.get(); k !== undefined; k = await q.get()) {
    owed.delete(k);
    q.done(k);
  }
  assert.deepEqual([...owed], []);
  await q.shutDownWithDrain();
  assert.equal(metrics.depth, 0);
  assert.equal(metrics.probe?.unfinishedWorkSeconds(), 0);
}

describe("work queue properties", () => {
  for (const subject of SUBJECTS) {
    it(`${subject.name} behaves as the reference model: one worker per item, nothing lost, one processing per burst of adds, never early, metrics as predicted`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(op(subject.ops), { maxLength: 60, size: "max" }), (ops) =>
          agreesWithModel(subject, ops),
        ),
        { numRuns: 500 },
      );
    });
  }

  it("two-lane never hands out a slow item while a fast one is ready", async () => {
    const keys = Array.from({ length: 8 }, (_, i) => `k${i}`);
    const step = fc.oneof(
      fc.record({
        t: fc.constant("add" as const),
        k: fc.constantFrom(...keys),
        fast: fc.boolean(),
      }),
      fc.record({ t: fc.constant("get" as const) }),
      fc.record({ t: fc.constant("done" as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 80, size: "max" }), async (steps) => {
        const fast = new Set<string>();
        const q = new Queue<string>({
          strategy: new TwoLaneStrategy({ isFast: (k) => fast.has(k) }),
        });
        const held: string[] = [];
        for (const s of steps) {
          if (s.t === "add") {
            if (s.fast) fast.add(s.k);
            else fast.delete(s.k);
            q.add(s.k);
          } else if (s.t === "get" && q.size > 0) {
            const anyFastReady = q.snapshot().ready.some((e) => fast.has(e.item));
            const k = (await q.get())!;
            if (anyFastReady)
              assert.ok(fast.has(k), `slow ${k} handed out while a fast one was ready`);
            held.push(k);
          } else if (s.t === "done" && held.length > 0) {
            q.done(held.shift()!);
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it("fair keeps every tenant within one round of the others", async () => {
    const tenants = ["t0", "t1", "t2", "t3"];
    const step = fc.oneof(
      fc.record({
        t: fc.constant("add" as const),
        tenant: fc.constantFrom(...tenants),
        n: fc.integer({ min: 0, max: 30 }),
      }),
      fc.record({ t: fc.constant("get" as const) }),
      fc.record({ t: fc.constant("done" as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 80, size: "max" }), async (steps) => {
        const q = new Queue<string>({
          strategy: new FairStrategy({ tenantOf: (k) => k.split("/")[0]! }),
        });
        const held: string[] = [];
        let handOuts = 0;
        const lastServed = new Map<string, number>();
        /** When each tenant last went from nothing ready to something ready. */
        const backloggedSince = new Map<string, number>();
        const readyTenants = () => new Set(q.snapshot().ready.map((e) => e.item.split("/")[0]!));
        let before = readyTenants();
        for (const s of steps) {
          if (s.t === "add") q.add(`${s.tenant}/${s.n}`);
          else if (s.t === "done" && held.length > 0) q.done(held.shift()!);
          else if (s.t === "get" && q.size > 0) {
            const k = (await q.get())!;
            const t = k.split("/")[0]!;
            const previous = lastServed.get(t);
            if (previous !== undefined) {
              for (const u of before) {
                if (u === t || (backloggedSince.get(u) ?? 0) > previous) continue;
                assert.ok(
                  (lastServed.get(u) ?? -1) > previous,
                  `${t} served twice while ${u} waited`,
                );
              }
            }
            lastServed.set(t, handOuts++);
            held.push(k);
          }
          const after = readyTenants();
          for (const u of after) if (!before.has(u)) backloggedSince.set(u, handOuts);
          before = after;
        }
      }),
      { numRuns: 500 },
    );
  });

  it("priority: the highest priority first, FIFO within it, each item at the highest priority it was added with", async () => {
    const step = fc.oneof(
      fc.record({
        t: fc.constant("add" as const),
        k: key,
        p: fc.integer({ min: -2, max: 2 }),
      }),
      fc.record({ t: fc.constant("get" as const) }),
      fc.record({ t: fc.constant("done" as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 60, size: "max" }), async (steps) => {
        const q = new PriorityQueue<string>({ clock: new FakeClock() });
        // Model: ready items with priority and order; pending priority of in-flight items.
        const ready = new Map<string, { p: number; seq: number }>();
        const pending = new Map<string, number>();
        const inFlight: string[] = [];
        let seq = 0;
        for (const s of steps) {
          if (s.t === "add") {
            q.add(s.k, { priority: s.p });
            const r = ready.get(s.k);
            if (r !== undefined) {
              if (s.p > r.p) ready.set(s.k, { p: s.p, seq: seq++ });
            } else if (inFlight.includes(s.k)) {
              pending.set(s.k, Math.max(pending.get(s.k) ?? s.p, s.p));
            } else ready.set(s.k, { p: s.p, seq: seq++ });
          } else if (s.t === "get" && ready.size > 0) {
            const [k, r] = [...ready].sort(([, a], [, b]) => b.p - a.p || a.seq - b.seq)[0]!;
            ready.delete(k);
            inFlight.push(k);
            assert.deepEqual(await q.getWithPriority(), { item: k, priority: r.p });
          } else if (s.t === "done" && inFlight.length > 0) {
            const k = inFlight.shift()!;
            q.done(k);
            const p = pending.get(k);
            pending.delete(k);
            if (p !== undefined) ready.set(k, { p, seq: seq++ });
          }
          assert.equal(q.size, ready.size);
        }
      }),
      { numRuns: 300 },
    );
  });
});
