import { InvalidOptionError } from "../core/index.ts";

/**
 * Decides how long an item waits before it is retried (client-go's `RateLimiter`). A
 * `RateLimitingQueue` calls `when` on every `addRateLimited`, `forget` when the item succeeded,
 * and `numRequeues` when asked. Per-item state must be dropped by `forget`, so that memory is
 * bounded by the items that are failing.
 */
export interface RateLimiter<T> {
  /** How many ms `item` must wait now; counts one more failure of it. */
  when(item: T): number;
  /** Forgets `item`'s failures: its next delay starts from the beginning. */
  forget(item: T): void;
  /** How many failures of `item` were counted since it was last forgotten. */
  numRequeues(item: T): number;
}

/**
 * Throws an {@link InvalidOptionError} naming `option` unless `limiter` has `when`, `forget` and
 * `numRequeues`.
 */
export function checkRateLimiter<T>(
  owner: string,
  option: string,
  limiter: RateLimiter<T>,
): RateLimiter<T> {
  const methods = ["when", "forget", "numRequeues"] as const;
  const missing =
    typeof limiter === "object" && limiter !== null
      ? methods.filter((m) => typeof limiter[m] !== "function")
      : [...methods];
  if (missing.length > 0) {
    throw new InvalidOptionError(
      owner,
      option,
      limiter,
      `must be a RateLimiter (missing ${missing.join(", ")})`,
    );
  }
  return limiter;
}
