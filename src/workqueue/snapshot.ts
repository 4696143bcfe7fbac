/**
 * A picture of a queue for debugging "why is my key not processed?". Taking one copies every
 * item (O(n)); it is meant for a debug endpoint or a test failure message, not a hot path.
 */
export interface QueueSnapshot<T> {
  /** Ready items, in the order `get()` would hand them out. */
  ready: ReadyEntry<T>[];
  /** Items handed out and not yet `done`, oldest first. */
  inFlight: InFlightEntry<T>[];
  /** Items waiting for a delay (`addAfter`, `addRateLimited`), earliest first. */
  waiting: WaitingEntry<T>[];
  /** The rate limiter's failure count of every item above that has one (`numRequeues > 0`). */
  requeues: RequeueEntry<T>[];
  /** True once `shutDown()` or `shutDownWithDrain()` was called. */
  shuttingDown: boolean;
}

/** An item ready to be handed out. */
export interface ReadyEntry<T> {
  item: T;
  /** The item's priority (a `PriorityQueue` only). */
  priority?: number;
}

/** An item a worker holds. */
export interface InFlightEntry<T> {
  item: T;
  /** When `get()` handed it out, in ms on the queue's clock. */
  sinceMs: number;
  /** Added again while in flight: it is queued again on `done()`. */
  dirty: boolean;
}

/** An item waiting for its delay. */
export interface WaitingEntry<T> {
  item: T;
  /** When it becomes ready, in ms on the queue's clock. */
  readyAtMs: number;
  /** The priority it will have when ready (a `PriorityQueue` only). */
  priority?: number;
}

/** How many times an item was requeued since it was last forgotten. */
export interface RequeueEntry<T> {
  item: T;
  count: number;
}
