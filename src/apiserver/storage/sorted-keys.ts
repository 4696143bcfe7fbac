/** Entries per chunk before a chunk splits in two. */
const MAX_CHUNK = 512;

/**
 * A sorted set of strings with O(√n)-ish insert and delete and ordered iteration from any key:
 * a list of sorted chunks (a two-level B-tree). Lists serve keys in etcd's range order.
 *
 * Invariants: every chunk is non-empty and sorted; the last key of chunk i is less than the
 * first key of chunk i+1; no key appears twice; `#size` is the total number of keys.
 */
export class SortedKeys {
  #chunks: string[][] = [];
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** Adds `key`; returns false if it was already present. */
  add(key: string): boolean {
    if (this.#chunks.length === 0) {
      this.#chunks.push([key]);
      this.#size = 1;
      return true;
    }
    const c = this.#chunkFor(key);
    const chunk = this.#chunks[c]!;
    const i = lowerBound(chunk, key);
    if (chunk[i] === key) return false;
    chunk.splice(i, 0, key);
    this.#size++;
    if (chunk.length > MAX_CHUNK) {
      this.#chunks.splice(c + 1, 0, chunk.splice(chunk.length >> 1));
    }
    return true;
  }

  /** Removes `key`; returns false if it was absent. */
  delete(key: string): boolean {
    if (this.#chunks.length === 0) return false;
    const c = this.#chunkFor(key);
    const chunk = this.#chunks[c]!;
    const i = lowerBound(chunk, key);
    if (chunk[i] !== key) return false;
    chunk.splice(i, 1);
    this.#size--;
    if (chunk.length === 0) this.#chunks.splice(c, 1);
    return true;
  }

  /** Keys ≥ `from`, ascending. The set must not change while iterating. */
  *from(from: string): IterableIterator<string> {
    if (this.#chunks.length === 0) return;
    let c = this.#chunkFor(from);
    let i = lowerBound(this.#chunks[c]!, from);
    for (; c < this.#chunks.length; c++, i = 0) {
      const chunk = this.#chunks[c]!;
      for (; i < chunk.length; i++) yield chunk[i]!;
    }
  }

  /** The index of the chunk that holds, or would hold, `key`. */
  #chunkFor(key: string): number {
    let lo = 0;
    let hi = this.#chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const chunk = this.#chunks[mid]!;
      if (chunk[chunk.length - 1]! < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

function lowerBound(a: readonly string[], key: string): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
