import { type Clock, checkNumber, InvalidOptionError } from "../core/index.ts";
import { BucketRateLimiter } from "./bucket-rate-limiter.ts";
import { checkRateLimiter, type RateLimiter } from "./rate-limiter.ts";

/** Options for {@link ItemExponentialFailureRateLimiter}. */
export interface ItemExponentialFailureRateLimiterOptions {
  /**
   * The delay after the first failure; each further failure doubles it. Zero disables delays.
   * @default 5
   */
  baseDelayMs?: number;
  /**
   * The delay never exceeds this.
   * @default 1_000_000 (1000 s)
   */
  maxDelayMs?: number;
}

/**
 * Per item, `baseDelayMs · 2^failures`, capped at `maxDelayMs` (client-go's
 * `ItemExponentialFailureRateLimiter`): with the defaults 5 ms, 10 ms, 20 ms, … reaching the
 * 1000 s cap at the 19th failure. Never overflows: huge failure counts give exactly the cap.
 */
export class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;
  /** Failures per item since it was last forgotten; items never failed have no entry. */
  readonly #failures = new Map<T, number>();

  constructor(options: ItemExponentialFailureRateLimiterOptions = {}) {
    const owner = "ItemExponentialFailureRateLimiter";
    this.#baseDelayMs = checkNumber(owner, "baseDelayMs", options.baseDelayMs ?? 5, { min: 0 });
    this.#maxDelayMs = checkNumber(owner, "maxDelayMs", options.maxDelayMs ?? 1_000_000, {
      min: this.#baseDelayMs,
    });
  }

  when(item: T): number {
    const failures = this.#failures.get(item) ?? 0;
    this.#failures.set(item, failures + 1);
    if (this.#baseDelayMs === 0) return 0;
    const delay = this.#baseDelayMs * 2 ** failures;
    return Math.min(delay, this.#maxDelayMs);
  }

  forget(item: T): void {
    this.#failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.#failures.get(item) ?? 0;
  }
}

/** Options for {@link ItemFastSlowRateLimiter}. */
export interface ItemFastSlowRateLimiterOptions {
  /** The delay of the first `maxFastAttempts` failures of an item. */
  fastDelayMs: number;
  /** The delay of every later failure. */
  slowDelayMs: number;
  /** How many failures get the fast delay. */
  maxFastAttempts: number;
}

/**
 * Per item, `fastDelayMs` for the first `maxFastAttempts` failures, then `slowDelayMs` (client-go's
 * `ItemFastSlowRateLimiter`): quick retries for a blip, then a steady slow pace.
 */
export class ItemFastSlowRateLimiter<T> implements RateLimiter<T> {
  readonly #fastDelayMs: number;
  readonly #slowDelayMs: number;
  readonly #maxFastAttempts: number;
  readonly #failures = new Map<T, number>();

  constructor(options: ItemFastSlowRateLimiterOptions) {
    const owner = "ItemFastSlowRateLimiter";
    this.#fastDelayMs = checkNumber(owner, "fastDelayMs", options?.fastDelayMs, { min: 0 });
    this.#slowDelayMs = checkNumber(owner, "slowDelayMs", options?.slowDelayMs, { min: 0 });
    this.#maxFastAttempts = checkNumber(owner, "maxFastAttempts", options?.maxFastAttempts, {
      min: 0,
      integer: true,
    });
  }

  when(item: T): number {
    const failures = (this.#failures.get(item) ?? 0) + 1;
    this.#failures.set(item, failures);
    return failures <= this.#maxFastAttempts ? this.#fastDelayMs : this.#slowDelayMs;
  }

  forget(item: T): void {
    this.#failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.#failures.get(item) ?? 0;
  }
}

/** Options for {@link MaxOfRateLimiter}. */
export interface MaxOfRateLimiterOptions<T> {
  /** The limiters asked on every `when`; at least one. */
  limiters: readonly RateLimiter<T>[];
}

