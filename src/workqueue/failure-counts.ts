/**
 * Failure counts per item, for the per-item rate limiters. Forgetting an item zeroes its count
 * instead of deleting it (deleting from a `Map` shrinks and rehashes its table, the dominant cost
 * of a limiter whose items succeed at once); zeroed entries are dropped in batches.
 *
 * Invariants: `#failing` counts the entries above zero, `#forgotten` the zeroed ones; when the
 * last failing item is forgotten the whole map is dropped, and a sweep keeps at most
 * `SWEEP_RATIO * #failing + SWEEP_MIN` zeroed entries, so memory follows the failing items.
 */
export class FailureCounts<T> {
  #counts = new Map<T, number>();
  #failing = 0;
  #forgotten = 0;

  /** Counts one more failure of `item`; returns how many it had before. */
  increment(item: T): number {
    const n = this.#counts.get(item);
    if (n === undefined || n === 0) {
      this.#failing++;
      if (n === 0) this.#forgotten--;
    }
    const before = n ?? 0;
    this.#counts.set(item, before + 1);
    return before;
  }

  /** Failures of `item` since it was last forgotten. */
  get(item: T): number {
    return this.#counts.get(item) ?? 0;
  }

  /** Forgets `item`'s failures. */
  forget(item: T): void {
    const n = this.#counts.get(item);
    if (n === undefined || n === 0) return;
    this.#failing--;
    if (this.#failing === 0) {
      this.#counts = new Map();
      this.#forgotten = 0;
      return;
    }
    this.#counts.set(item, 0);
    this.#forgotten++;
    if (this.#forgotten > SWEEP_MIN && this.#forgotten > SWEEP_RATIO * this.#failing) this.#sweep();
  }

  /** Entries held, failing or zeroed (for tests). */
  get size(): number {
    return this.#counts.size;
  }

  #sweep(): void {
    const old = this.#counts;
    this.#counts = new Map();
    for (const [item, n] of old) if (n > 0) this.#counts.set(item, n);
    this.#forgotten = 0;
  }
}

const SWEEP_MIN = 1024;
const SWEEP_RATIO = 3;
