/**
 * Properties of the queues on random sequences of operations, against a tiny reference model
 * written from the checklist (a FIFO array, a dirty set, an in-flight set, a map of waiting items).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { FakeClock } from "../testing/index.ts";
import { FairStrategy } from "./fair-strategy.ts";
import { PriorityQueue } from "./priority-queue.ts";
import { Queue } from "./queue.ts";
import { ItemExponentialFailureRateLimiter } from "./rate-limiters.ts";
import { RateLimitingQueue } from "./rate-limiting-queue.ts";
import { TwoLaneStrategy } from "./two-lane-strategy.ts";

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

const KEYS = ["a", "b", "c", "d", "e"];
const key = fc.constantFrom(...KEYS);

type Op =
  | { t: "add"; k: string }
  | { t: "addAfter"; k: string; ms: number }
  | { t: "addRateLimited"; k: string }
  | { t: "get" }
  | { t: "done"; i: number }
  | { t: "forget"; k: string }
  | { t: "advance"; ms: number }
  | { t: "shutDown" };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ t: fc.constant("add" as const), k: key }) },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant("addAfter" as const),
      k: key,
      ms: fc.integer({ min: -2, max: 20 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("addRateLimited" as const), k: key }) },
  { weight: 4, arbitrary: fc.record({ t: fc.constant("get" as const) }) },
  { weight: 4, arbitrary: fc.record({ t: fc.constant("done" as const), i: fc.nat(4) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("forget" as const), k: key }) },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant("advance" as const),
      ms: fc.integer({ min: 0, max: 15 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("shutDown" as const) }) },
);

/** The reference: client-go's rules with our decisions, in the plainest code. */
class Model {
  now = 0;
  queue: string[] = [];
  dirty = new Set<string>();
  inFlight = new Set<string>();
  /** Waiting items: ready time and arrival at it (ties fire in arrival order). */
  waiting = new Map<string, { at: number; seq: number }>();
  failures = new Map<string, number>();
  blocked = 0;
  /** Items handed to blocked gets, in the order the gets were made. */
  handedToBlocked: string[] = [];
  shuttingDown = false;
  #seq = 0;

  add(k: string): void {
    if (this.shuttingDown) return;
    this.waiting.delete(k);
    if (this.dirty.has(k)) return;
    this.dirty.add(k);
    if (!this.inFlight.has(k)) this.#ready(k);
  }

  addAfter(k: string, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) {
      this.add(k);
      return;
    }
    if (this.dirty.has(k)) return;
    const at = this.now + ms;
    const w = this.waiting.get(k);
    // Moving earlier counts as arriving now, for the order among items due at the same time.
    if (w === undefined || at < w.at) this.waiting.set(k, { at, seq: this.#seq++ });
  }

  addRateLimited(k: string): void {
    if (this.shuttingDown) return;
    const n = this.failures.get(k) ?? 0;
    this.failures.set(k, n + 1);
    this.addAfter(k, Math.min(2 ** n, 1000));
  }

  /** The item a get returns now, "blocked", or undefined (shut down, nothing ready). */
  get(): string | "blocked" | undefined {
    const k = this.queue.shift();
    if (k !== undefined) return this.#handOut(k);
    if (this.shuttingDown) return undefined;
    this.blocked++;
    return "blocked";
  }

  done(k: string): void {
    if (!this.inFlight.delete(k)) return;
    if (this.dirty.has(k)) this.#ready(k);
  }

  advance(ms: number): void {
    const target = this.now + ms;
    for (;;) {
      const due = [...this.waiting].filter(([, w]) => w.at <= target);
      if (due.length === 0) break;
      due.sort(([, a], [, b]) => a.at - b.at || a.seq - b.seq);
      const [k, w] = due[0]!;
      this.now = w.at;
      this.waiting.delete(k);
      this.add(k);
    }
    this.now = target;
  }

  shutDown(): void {
    this.shuttingDown = true;
    this.waiting.clear();
    this.blocked = 0;
  }

  #ready(k: string): void {
    if (this.blocked > 0) {
      this.blocked--;
      this.handedToBlocked.push(this.#handOut(k));
    } else this.queue.push(k);
  }

  #handOut(k: string): string {
    this.dirty.delete(k);
    this.inFlight.add(k);
    return k;
  }
}

describe("work queue properties", () => {
  it("behaves as the reference model: one worker per item, nothing lost, one processing per burst of adds, never early", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 60 }), async (ops) => {
        const clock = new FakeClock({ startMs: 0 });
        const rateLimiter = new ItemExponentialFailureRateLimiter<string>({
          baseDelayMs: 1,
          maxDelayMs: 1000,
        });
        const q = new RateLimitingQueue<string>({ clock, rateLimiter });
        const m = new Model();
        /** What the workers hold: never two of one item. */
        const held: string[] = [];
        /** Results of blocked gets, in the order the gets were made. */
        const blocked: (string | undefined)[] = [];
        let blockedMade = 0;
        /** Failures inside the callbacks of blocked gets, rethrown after each step. */
        const failures: unknown[] = [];
        /** The earliest time each item may be handed out (set by a delayed add). */
        const notBefore = new Map<string, number>();
        const take = (k: string | undefined) => {
          if (k === undefined) return;
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
              const expected = m.get();
              if (expected === "blocked") {
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
          assert.deepEqual(
            snap.ready.map((e) => e.item),
            m.queue,
          );
          assert.deepEqual(snap.inFlight.map((e) => e.item).sort(), [...m.inFlight].sort());
          assert.deepEqual(snap.waiting.map((e) => e.item).sort(), [...m.waiting.keys()].sort());
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
      }),
      { numRuns: 300 },
    );
  });

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
      fc.asyncProperty(fc.array(step, { maxLength: 80 }), async (steps) => {
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
      { numRuns: 200 },
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
      fc.asyncProperty(fc.array(step, { maxLength: 80 }), async (steps) => {
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
      { numRuns: 200 },
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
      fc.asyncProperty(fc.array(step, { maxLength: 60 }), async (steps) => {
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
