import type { CancelTimer, Clock } from "./clock.ts";

/** Node's `setTimeout` cannot wait longer than this; longer waits are chained. */
const MAX_NODE_DELAY_MS = 2 ** 31 - 1;

/**
 * A monotonic clock with sub-millisecond precision, for timing delays.
 *
 * `now()` is `performance.timeOrigin + performance.now()`: milliseconds since the epoch, with a
 * fraction, on the monotonic clock — a wall-clock step (NTP, a suspended VM, a user changing the
 * time) neither stalls nor hurries a delay, whereas `realClock` holds still after a step back.
 * Over long runs it may drift from `Date.now()` by whatever the wall clock was adjusted by.
 *
 * A timer waits with `setTimeout` for the whole milliseconds, then with `setImmediate` turns for
 * the last fraction of a millisecond, so it fires a few microseconds after it is due instead of up
 * to two milliseconds late (Node timers have millisecond resolution and their own notion of
 * "now"); never early. The price is up to about one millisecond of event-loop turns per timer.
 * Keeps the `Clock` guarantees (the clock conformance suite runs against it).
 */
class PreciseClock implements Clock {
  now(): number {
    return performance.timeOrigin + performance.now();
  }

  setTimer(delayMs: number, fn: () => void): CancelTimer {
    const due = performance.now() + Math.max(0, delayMs);
    let timeout: NodeJS.Timeout | undefined;
    let immediate: NodeJS.Immediate | undefined;
    let cancelled = false;
    const check = () => {
      timeout = undefined;
      immediate = undefined;
      if (cancelled) return;
      const remaining = due - performance.now();
      if (remaining >= 1) {
        timeout = setTimeout(check, Math.min(Math.floor(remaining), MAX_NODE_DELAY_MS));
      } else if (remaining > 0) {
        immediate = setImmediate(check);
      } else {
        cancelled = true;
        fn();
      }
    };
    // Never synchronously: even a due timer fires from the event loop.
    if (delayMs >= 1) timeout = setTimeout(check, Math.min(Math.floor(delayMs), MAX_NODE_DELAY_MS));
    else immediate = setImmediate(check);
    return () => {
      cancelled = true;
      if (timeout !== undefined) clearTimeout(timeout);
      if (immediate !== undefined) clearImmediate(immediate);
    };
  }
}

/** The process-wide precise clock. Stateless, so sharing is safe. */
export const preciseClock: Clock = new PreciseClock();
