/**
 * The writer of an informer's cache: objects by key, plus secondary indexes. Only the informer's
 * processing loop holds an `Indexer`; everyone else gets {@link Indexer.readOnly}.
 */
import { type KubeObject, objectKey } from "../core/index.ts";
import {
  type Indexers,
  type IndexFunc,
  NAMESPACE_INDEX,
  namespaceIndexFunc,
  type Store,
} from "./store.ts";

/** Options for {@link Indexer}. */
export interface IndexerOptions<T extends KubeObject> {
  /**
   * Extra indexes, by name. The `namespace` index is always present.
   * @default {}
   */
  indexers?: Indexers<T>;
  /**
   * Called when an index function throws: the object is still cached, but not filed in that
   * index. The default rethrows nothing and drops the error; informers report it.
   */
  onIndexError?: (indexName: string, obj: T, error: unknown) => void;
}

type Index = Map<string, Set<string>>;

/**
 * A keyed cache with secondary indexes (client-go's `threadSafeMap` with its `Indexer` methods).
 *
 * Invariants: `#items` maps each key to the object stored under it; for every index `i` and
 * every cached object `o` with key `k`, `k` is in `#indices.get(i).get(v)` exactly for the
 * values `v` that `i`'s function returns for `o` (when it does not throw); a value with no keys
 * has no entry, so high-cardinality indexes do not leak.
 */
export class Indexer<T extends KubeObject> implements Store<T> {
  #items = new Map<string, T>();
  readonly #indexers = new Map<string, IndexFunc<T>>();
  readonly #indices = new Map<string, Index>();
  readonly #onIndexError: (indexName: string, obj: T, error: unknown) => void;
  #resourceVersion = "";
  #view: Store<T> | undefined;

  constructor(options: IndexerOptions<T> = {}) {
    this.#onIndexError = options.onIndexError ?? (() => {});
    this.#indexers.set(NAMESPACE_INDEX, namespaceIndexFunc);
    this.#indices.set(NAMESPACE_INDEX, new Map());
    this.addIndexers(options.indexers ?? {});
  }

  get size(): number {
    return this.#items.size;
  }

  get resourceVersion(): string {
    return this.#resourceVersion;
  }

  /** Records the resourceVersion the cache now reflects. */
  setResourceVersion(rv: string): void {
    this.#resourceVersion = rv;
  }

  get(key: string): T | undefined {
    return this.#items.get(key);
  }

  has(key: string): boolean {
    return this.#items.has(key);
  }

  list(): T[] {
    return [...this.#items.values()];
  }

  listKeys(): string[] {
    return [...this.#items.keys()];
  }

  byIndex(indexName: string, value: string): T[] {
    const keys = this.#index(indexName).get(value);
    if (keys === undefined) return [];
    const out: T[] = [];
    for (const k of keys) out.push(this.#items.get(k)!);
    return out;
  }

  indexKeys(indexName: string, value: string): string[] {
    const keys = this.#index(indexName).get(value);
    return keys === undefined ? [] : [...keys];
  }

  listIndexFuncValues(indexName: string): string[] {
    return [...this.#index(indexName).keys()];
  }

  index(indexName: string, obj: T): T[] {
    const index = this.#index(indexName);
    const keys = new Set<string>();
    for (const v of this.#values(indexName, this.#indexers.get(indexName)!, obj)) {
      for (const k of index.get(v) ?? []) keys.add(k);
    }
    return [...keys].map((k) => this.#items.get(k)!);
  }

  /** True if an index of this name exists. */
  hasIndex(name: string): boolean {
    return this.#indexers.has(name);
  }

  /**
   * Adds indexes; existing objects are filed in them at once. Throws a `RangeError` if a name
   * is taken.
   */
  addIndexers(indexers: Indexers<T>): void {
    for (const name of Object.keys(indexers)) {
      if (this.#indexers.has(name))
        throw new RangeError(`an index named ${JSON.stringify(name)} already exists`);
    }
    for (const [name, fn] of Object.entries(indexers)) {
      this.#indexers.set(name, fn);
      const index: Index = new Map();
      this.#indices.set(name, index);
      for (const [key, obj] of this.#items) this.#file(name, fn, index, key, obj);
    }
  }

  /** Adds or replaces `obj` under its key; returns the object it replaced, if any. */
  upsert(obj: T, key: string = objectKey(obj)): T | undefined {
    const old = this.#items.get(key);
    this.#items.set(key, obj);
    for (const [name, fn] of this.#indexers) {
      const index = this.#indices.get(name)!;
      if (old !== undefined) this.#unfile(name, fn, index, key, old);
      this.#file(name, fn, index, key, obj);
    }
    return old;
  }

  /** Removes the object under `key`; returns it, if it was cached. */
  delete(key: string): T | undefined {
    const old = this.#items.get(key);
    if (old === undefined) return undefined;
    this.#items.delete(key);
    for (const [name, fn] of this.#indexers)
      this.#unfile(name, fn, this.#indices.get(name)!, key, old);
    return old;
  }

  /**
   * Swaps the whole content for `objects` at resourceVersion `rv`, rebuilding every index.
   * Returns the previous content (which the caller diffs to notify handlers).
   */
  replace(
    objects: readonly T[],
    rv: string,
    keyOf: (obj: T) => string = objectKey,
  ): Map<string, T> {
    const old = this.#items;
    const items = new Map<string, T>();
    for (const obj of objects) items.set(keyOf(obj), obj);
    this.#items = items;
    for (const [name, fn] of this.#indexers) {
      const index: Index = new Map();
      this.#indices.set(name, index);
      for (const [key, obj] of items) this.#file(name, fn, index, key, obj);
    }
    this.#resourceVersion = rv;
    return old;
  }

  /** A view with the read methods only, for everyone but the writer. */
  readOnly(): Store<T> {
    if (this.#view !== undefined) return this.#view;
    const self = this;
    this.#view = Object.freeze({
      get size() {
        return self.size;
      },
      get resourceVersion() {
        return self.resourceVersion;
      },
      get: (key: string) => self.get(key),
      has: (key: string) => self.has(key),
      list: () => self.list(),
      listKeys: () => self.listKeys(),
      byIndex: (name: string, value: string) => self.byIndex(name, value),
      indexKeys: (name: string, value: string) => self.indexKeys(name, value),
      listIndexFuncValues: (name: string) => self.listIndexFuncValues(name),
      index: (name: string, obj: T) => self.index(name, obj),
    });
    return this.#view;
  }

  #index(name: string): Index {
    const index = this.#indices.get(name);
    if (index === undefined) {
      throw new RangeError(
        `no index named ${JSON.stringify(name)}; indexes: ${[...this.#indices.keys()].join(", ")}`,
      );
    }
    return index;
  }

  #values(name: string, fn: IndexFunc<T>, obj: T): readonly string[] {
    try {
      return fn(obj);
    } catch (err) {
      this.#onIndexError(name, obj, err);
      return [];
    }
  }

  #file(name: string, fn: IndexFunc<T>, index: Index, key: string, obj: T): void {
    for (const v of this.#values(name, fn, obj)) {
      let keys = index.get(v);
      if (keys === undefined) {
        keys = new Set();
        index.set(v, keys);
      }
      keys.add(key);
    }
  }

  #unfile(name: string, fn: IndexFunc<T>, index: Index, key: string, obj: T): void {
    for (const v of this.#values(name, fn, obj)) {
      const keys = index.get(v);
      if (keys === undefined) continue;
      keys.delete(key);
      if (keys.size === 0) index.delete(v);
    }
  }
}
