/**
 * Work queues against naive baselines, in the same run, on the workloads of issue 3.
 *
 * The baselines (bench/workqueue/naive-*.ts) are what a competent engineer writes from client-go's
 * description: a `Set` of dirty items, a `Set` of items in flight, an array FIFO with a moving head,
 * an `async get`; the rate-limited one adds a `Map` of failure counts and a `setTimeout` per delayed
 * add. Each implementation runs the workloads from its own copy of bench/workqueue/workloads.ts
 * (imported under a distinct URL), so that neither runs on the other's type feedback, and each
 * workload runs once per implementation unmeasured (JIT warm-up) before the measured rounds.
 *
 * Each implementation also keeps one live queue of every kind for the whole run, as a controller
 * does. Without it, the full collection that starts every round (to measure memory) would collect
 * the hidden classes of an implementation whose queues all died during the other's round, and
 * its next round would start from unoptimised code: an artefact of interleaving that penalises
 * whichever implementation has more classes.
 */
import {
  DelayingQueue,
  ItemExponentialFailureRateLimiter,
  Queue,
  RateLimitingQueue,
  TwoLaneStrategy,
} from "kontroller/workqueue";
import type { Measure, Suite, SuiteContext } from "./harness.ts";
import { NaiveQueue } from "./workqueue/naive-queue.ts";
import { NaiveRateLimitingQueue } from "./workqueue/naive-rate-limiting-queue.ts";

type Workloads = typeof import("./workqueue/workloads.ts");

/** A private copy of the workloads module (its own functions, so its own type feedback). */
function workloads(impl: string): Promise<Workloads> {
  return import(new URL(`./workqueue/workloads.ts?impl=${impl}`, import.meta.url).href);
}

/**
 * Runs every implementation once, unmeasured, then compares them: the figures are for code the
 * JIT has optimised, as in a long-running controller, and a deeper call path is not charged for
 * compiling in the first measured round.
 */
async function compareWarm(
  ctx: SuiteContext,
  workload: string,
  impls: Record<string, Measure>,
): Promise<void> {
  for (const measure of Object.values(impls)) await measure();
  await ctx.compare(workload, impls);
}

/** Queues with an item queued, one in flight and (kontroller's) one waiting; shut down at the end. */
function keepAlive(): { shutDown(): void }[] {
  const limiter = () =>
    new ItemExponentialFailureRateLimiter<string>({ baseDelayMs: 0, maxDelayMs: 0 });
  const queues = [
    new Queue<string>(),
    new Queue<string>({ strategy: new TwoLaneStrategy({ isFast: () => false }) }),
    new DelayingQueue<string>(),
    new RateLimitingQueue<string>({ rateLimiter: limiter() }),
    new NaiveQueue<string>(),
    new NaiveRateLimitingQueue<string>(0, 0),
  ];
  for (const q of queues) {
    q.add("kept/in-flight");
    void q.get();
    q.add("kept/queued");
    if (q instanceof DelayingQueue) q.addAfter("kept/waiting", 3_600_000);
  }
  return queues;
}

export const suite: Suite = {
  name: "workqueue",
  description: "Queue, rate-limiting and delaying queues against naive baselines (issue 3 W1–W5)",
  async run(ctx) {
    const k = await workloads("kontroller");
    const naive = await workloads("naive");
    const kept = keepAlive();
    const n = ctx.quick ? 100_000 : 1_000_000;
    const small = ctx.quick ? 20_000 : 100_000;

    await compareWarm(ctx, "W1-fifo-distinct", {
      kontroller: () => k.fifoDistinct(new Queue<string>(), n),
      naive: () => naive.fifoDistinct(new NaiveQueue<string>(), n),
    });
    await compareWarm(ctx, "W2-dedupe-hot", {
      kontroller: () => k.dedupeHot(new Queue<string>(), n, 10_000),
      naive: () => naive.dedupeHot(new NaiveQueue<string>(), n, 10_000),
    });
    await compareWarm(ctx, "W3-workers-4", {
      kontroller: () => k.workers4(new Queue<string>(), n),
      naive: () => naive.workers4(new NaiveQueue<string>(), n),
    });
    const zero = { baseDelayMs: 0, maxDelayMs: 0 };
    await compareWarm(ctx, "W4-rate-limited", {
      kontroller: () =>
        k.rateLimited(
          new RateLimitingQueue<string>({
            rateLimiter: new ItemExponentialFailureRateLimiter(zero),
          }),
          small,
        ),
      naive: () => naive.rateLimited(new NaiveRateLimitingQueue<string>(0, 0), small),
    });
    await compareWarm(ctx, "W5-delaying", {
      kontroller: () => k.delaying(new DelayingQueue<string>(), small, 50),
      naive: () => naive.delaying(new NaiveRateLimitingQueue<string>(0, 0), small, 50),
    });
    const slow = ctx.quick ? 20_000 : 100_000;
    await compareWarm(ctx, "two-lane", {
      "kontroller-fifo": () => k.twoLane(() => new Queue<string>(), slow, 1000),
      "kontroller-two-lane": () =>
        k.twoLane(
          (isFast) => new Queue<string>({ strategy: new TwoLaneStrategy({ isFast }) }),
          slow,
          1000,
        ),
    });
    for (const q of kept) q.shutDown();
  },
};
