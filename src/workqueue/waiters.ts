/** A blocked `get()`: how to settle it, and its links in the list. */
interface Waiter<T> {
  resolve: (value: T | undefined) => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  prev: Waiter<T> | undefined;
  next: Waiter<T> | undefined;
}

/**
 * The blocked `get()` calls of a queue, served first come, first served.
 *
 * A doubly linked list, so that a waiter whose signal aborts leaves the list at once (an idle
 * queue polled with timeouts never accumulates dead waiters). A waiter is in the list exactly
 * while its promise is pending and no one has settled it; its abort listener is removed when it
 * leaves.
 */
export class Waiters<T> {
  #head: Waiter<T> | undefined;
  #tail: Waiter<T> | undefined;
  #size = 0;

  /** How many calls are blocked. */
  get size(): number {
    return this.#size;
  }

  /**
   * A promise settled by {@link resolveNext} or {@link resolveAll}, or rejected with
   * `signal.reason` when `signal` aborts (the caller checks `signal.aborted` beforehand).
   */
  wait(signal: AbortSignal | undefined): Promise<T | undefined> {
    return new Promise<T | undefined>((resolve, reject) => {
      const w: Waiter<T> = {
        resolve,
        reject,
        signal,
        onAbort: undefined,
        prev: this.#tail,
        next: undefined,
      };
      if (signal !== undefined) {
        w.onAbort = () => {
          this.#unlink(w);
          reject(signal.reason);
        };
        signal.addEventListener("abort", w.onAbort, { once: true });
      }
      if (this.#tail === undefined) this.#head = w;
      else this.#tail.next = w;
      this.#tail = w;
      this.#size++;
    });
  }

  /** Resolves the longest-waiting call with `value`. Call only when `size > 0`. */
  resolveNext(value: T): void {
    const w = this.#head!;
    this.#unlink(w);
    w.resolve(value);
  }

  /** Resolves every blocked call with `value`. */
  resolveAll(value: undefined): void {
    while (this.#head !== undefined) {
      const w = this.#head;
      this.#unlink(w);
      w.resolve(value);
    }
  }

  #unlink(w: Waiter<T>): void {
    if (w.onAbort !== undefined) {
      w.signal!.removeEventListener("abort", w.onAbort);
      w.onAbort = undefined;
    }
    if (w.prev === undefined) this.#head = w.next;
    else w.prev.next = w.next;
    if (w.next === undefined) this.#tail = w.prev;
    else w.next.prev = w.prev;
    w.prev = undefined;
    w.next = undefined;
    this.#size--;
  }
}
