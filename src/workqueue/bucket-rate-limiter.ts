import { type Clock, checkNumber, preciseClock } from "../core/index.ts";
import { checkClock } from "./check-clock.ts";
import type { RateLimiter } from "./rate-limiter.ts";

/** Options for {@link BucketRateLimiter}. */
export interface BucketRateLimiterOptions {
  /** Tokens added per second: the sustained rate. `Infinity` never delays. */
  qps: number;
  /** Tokens the bucket holds; it starts full, so this many calls in a row get no delay. */
  burst: number;
  /**
   * The clock that refills the bucket.
   * @default preciseClock
   */
  clock?: Clock;
}

/**
 * One token bucket for all items (client-go's `BucketRateLimiter`, after golang.org/x/time/rate):
 * each `when` reserves a token and returns how long until it is available. Reservations are never
 * returned, so calls above the rate wait longer and longer. Keeps no per-item state:
 * `numRequeues` is always 0 and `forget` does nothing.
 *
 * Invariant: `#tokens <= burst`; it goes negative when calls outrun the rate, by the number of
 * reserved tokens not yet refilled.
 */
export class BucketRateLimiter<T> implements RateLimiter<T> {
  readonly #qps: number;
  readonly #burst: number;
  readonly #clock: Clock;
  #tokens: number;
  #last: number | undefined;

  constructor(options: BucketRateLimiterOptions) {
    const owner = "BucketRateLimiter";
    this.#qps = checkNumber(owner, "qps", options?.qps, { above: 0, infinite: true });
    this.#burst = checkNumber(owner, "burst", options?.burst, { min: 1, integer: true });
    this.#clock = checkClock(owner, "clock", options.clock) ?? preciseClock;
    this.#tokens = this.#burst;
  }

  when(_item: T): number {
    if (this.#qps === Number.POSITIVE_INFINITY) return 0;
    const now = this.#clock.now();
    if (this.#last !== undefined && now > this.#last) {
      this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#last) * this.#qps) / 1000);
    }
    if (this.#last === undefined || now > this.#last) this.#last = now;
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : (-this.#tokens / this.#qps) * 1000;
  }

  forget(_item: T): void {}

  numRequeues(_item: T): number {
    return 0;
  }
}