/**
 * The largest delay of several limiters (client-go's `MaxOfRateLimiter`). Every limiter is asked
 * on every `when`, so each counts the failure (and a bucket spends a token); `numRequeues` is the
 * largest count; `forget` goes to all.
 */
export class MaxOfRateLimiter<T> implements RateLimiter<T> {
  readonly #limiters: readonly RateLimiter<T>[];

  constructor(options: MaxOfRateLimiterOptions<T>) {
    const limiters = options?.limiters;
    if (!Array.isArray(limiters) || limiters.length === 0) {
      throw new InvalidOptionError(
        "MaxOfRateLimiter",
        "limiters",
        Array.isArray(limiters) ? "none" : limiters,
        "must name at least one",
      );
    }
    limiters.forEach((l, i) => {
      checkRateLimiter("MaxOfRateLimiter", `limiters[${i}]`, l);
    });
    this.#limiters = [...limiters];
  }

  when(item: T): number {
    let delay = 0;
    for (const l of this.#limiters) delay = Math.max(delay, l.when(item));
    return delay;
  }

  forget(item: T): void {
    for (const l of this.#limiters) l.forget(item);
  }

  numRequeues(item: T): number {
    let n = 0;
    for (const l of this.#limiters) n = Math.max(n, l.numRequeues(item));
    return n;
  }
}

/** Options for {@link MaxWaitRateLimiter}. */
export interface MaxWaitRateLimiterOptions<T> {
  /** The limiter whose delays are capped; it still counts every failure. */
  limiter: RateLimiter<T>;
  /** No delay is longer than this. */
  maxDelayMs: number;
}

/**
 * Another limiter's delay, capped at `maxDelayMs` (client-go's `WithMaxWaitRateLimiter`): the
 * remedy for the long tail a shared token bucket gives after a mass requeue. `forget` and
 * `numRequeues` go to the wrapped limiter.
 */
export class MaxWaitRateLimiter<T> implements RateLimiter<T> {
  readonly #limiter: RateLimiter<T>;
  readonly #maxDelayMs: number;

  constructor(options: MaxWaitRateLimiterOptions<T>) {
    const owner = "MaxWaitRateLimiter";
    this.#limiter = checkRateLimiter(owner, "limiter", options?.limiter);
    this.#maxDelayMs = checkNumber(owner, "maxDelayMs", options.maxDelayMs, { min: 0 });
  }

  when(item: T): number {
    return Math.min(this.#limiter.when(item), this.#maxDelayMs);
  }

  forget(item: T): void {
    this.#limiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.#limiter.numRequeues(item);
  }
}

/**
 * client-go's default per-item limiter: exponential backoff from 1 ms to 1000 s, with no overall
 * bucket. (`new ItemExponentialFailureRateLimiter()` starts at 5 ms, as controller-runtime.)
 */
export function defaultItemBasedRateLimiter<T>(): RateLimiter<T> {
  return new ItemExponentialFailureRateLimiter<T>({ baseDelayMs: 1, maxDelayMs: 1_000_000 });
}

/** Options for {@link defaultControllerRateLimiter}. */
export interface DefaultControllerRateLimiterOptions {
  /**
   * The clock of the token bucket.
   * @default preciseClock
   */
  clock?: Clock;
}

/**
 * client-go's default controller limiter: the larger of a per-item exponential backoff from 5 ms
 * to 1000 s and an overall token bucket of 10 per second with a burst of 100.
 *
 * Warning: the bucket is shared by all items, so a mass requeue of N items makes the last wait
 * about (N − 100) / 10 s. The `PriorityQueue` defaults to the per-item backoff alone.
 */
export function defaultControllerRateLimiter<T>(
  options: DefaultControllerRateLimiterOptions = {},
): RateLimiter<T> {
  return new MaxOfRateLimiter<T>({
    limiters: [
      new ItemExponentialFailureRateLimiter<T>({ baseDelayMs: 5, maxDelayMs: 1_000_000 }),
      new BucketRateLimiter<T>({
        qps: 10,
        burst: 100,
        ...(options.clock && { clock: options.clock }),
      }),
    ],
  });
}
