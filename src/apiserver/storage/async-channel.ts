/**
 * An unbounded single-consumer channel exposed as an async iterator: producers `push` without
 * waiting, the consumer `for await`s. `end()` finishes it after the queued values; `fail(err)`
 * makes the next read throw. Used for storage watches, whose only consumer is a watch cache
 * that keeps up.
 *
 * Invariant: at most one of `#queue` (values nobody asked for yet) and `#waiting` (a read
 * nobody answered yet) is non-empty.
 */
export class AsyncChannel<T> implements AsyncIterableIterator<T> {
  #queue: T[] = [];
  #head = 0;
  #waiting: ((r: IteratorResult<T>) => void) | undefined;
  #waitingReject: ((err: unknown) => void) | undefined;
  #done = false;
  #error: unknown;
  #onReturn: (() => void) | undefined;

  constructor(onReturn?: () => void) {
    this.#onReturn = onReturn;
  }

  /** Queued values not yet read. */
  get pending(): number {
    return this.#queue.length - this.#head;
  }

  /** The newest queued, unread value (to coalesce into it), if any. */
  peekLast(): T | undefined {
    return this.pending > 0 ? this.#queue[this.#queue.length - 1] : undefined;
  }

  /** Replaces the newest queued, unread value. */
  replaceLast(value: T): void {
    if (this.pending > 0) this.#queue[this.#queue.length - 1] = value;
  }

  push(value: T): void {
    if (this.#done) return;
    const waiting = this.#waiting;
    if (waiting !== undefined) {
      this.#waiting = undefined;
      this.#waitingReject = undefined;
      waiting({ value, done: false });
      return;
    }
    this.#queue.push(value);
  }

  /** Ends the channel once the queued values are read. */
  end(): void {
    if (this.#done) return;
    this.#done = true;
    this.#settleWaiter();
  }

  /** Ends the channel: the next read (after the queued values) throws `err`. */
  fail(err: unknown): void {
    if (this.#done) return;
    this.#done = true;
    this.#error = err ?? new Error("channel failed");
    this.#settleWaiter();
  }

  next(): Promise<IteratorResult<T>> {
    if (this.#head < this.#queue.length) {
      const value = this.#queue[this.#head]!;
      this.#queue[this.#head++] = undefined as T;
      if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
        this.#queue = this.#queue.slice(this.#head);
        this.#head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.#done) {
      if (this.#error !== undefined) {
        const err = this.#error;
        this.#error = undefined;
        return Promise.reject(err);
      }
      return Promise.resolve({ value: undefined, done: true });
    }
    return new Promise((resolve, reject) => {
      this.#waiting = resolve;
      this.#waitingReject = reject;
    });
  }

  return(): Promise<IteratorResult<T>> {
    this.#done = true;
    this.#queue = [];
    this.#head = 0;
    this.#error = undefined;
    this.#settleWaiter();
    const onReturn = this.#onReturn;
    this.#onReturn = undefined;
    onReturn?.();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }

  #settleWaiter(): void {
    const resolve = this.#waiting;
    const reject = this.#waitingReject;
    this.#waiting = undefined;
    this.#waitingReject = undefined;
    if (resolve === undefined) return;
    if (this.#error !== undefined) {
      const err = this.#error;
      this.#error = undefined;
      reject!(err);
    } else resolve({ value: undefined, done: true });
  }
}
