/** Entries per chunk before a chunk splits in two. */
const MAX_CHUNK = 512;

/** A run of entries in key order: `keys[i]` maps to `values[i]`. */
interface Chunk<V> {
  readonly keys: string[];
  readonly values: V[];
}

/**
 * A map from strings to values with ordered iteration from any key and O(1) lookup: a hash map
 * for `get`, plus a list of sorted chunks (a two-level B-tree) of keys and values for order.
 * Lists serve keys in etcd's range order; all the values under a prefix come out as slices of
 * the chunks, with no lookup per key.
 *
 * Invariants: every chunk is non-empty, its keys sorted and as many as its values; the last key
 * of chunk i is less than the first key of chunk i+1; a key appears in the chunks exactly once
 * exactly when `#byKey` has it, with the same value.
 */
export class SortedMap<V> {
  #chunks: Chunk<V>[] = [];
  readonly #byKey = new Map<string, V>();

  get size(): number {
    return this.#byKey.size;
  }

  get(key: string): V | undefined {
    return this.#byKey.get(key);
  }

  /** Sets `key` to `value`, adding the key in its place if it is new. */
  set(key: string, value: V): void {
    const had = this.#byKey.has(key);
    this.#byKey.set(key, value);
    if (this.#chunks.length === 0) {
      this.#chunks.push({ keys: [key], values: [value] });
      return;
    }
    const c = this.#chunkFor(key);
    const chunk = this.#chunks[c]!;
    const i = lowerBound(chunk.keys, key);
    if (had) {
      chunk.values[i] = value;
      return;
    }
    chunk.keys.splice(i, 0, key);
    chunk.values.splice(i, 0, value);
    if (chunk.keys.length > MAX_CHUNK) {
      const half = chunk.keys.length >> 1;
      this.#chunks.splice(c + 1, 0, {
        keys: chunk.keys.splice(half),
        values: chunk.values.splice(half),
      });
    }
  }

  /** Removes `key`; returns false if it was absent. */
  delete(key: string): boolean {
    if (!this.#byKey.delete(key)) return false;
    const c = this.#chunkFor(key);
    const chunk = this.#chunks[c]!;
    const i = lowerBound(chunk.keys, key);
    chunk.keys.splice(i, 1);
    chunk.values.splice(i, 1);
    if (chunk.keys.length === 0) this.#chunks.splice(c, 1);
    return true;
  }

  clear(): void {
    this.#chunks = [];
    this.#byKey.clear();
  }

  /** Keys ≥ `from`, ascending. The map must not change while iterating. */
  *keysFrom(from: string): IterableIterator<string> {
    if (this.#chunks.length === 0) return;
    let c = this.#chunkFor(from);
    let i = lowerBound(this.#chunks[c]!.keys, from);
    for (; c < this.#chunks.length; c++, i = 0) {
      const keys = this.#chunks[c]!.keys;
      for (; i < keys.length; i++) yield keys[i]!;
    }
  }

  /** The values of the keys that start with `prefix`, in key order. */
  valuesWithPrefix(prefix: string): V[] {
    const out: V[] = [];
    if (this.#chunks.length === 0) return out;
    // The keys starting with a prefix are exactly those in [prefix, end), where end is the
    // prefix with its last code unit raised by one (JavaScript compares strings by code units).
    const last = prefix.length - 1;
    const end =
      last < 0 || prefix.charCodeAt(last) === 0xffff
        ? undefined
        : prefix.slice(0, last) + String.fromCharCode(prefix.charCodeAt(last) + 1);
    let c = this.#chunkFor(prefix);
    let i = lowerBound(this.#chunks[c]!.keys, prefix);
    for (; c < this.#chunks.length; c++, i = 0) {
      const { keys, values } = this.#chunks[c]!;
      const whole = end === undefined || keys[keys.length - 1]! < end;
      const stop = whole ? keys.length : lowerBound(keys, end);
      for (; i < stop; i++) {
        // Past a 0xffff last unit the bound is open: the prefix itself ends the run.
        if (end === undefined && !keys[i]!.startsWith(prefix)) return out;
        out.push(values[i]!);
      }
      if (!whole) break;
    }
    return out;
  }

  /** The index of the chunk that holds, or would hold, `key`. */
  #chunkFor(key: string): number {
    let lo = 0;
    let hi = this.#chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const keys = this.#chunks[mid]!.keys;
      if (keys[keys.length - 1]! < key) lo = mid + 1;
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
