/** Work queues for the conformance machinery's own tests: good, plain, and broken. */
import { Queue, RateLimitingQueue } from "../workqueue/index.ts";
import type { QueueSubject } from "./queue-conformance-setup.ts";

/** A broken queue: it drops every add of "b". */
class LosingQueue extends Queue<string> {
  override add(item: string): void {
    if (item !== "b") super.add(item);
  }
}

/** A queue that supports every case of the suite. */
export const everything: QueueSubject = {
  name: "RateLimitingQueue",
  supports: ["delaying", "rateLimiting"],
  make: ({ clock, rateLimiter }) => new RateLimitingQueue<string>({ clock, rateLimiter }),
};

/** A plain queue: no delays, no rate limiting. */
export const plain: QueueSubject = {
  name: "Queue",
  supports: [],
  make: ({ clock }) => new Queue<string>({ clock }),
};

/** A queue that loses an item. */
export const losing: QueueSubject = {
  name: "LosingQueue",
  supports: [],
  make: ({ clock }) => new LosingQueue({ clock }),
};
