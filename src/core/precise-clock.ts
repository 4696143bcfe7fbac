import type { CancelTimer, Clock } from "./clock.ts";
import { Heap } from "./heap.ts";

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
 * All its timers wait in one heap, earliest first (ties in the order they were set), behind a
 * single wake-up: a `setTimeout` for the whole milliseconds to the earliest, then `setImmediate`
 * turns for the last fraction. A wake-up fires every timer that is due, in heap order, so a
 * timer fires a few microseconds after it is due instead of up to two milliseconds late, never
 * early, and never before an earlier one — even when Node's timers, which measure from a
 * cached loop time, wake up early or late. The price is up to about one millisecond of
 * event-loop turns per wake-up. Keeps the `Clock` guarantees (the conformance suite runs on it).
 *
 * Invariant: `#timers` holds exactly the live timers; a wake-up is armed whenever it is non-empty,
 * and none is armed when it is empty (outside a wake-up), so the clock holds no process open.
 */
class PreciseClock implements Clock {
  readonly #timers = new Heap<PreciseTimer>(
    (a, b) => a.due < b.due || (a.due === b.due && a.seq < b.seq),
  );
  #seq = 0;
  #timeout: NodeJS.Timeout | undefined;
  #immediate: NodeJS.Immediate | undefined;
  /** The due time the armed wake-up is for. */
  #armedFor = Number.POSITIVE_INFINITY;

  now(): number {
    return performance.timeOrigin + performance.now();
  }

  setTimer(delayMs: number, fn: () => void): CancelTimer {
    const node = this.#timers.push({
      due: performance.now() + Math.max(0, delayMs),
      seq: this.#seq++,
      fn,
    });
    // Never synchronously: even a due timer fires from a wake-up.
    if (node.value.due < this.#armedFor) this.#arm();
    return () => {
      // Re-arm when the timer the wake-up waits for goes: a cancelled hour-long timer must not
      // keep an idle process alive for that hour.
      if (this.#timers.remove(node) && node.value.due <= this.#armedFor) this.#arm();
    };
  }

  /** Arms the one wake-up for the earliest timer (replacing any other). */
  #arm(): void {
    if (this.#timeout !== undefined) clearTimeout(this.#timeout);
    if (this.#immediate !== undefined) clearImmediate(this.#immediate);
    this.#timeout = undefined;
    this.#immediate = undefined;
    const first = this.#timers.peek();
    this.#armedFor = first?.due ?? Number.POSITIVE_INFINITY;
    if (first === undefined) return;
    const remaining = first.due - performance.now();
    if (remaining >= 1) {
      this.#timeout = setTimeout(this.#wake, Math.min(Math.floor(remaining), MAX_NODE_DELAY_MS));
    } else {
      this.#immediate = setImmediate(this.#wake);
    }
  }

  /** Fires every due timer in order, then arms the next wake-up. */
  readonly #wake = (): void => {
    this.#timeout = undefined;
    this.#immediate = undefined;
    this.#armedFor = Number.POSITIVE_INFINITY;
    for (
      let t = this.#timers.peek();
      t !== undefined && t.due <= performance.now();
      t = this.#timers.peek()
    ) {
      this.#timers.pop();
      t.fn();
    }
    if (this.#armedFor === Number.POSITIVE_INFINITY) this.#arm();
  };
}

interface PreciseTimer {
  readonly due: number;
  readonly seq: number;
  readonly fn: () => void;
}

/** The process-wide precise clock. Its only state is the timers about to fire. */
export const preciseClock: Clock = new PreciseClock();
