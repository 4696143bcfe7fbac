/**
 * The work-queue conformance suite: the behaviour every work queue keeps, runnable against any
 * queue or strategy, by any test runner. Its cases live by topic in queue-conformance-basic.ts,
 * -delays.ts and -rate-limits.ts.
 */
import type { ConformanceSuite } from "./conformance.ts";
import { basicQueueCases } from "./queue-conformance-basic.ts";
import { delayCases } from "./queue-conformance-delays.ts";
import { rateLimitCases } from "./queue-conformance-rate-limits.ts";
import type { QueueCapability, QueueSubject } from "./queue-conformance-setup.ts";

/**
 * The behaviour every work queue keeps — adding and de-duplicating, one worker per item, `done`,
 * both shutdowns, abort signals — and, for a queue that declares them in `supports`, delays
 * (`addAfter`) and rate limiting (`addRateLimited`); each case builds a fresh queue with the
 * subject's `make`. Run it against your own queue or strategy with node:test:
 *
 * ```ts
 * import { queueConformance } from "kontroller/testing";
 * import { runConformanceWithNodeTest } from "kontroller/testing/node-test";
 * runConformanceWithNodeTest(queueConformance, {
 *   name: "Queue with MyStrategy",
 *   supports: ["delaying", "rateLimiting"],
 *   make: ({ clock, rateLimiter }) => new RateLimitingQueue({ clock, rateLimiter, strategy: new MyStrategy() }),
 * });
 * ```
 *
 * or with another runner through `conformanceCases` (see conformance.ts's example).
 */
export const queueConformance: ConformanceSuite<QueueSubject, QueueCapability> = {
  name: "work queue conformance",
  cases: [...basicQueueCases, ...delayCases, ...rateLimitCases],
};
