import { queueConformance, strategyConformance } from "../testing/index.ts";
import { DelayingQueue } from "./delaying-queue.ts";
import { FairStrategy } from "./fair-strategy.ts";
import { PriorityQueue } from "./priority-queue.ts";
import { Queue } from "./queue.ts";
import { RateLimitingQueue } from "./rate-limiting-queue.ts";
import { FifoStrategy } from "./strategy.ts";
import { TwoLaneStrategy } from "./two-lane-strategy.ts";

// Every queue, with its default (FIFO) order.
queueConformance("Queue", ({ clock }) => new Queue<string>({ clock }));
queueConformance("DelayingQueue", ({ clock }) => new DelayingQueue<string>({ clock }));
queueConformance(
  "RateLimitingQueue",
  ({ clock, rateLimiter }) => new RateLimitingQueue<string>({ clock, rateLimiter }),
);
queueConformance(
  "PriorityQueue",
  ({ clock, rateLimiter }) => new PriorityQueue<string>({ clock, rateLimiter }),
);

// Every strategy: the calling protocol, then the suite on a rate-limiting queue using it.
strategyConformance("FifoStrategy", () => new FifoStrategy<string>());
strategyConformance(
  "TwoLaneStrategy, all slow",
  () => new TwoLaneStrategy({ isFast: () => false }),
);
strategyConformance("TwoLaneStrategy, all fast", () => new TwoLaneStrategy({ isFast: () => true }));
strategyConformance(
  "TwoLaneStrategy, mixed",
  () => new TwoLaneStrategy<string>({ isFast: (k) => k.charCodeAt(0) % 2 === 0 }),
  { fifo: false },
);
strategyConformance("FairStrategy, one tenant", () => new FairStrategy({ tenantOf: () => "ns" }));
strategyConformance(
  "FairStrategy, a tenant per item",
  () => new FairStrategy<string>({ tenantOf: (k) => k }),
);
strategyConformance(
  "FairStrategy, mixed",
  () => new FairStrategy<string>({ tenantOf: (k) => String(k.charCodeAt(0) % 2) }),
  { fifo: false },
);
