import { type CancelTimer, type Clock, checkNumber } from "../core/index.ts";
import { Heap, type HeapNode } from "../core/internal.ts";

interface FakeTimer {
  readonly due: number;
  /** Order of creation: breaks ties between timers due at the same time. */
  readonly seq: number;
  readonly fn: () => void;
}

const earlier = (a: FakeTimer, b: FakeTimer) => a.due < b.due || (a.due === b.due && a.seq < b.seq);

/** Options for {@link FakeClock}. */
export interface FakeClockOptions {
  /**
   * The time the clock starts at, in ms since the epoch.
   * @default 1767225600000 (2026-01-01T00:00:00Z)
   */
  startMs?: number;
}

/**
 * A clock that moves only when a test moves it.
 *
 * `advance(ms)` fires every timer that comes due within the step, in due-time order (ties in
 * the order they were set), with `now()` equal to each timer's due time while it runs; a timer
 * set by a firing callback that falls due within the same step fires in that step too. Timers
 * set with a delay of zero or less are due at `now()` and fire on the next `advance`, even
 * `advance(0)` — never synchronously inside `setTimer`.
 *
 * Invariant: `#timers` holds only live (not cancelled, not fired) timers, earliest first.
 */
export class FakeClock implements Clock {
  #now: number;
  #seq = 0;
  readonly #timers = new Heap<FakeTimer>(earlier);

  constructor(options: FakeClockOptions = {}) {
    this.#now = checkNumber("FakeClock", "startMs", options.startMs ?? Date.UTC(2026, 0, 1), {});
  }

  now(): number {
    return this.#now;
  }

  setTimer(delayMs: number, fn: () => void): CancelTimer {
    const node: HeapNode<FakeTimer> = this.#timers.push({
      due: this.#now + Math.max(0, delayMs),
      seq: this.#seq++,
      fn,
    });
    return () => {
      this.#timers.remove(node);
    };
  }

  /** How many timers are set and have neither fired nor been cancelled. */
  get pendingTimers(): number {
    return this.#timers.size;
  }

  /** The due time of the earliest pending timer, or `undefined` when none is pending. */
  nextTimerAt(): number | undefined {
    return this.#timers.peek()?.due;
  }

  /**
   * Moves time forward by `ms`, firing every timer due within the step (see the class comment).
   * Synchronous: promise continuations of fired callbacks run after `advance` returns; use
   * {@link advanceAsync} when a callback's async continuation sets the next timer.
   */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`FakeClock.advance: ms must be >= 0, got ${ms}`);
    const target = this.#now + ms;
    for (let t = this.#takeDue(target); t !== undefined; t = this.#takeDue(target)) {
      this.#now = t.due;
      t.fn();
    }
    this.#now = target;
  }

  /**
   * Like {@link advance}, but lets pending promise continuations and I/O callbacks run after each
   * fired timer, so timers set by async code that reacts to a timer also fire within the step.
   */
  async advanceAsync(ms: number): Promise<void> {
    if (!(ms >= 0)) throw new RangeError(`FakeClock.advanceAsync: ms must be >= 0, got ${ms}`);
    const target = this.#now + ms;
    await flushEventLoop();
    for (let t = this.#takeDue(target); t !== undefined; t = this.#takeDue(target)) {
      this.#now = t.due;
      t.fn();
      await flushEventLoop();
    }
    this.#now = target;
  }

  /** Advances to the earliest pending timer and fires the timers due then. Returns false if none. */
  async runNextAsync(): Promise<boolean> {
    const next = this.nextTimerAt();
    if (next === undefined) return false;
    await this.advanceAsync(next - this.#now);
    return true;
  }

  /** Removes and returns the earliest timer due at or before `target`. */
  #takeDue(target: number): FakeTimer | undefined {
    const t = this.#timers.peek();
    if (t === undefined || t.due > target) return undefined;
    return this.#timers.pop();
  }
}

/** Resolves after the microtask queue and one turn of the event loop have run. Not a sleep. */
function flushEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
