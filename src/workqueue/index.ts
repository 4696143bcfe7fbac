/**
 * kontroller/workqueue — work queues with client-go's semantics (dedupe while queued, never two
 * workers on one item), delays, rate limiting, pluggable ordering strategies (FIFO, two-lane,
 * fair), a priority queue, and metrics through core's `QueueMetricsProvider`. Imports only core.
 */
export {
  BucketRateLimiter,
  type BucketRateLimiterOptions,
} from "./bucket-rate-limiter.ts";
export { DelayingQueue, type DelayingQueueOptions } from "./delaying-queue.ts";
export { FairStrategy, type FairStrategyOptions } from "./fair-strategy.ts";
export {
  type PrioritizedItem,
  type PriorityAddOptions,
  PriorityQueue,
  type PriorityQueueOptions,
} from "./priority-queue.ts";
export { type DrainOptions, Queue, type QueueGetOptions, type QueueOptions } from "./queue.ts";
export type { RateLimiter } from "./rate-limiter.ts";
export {
  type DefaultControllerRateLimiterOptions,
  defaultControllerRateLimiter,
  defaultItemBasedRateLimiter,
  ItemExponentialFailureRateLimiter,
  type ItemExponentialFailureRateLimiterOptions,
  ItemFastSlowRateLimiter,
  type ItemFastSlowRateLimiterOptions,
  MaxOfRateLimiter,
  type MaxOfRateLimiterOptions,
  MaxWaitRateLimiter,
  type MaxWaitRateLimiterOptions,
} from "./rate-limiters.ts";
export { RateLimitingQueue, type RateLimitingQueueOptions } from "./rate-limiting-queue.ts";
export type {
  InFlightEntry,
  QueueSnapshot,
  ReadyEntry,
  RequeueEntry,
  WaitingEntry,
} from "./snapshot.ts";
export { FifoStrategy, type QueueStrategy } from "./strategy.ts";
export { TwoLaneStrategy, type TwoLaneStrategyOptions } from "./two-lane-strategy.ts";
