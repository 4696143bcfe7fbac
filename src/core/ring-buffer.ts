import { checkNumber } from "./options.ts";

/** Options for {@link RingBuffer}. */
export interface RingBufferOptions {
  /**
   * Slots allocated up front. Rounded up to a power of two.
   * @default 16
   */
  initialCapacity?: number;
  /**
   * The buffer never grows beyond this many entries: once full, `push` evicts the oldest entry.
   * `Infinity` makes an unbounded deque.
   * @default Infinity
   */
  maxCapacity?: number;
}

/**
 * A growable circular buffer: a FIFO deque with O(1) `push`, `shift` and `at`, that doubles its
 * storage when full (up to `maxCapacity`) and, once at `maxCapacity`, overwrites the oldest
 * entry. Used as the work queue's FIFO, the watch cache's event history and per-watcher buffers.
 *
 * Invariants: `#slots.length` is a power of two; the entries are `#slots[(#head + i) & mask]`
 * for `0 <= i < #size`; every other slot is `undefined`, so a removed entry is never retained.
 */
export class RingBuffer<T> {
  #slots: (T | undefined)[];
  #head = 0;
  #size = 0;
  readonly #maxCapacity: number;

  constructor(options: RingBufferOptions = {}) {
    const initial = options.initialCapacity ?? 16;
    const max = options.maxCapacity ?? Number.POSITIVE_INFINITY;
    checkNumber("RingBuffer", "initialCapacity", initial, { min: 1, integer: true });
    checkNumber("RingBuffer", "maxCapacity", max, { min: 1, integer: true, infinite: true });
    this.#maxCapacity = max;
    this.#slots = new Array(nextPowerOfTwo(Math.min(initial, max)));
  }

  /** Number of entries. */
  get size(): number {
    return this.#size;
  }

  /** Slots currently allocated. */
  get capacity(): number {
    return this.#slots.length;
  }

  /** The most entries this buffer holds before it evicts the oldest. */
  get maxCapacity(): number {
    return this.#maxCapacity;
  }

  /**
   * Appends `value`. Grows when full and below `maxCapacity`; otherwise evicts the oldest entry
   * and returns it.
   */
  push(value: T): T | undefined {
    let evicted: T | undefined;
    if (this.#size === this.#slots.length && this.#size < this.#maxCapacity) {
      const capacity = Math.min(this.#slots.length * 2, nextPowerOfTwo(this.#maxCapacity));
      if (capacity <= this.#slots.length) {
        throw new RangeError(`RingBuffer: cannot grow beyond ${this.#slots.length} entries`);
      }
      this.#grow(capacity);
    }
    if (this.#size >= this.#maxCapacity) evicted = this.shift();
    this.#slots[(this.#head + this.#size) & (this.#slots.length - 1)] = value;
    this.#size++;
    return evicted;
  }

  /** Removes and returns the oldest entry. */
  shift(): T | undefined {
    if (this.#size === 0) return undefined;
    const value = this.#slots[this.#head];
    this.#slots[this.#head] = undefined;
    this.#head = (this.#head + 1) & (this.#slots.length - 1);
    this.#size--;
    return value;
  }

  /** Removes and returns the newest entry. */
  pop(): T | undefined {
    if (this.#size === 0) return undefined;
    const i = (this.#head + this.#size - 1) & (this.#slots.length - 1);
    const value = this.#slots[i];
    this.#slots[i] = undefined;
    this.#size--;
    return value;
  }

  /** The entry `index` places from the oldest (negative: from the newest), or undefined. */
  at(index: number): T | undefined {
    const i = index < 0 ? this.#size + index : index;
    if (i < 0 || i >= this.#size) return undefined;
    return this.#slots[(this.#head + i) & (this.#slots.length - 1)];
  }

  /** The oldest entry, without removing it. */
  peek(): T | undefined {
    return this.at(0);
  }

  /** The newest entry, without removing it. */
  peekLast(): T | undefined {
    return this.at(-1);
  }

  /** Removes every entry (keeps the allocated slots). */
  clear(): void {
    this.#slots.fill(undefined);
    this.#head = 0;
    this.#size = 0;
  }

  /** Oldest first. */
  *[Symbol.iterator](): IterableIterator<T> {
    for (let i = 0; i < this.#size; i++) {
      yield this.#slots[(this.#head + i) & (this.#slots.length - 1)] as T;
    }
  }

  /** Copies the entries, oldest first. */
  toArray(): T[] {
    return [...this];
  }

  #grow(capacity: number): void {
    const next = new Array<T | undefined>(capacity);
    for (let i = 0; i < this.#size; i++) {
      next[i] = this.#slots[(this.#head + i) & (this.#slots.length - 1)];
    }
    this.#slots = next;
    this.#head = 0;
  }
}

/** Slot arrays stay within what 32-bit index masking can address. */
const MAX_SLOTS = 2 ** 30;

function nextPowerOfTwo(n: number): number {
  if (n >= MAX_SLOTS) return MAX_SLOTS;
  let p = 1;
  while (p < n) p *= 2;
  return p;
}
