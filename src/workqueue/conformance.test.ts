import { queueConformance, strategyConformance } from "../testing/index.ts";
import { runConformanceWithNodeTest } from "../testing/node-test.ts";
import { DelayingQueue } from "./delaying-queue.ts";
import { FairStrategy } from "./fair-strategy.ts";
import { PriorityQueue } from "./priority-queue.ts";
import { Queue } from "./queue.ts";
import { RateLimitingQueue } from "./rate-limiting-queue.ts";
import { FifoStrategy } from "./strategy.ts";
import { TwoLaneStrategy } from "./two-lane-strategy.ts";

// Every queue, with its default (FIFO) order and what it supports: a plain Queue's delay and
// rate-limit cases are reported as skipped, not applicable.
runConformanceWithNodeTest(queueConformance, {
  name: "Queue",
  supports: [],
  make: ({ clock }) => new Queue<string>({ clock }),
});
runConformanceWithNodeTest(queueConformance, {
  name: "DelayingQueue",
  supports: ["delaying"],
  make: ({ clock }) => new DelayingQueue<string>({ clock }),
});
runConformanceWithNodeTest(queueConformance, {
  name: "RateLimitingQueue",
  supports: ["delaying", "rateLimiting"],
  make: ({ clock, rateLimiter }) => new RateLimitingQueue<string>({ clock, rateLimiter }),
});
runConformanceWithNodeTest(queueConformance, {
  name: "PriorityQueue",
  supports: ["delaying", "rateLimiting"],
  make: ({ clock, rateLimiter }) => new PriorityQueue<string>({ clock, rateLimiter }),
});

// Every strategy: the calling protocol, then the suite on a rate-limiting queue using it.
for (const subject of [
  { name: "FifoStrategy", makeStrategy: () => new FifoStrategy<string>() },
  {
    name: "TwoLaneStrategy, all slow",
    makeStrategy: () => new TwoLaneStrategy<string>({ isFast: () => false }),
  },
  {
    name: "TwoLaneStrategy, all fast",
    makeStrategy: () => new TwoLaneStrategy<string>({ isFast: () => true }),
  },
  {
    name: "TwoLaneStrategy, mixed",
    makeStrategy: () => new TwoLaneStrategy<string>({ isFast: (k) => k.charCodeAt(0) % 2 === 0 }),
    fifo: false,
  },
  {
    name: "FairStrategy, one tenant",
    makeStrategy: () => new FairStrategy<string>({ tenantOf: () => "ns" }),
  },
  {
    name: "FairStrategy, a tenant per item",
    makeStrategy: () => new FairStrategy<string>({ tenantOf: (k) => k }),
  },
  {
    name: "FairStrategy, mixed",
    makeStrategy: () => new FairStrategy<string>({ tenantOf: (k) => String(k.charCodeAt(0) % 2) }),
    fifo: false,
  },
]) {
  runConformanceWithNodeTest(strategyConformance, subject);
}
