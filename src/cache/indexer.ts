/**
 * The writer of an informer's cache: objects by key, plus secondary indexes. Only the informer's
 * processing loop holds an `Indexer`; everyone else gets {@link Indexer.readOnly}.
 */
import { checkFunction, InvalidOptionError, type KubeObject, keyOf } from "../core/index.ts";
import { type Indexers, type IndexFunc, NAMESPACE_INDEX, type Store } from "./store.ts";

/** Options for {@link Indexer}. */
export interface IndexerOptions<T extends KubeObject> {
  /**
   * Extra indexes, by name. The `namespace` index is always present.
   * @default {}
   */
  indexers?: Indexers<T>;
  /**
   * Called when an index function throws: the object is still cached, but not filed in that
   * index. By default the error is dropped; informers report it.
   */
  onIndexError?: (indexName: string, obj: T, error: unknown) => void;
}

type Index = Map<string, Set<string>>;
/** Namespace (`""` for cluster scope) → name → object. */
type Objects<T> = Map<string, Map<string, T>>;

/** The content a {@link Indexer.replace} swapped out, for the caller to diff. */
export interface ReplacedContent<T> {
  /** How many objects were cached. */
  readonly size: number;
  /** The object that was cached under namespace and name. */
  get(namespace: string, name: string): T | undefined;
  /** Calls `fn` for every object that was cached. */
  forEach(fn: (obj: T, namespace: string, name: string) => void): void;
}

function nsOf(obj: KubeObject): string {
  return obj.metadata?.namespace ?? "";
}

function nameOf(obj: KubeObject): string {
  const name = obj.metadata?.name;
  if (name === undefined || name === "") {
    throw new TypeError(`cannot cache a ${obj.kind ?? "object"} without metadata.name`);
  }
  return name;
}

/** Splits a key into namespace (`""` for cluster scope) and name, without validating. */
function split(key: string): [string, string] {
  const slash = key.indexOf("/");
  return slash < 0 ? ["", key] : [key.slice(0, slash), key.slice(slash + 1)];
}

/**
 * A keyed cache with secondary indexes (client-go's `threadSafeMap` with its `Indexer` methods).
 *
 * Objects are held by namespace, then name, so the `namespace` index costs nothing and no key
 * string is kept per object (keys are `namespace/name`, or `name` for cluster scope, built when
 * asked for).
 *
 * Invariants: `#objects` holds each cached object once, under its namespace and name, and no
 * empty inner map; `#size` is their count; for every custom index `i` and cached object `o`
 * with key `k`, `k` is in `#indices.get(i).get(v)` exactly for the values `v` that `i`'s
 * function returns for `o` (when it does not throw); a value with no keys has no entry, so
 * high-cardinality indexes do not leak.
 */
export class Indexer<T extends KubeObject> implements Store<T> {
  #objects: Objects<T> = new Map();
  #size = 0;
  readonly #indexers = new Map<string, IndexFunc<T>>();
  readonly #indices = new Map<string, Index>();
  readonly #onIndexError: (indexName: string, obj: T, error: unknown) => void;
  #resourceVersion = "";
  #view: Store<T> | undefined;

  constructor(options: IndexerOptions<T> = {}) {
    this.#onIndexError =
      checkFunction("Indexer", "onIndexError", options.onIndexError) ?? (() => {});
    const indexers = options.indexers ?? {};
    if (typeof indexers !== "object" || indexers === null) {
      throw new InvalidOptionError("Indexer", "indexers", indexers, "must be an object");
    }
    for (const [name, fn] of Object.entries(indexers)) {
      if (typeof fn !== "function") {
        throw new InvalidOptionError("Indexer", `indexers.${name}`, fn, "must be a function");
      }
      if (name === NAMESPACE_INDEX) {
        throw new InvalidOptionError("Indexer", "indexers", name, "must not redefine the index");
      }
    }
    this.addIndexers(indexers);
  }

  get size(): number {
    return this.#size;
  }

  get resourceVersion(): string {
    return this.#resourceVersion;
  }

  /** Records the resourceVersion the cache now reflects. */
  setResourceVersion(rv: string): void {
    this.#resourceVersion = rv;
  }

  get(key: string): T | undefined {
    const [ns, name] = split(key);
    return this.#objects.get(ns)?.get(name);
  }

