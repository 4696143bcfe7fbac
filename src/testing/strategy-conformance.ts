/**
 * The queue-strategy conformance suite: the protocol between a queue and its `QueueStrategy`,
 * then the whole work-queue suite on a rate-limiting queue that uses the strategy.
 */
import assert from "node:assert/strict";
import { DelayingQueue, type QueueStrategy, RateLimitingQueue } from "../workqueue/index.ts";
import type { ConformanceCase, ConformanceSubject, ConformanceSuite } from "./conformance.ts";
import { FakeClock } from "./fake-clock.ts";
import { queueConformance } from "./queue-conformance.ts";
import type { QueueSubject } from "./queue-conformance-setup.ts";

/** A queue strategy under test. */
export interface StrategySubject extends ConformanceSubject {
  /** Builds a fresh strategy (every case builds its own). */
  makeStrategy(): QueueStrategy<string>;
  /**
   * True when the strategy hands out the items the suite adds in the order they became ready.
   * False checks only which items leave, not their order.
   * @default true
   */
  readonly fifo?: boolean;
}

const protocol: ConformanceCase<StrategySubject> = {
  name: "the queue keeps the strategy's calling protocol: push only a new item or a dirty one on done, pop only when not empty, touch only a queued item",
  async run(s) {
    const inner = s.makeStrategy();
    const held = new Set<string>();
    const calls: string[] = [];
    const spy: QueueStrategy<string> = {
      get size() {
        return inner.size;
      },
      push(item) {
        assert.ok(!held.has(item), `push of ${item}, which the strategy holds`);
        held.add(item);
        calls.push(`push ${item}`);
        inner.push(item);
      },
      pop() {
        assert.ok(inner.size > 0, "pop of an empty strategy");
        const item = inner.pop();
        assert.ok(held.delete(item), `pop returned ${item}, which it was not given`);
        calls.push(`pop ${item}`);
        return item;
      },
      touch(item) {
        assert.ok(held.has(item), `touch of ${item}, which the strategy does not hold`);
        calls.push(`touch ${item}`);
        inner.touch(item);
      },
    };
    const q = new DelayingQueue<string>({ clock: new FakeClock(), strategy: spy });
    q.add("a");
    q.add("a");
    const a = (await q.get())!;
    q.add(a);
    q.add(a);
    q.done(a);
    q.add("b");
    assert.deepEqual(calls, ["push a", "touch a", "pop a", "push a", "push b"]);
    assert.equal(q.size, 2);
  },
};

/** The work-queue subject of a strategy: a rate-limiting queue using it. */
function queueWith(s: StrategySubject): QueueSubject {
  return {
    name: `RateLimitingQueue with ${s.name}`,
    supports: ["delaying", "rateLimiting"],
    make: ({ clock, rateLimiter }) =>
      new RateLimitingQueue<string>({ clock, rateLimiter, strategy: s.makeStrategy() }),
    fifo: s.fifo,
  };
}

/**
 * The behaviour every {@link QueueStrategy} keeps: the queue's calling protocol, then every case
 * of {@link queueConformance} on a `RateLimitingQueue` using the strategy (so none is skipped).
 * `makeStrategy` builds a fresh one per case:
 * `runConformanceWithNodeTest(strategyConformance, { name: "Mine", makeStrategy: () => new Mine() })`.
 */
export const strategyConformance: ConformanceSuite<StrategySubject> = {
  name: "queue strategy conformance",
  cases: [
    protocol,
    ...queueConformance.cases.map(
      (c): ConformanceCase<StrategySubject> => ({
        name: `on a queue: ${c.name}`,
        run: (s) => c.run(queueWith(s)),
      }),
    ),
  ],
};
