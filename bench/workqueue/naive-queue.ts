/**
 * The naive baseline the work-queue benchmarks compare against: what a competent engineer writes
 * in an afternoon from client-go's description. A `Set` of dirty items, a `Set` of items in
 * flight, and an array as the FIFO (a moving head index with occasional compaction, because
 * `Array.prototype.shift` is O(n) on large arrays). `get` is an `async` method that waits on a
 * promise per blocked call. The rules are client-go's: dedupe while queued, never two workers on
 * one item, an item added while in flight is queued again on `done`, `done` of an item not in
 * flight is ignored, and after shutdown `get` drains what is queued and then returns `undefined`.
 */
export class NaiveQueue<T> {
  #queue: T[] = [];
  #head = 0;
  readonly #dirty = new Set<T>();
  readonly #processing = new Set<T>();
  #waiters: ((wake: undefined) => void)[] = [];
  #shuttingDown = false;

  get size(): number {
    return this.#queue.length - this.#head;
  }

  add(item: T): void {
    if (this.#shuttingDown || this.#dirty.has(item)) return;
    this.#dirty.add(item);
    if (this.#processing.has(item)) return;
    this.#push(item);
  }

  async get(): Promise<T | undefined> {
    while (this.#head === this.#queue.length) {
      if (this.#shuttingDown) return undefined;
      await new Promise<undefined>((resolve) => this.#waiters.push(resolve));
    }
    const item = this.#queue[this.#head]!;
    this.#queue[this.#head++] = undefined as T;
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    this.#processing.add(item);
    this.#dirty.delete(item);
    return item;
  }

  done(item: T): void {
    if (!this.#processing.delete(item)) return;
    if (this.#dirty.has(item)) this.#push(item);
  }

  shutDown(): void {
    this.#shuttingDown = true;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake(undefined);
  }

  #push(item: T): void {
    this.#queue.push(item);
    if (this.#waiters.length > 0) {
      const wake = this.#waiters.shift()!;
      wake(undefined);
    }
  }
}
