import assert from "node:assert/strict";
import {
  type DelayingQueue,
  ItemExponentialFailureRateLimiter,
  type Queue,
  type RateLimiter,
  type RateLimitingQueue,
} from "../workqueue/index.ts";
import type { ConformanceCase, ConformanceSubject } from "./conformance.ts";
import { FakeClock } from "./fake-clock.ts";

/** What the queue suite passes to a queue factory. */
export interface ConformanceSetup {
  /** The clock the queue must use. */
  clock: FakeClock;
  /** The limiter a rate-limiting queue must use (exponential, 1 ms to 1 s). */
  rateLimiter: RateLimiter<string>;
}

/**
 * The optional parts of a work queue the suite checks: `delaying` is `addAfter` (a
 * `DelayingQueue`), `rateLimiting` is `addRateLimited`, `forget` and `numRequeues` (a
 * `RateLimitingQueue`, which delays too).
 */
export type QueueCapability = "delaying" | "rateLimiting";

/** A work queue under test. */
export interface QueueSubject extends ConformanceSubject<QueueCapability> {
  /**
   * What the queue supports, declared: the delay and rate-limit cases run only for a queue that
   * declares them, and are reported as skipped otherwise. `[]` for a plain `Queue`,
   * `["delaying"]` for a `DelayingQueue`, both for a `RateLimitingQueue`.
   */
  readonly supports: readonly QueueCapability[];
  /** Builds a fresh queue (every case builds its own) on the clock and limiter given. */
  make(setup: ConformanceSetup): Queue<string>;
  /**
   * True when the queue hands out the items the suite adds in the order they became ready (every
   * built-in strategy does, for items of one lane, tenant or priority). False checks only which
   * items leave, not their order.
   * @default true
   */
  readonly fifo?: boolean;
}

/** One case of the work-queue suite. */
export type QueueCase = ConformanceCase<QueueSubject, QueueCapability>;

/** A fresh queue of the subject, with its fake clock. */
export function setUp(subject: QueueSubject): { clock: FakeClock; q: Queue<string> } {
  const clock = new FakeClock();
  const rateLimiter = new ItemExponentialFailureRateLimiter<string>({
    baseDelayMs: 1,
    maxDelayMs: 1000,
  });
  return { clock, q: subject.make({ clock, rateLimiter }) };
}

/** True unless the subject declares that it may reorder the items the suite adds. */
export const isFifo = (subject: QueueSubject): boolean => subject.fifo ?? true;

/** The queue as a `DelayingQueue`, once checked to have what the subject declared. */
export function delaying(q: Queue<string>): DelayingQueue<string> {
  const d = q as DelayingQueue<string>;
  assert.equal(typeof d.addAfter, "function", "the queue declares delaying but has no addAfter");
  return d;
}

/** The queue as a `RateLimitingQueue`, once checked to have what the subject declared. */
export function rateLimiting(q: Queue<string>): RateLimitingQueue<string> {
  const r = q as RateLimitingQueue<string>;
  for (const method of ["addRateLimited", "forget", "numRequeues"] as const) {
    assert.equal(
      typeof r[method],
      "function",
      `the queue declares rateLimiting but has no ${method}`,
    );
  }
  return r;
}

/** Gets every ready item (calling `done` on each) until `get` would block or the queue ends. */
export async function drainReady(q: Queue<string>): Promise<string[]> {
  const out: string[] = [];
  while (q.size > 0) {
    const item = (await q.get())!;
    out.push(item);
    q.done(item);
  }
  return out;
}
