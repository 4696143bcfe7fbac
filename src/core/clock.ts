/**
 * Time, injected. Everything in kontroller that waits or stamps time takes a `Clock`, so tests
 * drive time with `FakeClock` (kontroller/testing) instead of sleeping.
 *
 * Guarantees every implementation keeps (tested by the shared clock conformance suite):
 * - `now()` never goes backwards between two calls.
 * - A timer never fires before `now()` has reached the time it was due.
 * - Timers fire in order of due time; timers due at the same time fire in the order they were set.
 * - A cancelled timer never fires; cancelling twice, or after it fired, does nothing.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /**
   * Calls `fn` once, `delayMs` from now (a negative or zero delay means "as soon as possible",
   * never synchronously). Returns a function that cancels the timer.
   */
  setTimer(delayMs: number, fn: () => void): CancelTimer;
}

/** Cancels a timer set with {@link Clock.setTimer}. Idempotent. */
export type CancelTimer = () => void;

/** Node's `setTimeout` cannot wait longer than this; longer waits are chained. */
const MAX_NODE_DELAY_MS = 2 ** 31 - 1;

/**
 * The real clock: `Date.now()` and Node timers.
 *
 * Node timers run on a monotonic clock and `Date.now()` is the wall clock, so a timer can
 * fire a millisecond before `Date.now()` shows its due time; such a timer is re-armed for the
 * remainder, so that the "never early" guarantee holds by this clock's own `now()`.
 */
class RealClock implements Clock {
  #last = 0;

  now(): number {
    // Monotonic by construction: a wall-clock step backwards holds time still instead.
    const t = Date.now();
    if (t > this.#last) this.#last = t;
    return this.#last;
  }

  setTimer(delayMs: number, fn: () => void): CancelTimer {
    const due = this.now() + Math.max(0, delayMs);
    let handle: NodeJS.Timeout | undefined;
    let cancelled = false;
    const arm = (ms: number) => {
      handle = setTimeout(fire, Math.min(Math.max(0, ms), MAX_NODE_DELAY_MS));
    };
    const fire = () => {
      if (cancelled) return;
      const remaining = due - this.now();
      if (remaining > 0) {
        arm(remaining);
        return;
      }
      cancelled = true;
      fn();
    };
    arm(due - this.now());
    return () => {
      cancelled = true;
      if (handle !== undefined) clearTimeout(handle);
    };
  }
}

/** The process-wide real clock. Stateless apart from its monotonic guard, so sharing is safe. */
export const realClock: Clock = new RealClock();
