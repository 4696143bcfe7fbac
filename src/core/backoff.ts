import { checkNumber, type NumberBounds } from "./options.ts";

/** Options for {@link Backoff}. Defaults are client-go's reflector backoff. */
export interface BackoffOptions {
  /**
   * The first delay.
   * @default 800
   */
  initialMs?: number;
  /**
   * Each failure multiplies the base delay by this.
   * @default 2
   */
  factor?: number;
  /**
   * The base delay never exceeds this (the jittered delay may, by up to `jitter` times it).
   * @default 30000
   */
  maxMs?: number;
  /**
   * Each delay is the base delay plus a random share of up to `jitter` times it; 0 for none.
   * @default 1
   */
  jitter?: number;
  /**
   * After this long without a failure, the next delay starts again from `initialMs`.
   * @default 120000
   */
  resetAfterMs?: number;
  /**
   * The random source, returning a number in [0, 1).
   * @default Math.random
   */
  random?: () => number;
}

/**
 * Exponential backoff with jitter, as a pure component: it never reads a clock or sleeps; the
 * caller passes the time of each failure and waits the returned delay with its own clock.
 *
 * With the defaults, successive delays have base 0.8, 1.6, 3.2, … capped at 30 s, each plus
 * up to 100 % jitter; a failure more than 2 min after the previous one starts over at 0.8 s.
 */
export class Backoff {
  readonly #initialMs: number;
  readonly #factor: number;
  readonly #maxMs: number;
  readonly #jitter: number;
  readonly #resetAfterMs: number;
  readonly #random: () => number;
  #baseMs: number;
  #lastFailureMs: number | undefined;

  constructor(options: BackoffOptions = {}) {
    const check = (name: string, value: number, bounds: NumberBounds) =>
      checkNumber("Backoff", name, value, bounds);
    this.#initialMs = check("initialMs", options.initialMs ?? 800, { above: 0 });
    this.#factor = check("factor", options.factor ?? 2, { min: 1 });
    this.#maxMs = check("maxMs", options.maxMs ?? 30_000, { min: this.#initialMs });
    this.#jitter = check("jitter", options.jitter ?? 1, { min: 0 });
    this.#resetAfterMs = check("resetAfterMs", options.resetAfterMs ?? 120_000, {
      min: 0,
      infinite: true,
    });
    this.#random = options.random ?? Math.random;
    this.#baseMs = this.#initialMs;
  }

  /** Records a failure at `nowMs` and returns how long to wait before the next attempt. */
  next(nowMs: number): number {
    if (this.#lastFailureMs !== undefined && nowMs - this.#lastFailureMs > this.#resetAfterMs) {
      this.#baseMs = this.#initialMs;
    }
    this.#lastFailureMs = nowMs;
    const base = this.#baseMs;
    this.#baseMs = Math.min(base * this.#factor, this.#maxMs);
    return base + this.#random() * this.#jitter * base;
  }

  /** Starts over: the next delay is `initialMs` (plus jitter). */
  reset(): void {
    this.#baseMs = this.#initialMs;
    this.#lastFailureMs = undefined;
  }
}
