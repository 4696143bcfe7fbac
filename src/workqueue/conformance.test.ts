import { queueConformance, strategyConformance } from "../testing/index.ts";
import { DelayingQueue } from "./delaying-queue.ts";
import { Queue } from "./queue.ts";
import { RateLimitingQueue } from "./rate-limiting-queue.ts";
import { FifoStrategy } from "./strategy.ts";

queueConformance("Queue", ({ clock }) => new Queue<string>({ clock }));
queueConformance("DelayingQueue", ({ clock }) => new DelayingQueue<string>({ clock }));
queueConformance(
  "RateLimitingQueue",
  ({ clock, rateLimiter }) => new RateLimitingQueue<string>({ clock, rateLimiter }),
);
strategyConformance("FifoStrategy", () => new FifoStrategy<string>());