  /** The object cached under `namespace` (`""` for cluster scope) and `name`. */
  getIn(namespace: string, name: string): T | undefined {
    return this.#objects.get(namespace)?.get(name);
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  list(): T[] {
    const out: T[] = [];
    for (const inner of this.#objects.values()) for (const o of inner.values()) out.push(o);
    return out;
  }

  listKeys(): string[] {
    const out: string[] = [];
    for (const [ns, inner] of this.#objects)
      for (const name of inner.keys()) out.push(keyOf(ns, name));
    return out;
  }

  byIndex(indexName: string, value: string): T[] {
    if (indexName === NAMESPACE_INDEX)
      return value === "" ? [] : [...(this.#objects.get(value)?.values() ?? [])];
    const keys = this.#index(indexName).get(value);
    if (keys === undefined) return [];
    const out: T[] = [];
    for (const k of keys) out.push(this.get(k)!);
    return out;
  }

  indexKeys(indexName: string, value: string): string[] {
    if (indexName === NAMESPACE_INDEX) {
      return value === ""
        ? []
        : [...(this.#objects.get(value)?.keys() ?? [])].map((n) => keyOf(value, n));
    }
    const keys = this.#index(indexName).get(value);
    return keys === undefined ? [] : [...keys];
  }

  listIndexFuncValues(indexName: string): string[] {
    if (indexName === NAMESPACE_INDEX) return [...this.#objects.keys()].filter((ns) => ns !== "");
    return [...this.#index(indexName).keys()];
  }

  index(indexName: string, obj: T): T[] {
    if (indexName === NAMESPACE_INDEX) return this.byIndex(indexName, nsOf(obj));
    const index = this.#index(indexName);
    const keys = new Set<string>();
    for (const v of this.#values(indexName, this.#indexers.get(indexName)!, obj)) {
      for (const k of index.get(v) ?? []) keys.add(k);
    }
    return [...keys].map((k) => this.get(k)!);
  }

  /** True if an index of this name exists (`namespace` always does). */
  hasIndex(name: string): boolean {
    return name === NAMESPACE_INDEX || this.#indexers.has(name);
  }

  /**
   * Adds indexes; existing objects are filed in them at once. Throws a `RangeError` if a name
   * is taken.
   */
  addIndexers(indexers: Indexers<T>): void {
    for (const name of Object.keys(indexers)) {
      if (this.hasIndex(name))
        throw new RangeError(`an index named ${JSON.stringify(name)} already exists`);
    }
    for (const [name, fn] of Object.entries(indexers)) {
      this.#indexers.set(name, fn);
      const index: Index = new Map();
      this.#indices.set(name, index);
      for (const [ns, inner] of this.#objects) {
        for (const [n, obj] of inner) this.#file(name, fn, index, keyOf(ns, n), obj);
      }
    }
  }

  /** Adds or replaces `obj` under its namespace and name; returns the object it replaced. */
  upsert(obj: T): T | undefined {
    const ns = nsOf(obj);
    const name = nameOf(obj);
    let inner = this.#objects.get(ns);
    if (inner === undefined) {
      inner = new Map();
      this.#objects.set(ns, inner);
    }
    const old = inner.get(name);
    inner.set(name, obj);
    if (old === undefined) this.#size++;
    if (this.#indexers.size > 0) {
      const key = keyOf(ns, name);
      for (const [index, fn] of this.#indexers) {
        const entries = this.#indices.get(index)!;
        if (old !== undefined) this.#unfile(index, fn, entries, key, old);
        this.#file(index, fn, entries, key, obj);
      }
    }
    return old;
  }

  /** Removes the object under `key`; returns it, if it was cached. */
  delete(key: string): T | undefined {
    const [ns, name] = split(key);
    return this.deleteIn(ns, name);
  }

  /** Removes the object under `namespace` (`""` for cluster scope) and `name`. */
  deleteIn(ns: string, name: string): T | undefined {
    const inner = this.#objects.get(ns);
    const old = inner?.get(name);
    if (old === undefined) return undefined;
    inner!.delete(name);
    if (inner!.size === 0) this.#objects.delete(ns);
    this.#size--;
    if (this.#indexers.size > 0) {
      const key = keyOf(ns, name);
      for (const [index, fn] of this.#indexers)
        this.#unfile(index, fn, this.#indices.get(index)!, key, old);
    }
    return old;
  }

  /**
   * Swaps the whole content for `objects` at resourceVersion `rv`, rebuilding every index.
   * Returns the previous content, for the caller to diff.
   */
  replace(objects: readonly T[], rv: string): ReplacedContent<T> {
    const old = this.#objects;
    const oldSize = this.#size;
    const next: Objects<T> = new Map();
    // Lists come grouped by namespace: look the inner map up only when the namespace changes.
    let lastNs: string | undefined;
    let inner: Map<string, T> | undefined;
    for (const obj of objects) {
      const ns = nsOf(obj);
      if (ns !== lastNs || inner === undefined) {
        inner = next.get(ns);
        if (inner === undefined) {
          inner = new Map();
          next.set(ns, inner);
        }
        lastNs = ns;
      }
      inner.set(nameOf(obj), obj);
    }
    let size = 0;
    for (const names of next.values()) size += names.size;
    this.#objects = next;
    this.#size = size;
    for (const [index, fn] of this.#indexers) {
      const entries: Index = new Map();
      this.#indices.set(index, entries);
      for (const [ns, inner] of next)
        for (const [n, obj] of inner) this.#file(index, fn, entries, keyOf(ns, n), obj);
    }
    this.#resourceVersion = rv;
    return {
      size: oldSize,
      get: (ns, name) => old.get(ns)?.get(name),
      forEach: (fn) => {
        for (const [ns, inner] of old) for (const [name, obj] of inner) fn(obj, ns, name);
      },
    };
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
      const names = [NAMESPACE_INDEX, ...this.#indices.keys()].join(", ");
      throw new RangeError(`no index named ${JSON.stringify(name)}; indexes: ${names}`);
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
