/**
 * The read side of an informer's cache: what reconcilers, listers and handlers may see. The
 * writer is the `Indexer`, owned by the informer's processing loop; nobody else can write.
 */
import type { KubeObject } from "../core/index.ts";

/**
 * An index function: the values under which an object is filed in one index (any number of
 * them). It must be deterministic and fast; an object is re-filed when it changes.
 */
export type IndexFunc<T> = (obj: T) => readonly string[];

/** Index name → index function. */
export type Indexers<T> = Readonly<Record<string, IndexFunc<T>>>;

/** The name of the index every informer has: objects by `metadata.namespace`. */
export const NAMESPACE_INDEX = "namespace";

/** Files an object under its namespace; cluster-scoped objects are not filed. */
export function namespaceIndexFunc(obj: KubeObject): readonly string[] {
  const ns = obj.metadata?.namespace;
  return ns ? [ns] : [];
}

/**
 * A read-only view of a cache (client-go's `Store`/`Indexer` read methods).
 *
 * Objects are shared, not copied: treat them as immutable. A reconciler that wants to change
 * an object copies it (`structuredClone`) and writes the copy through the client.
 */
export interface Store<T extends KubeObject> {
  /** How many objects the cache holds. */
  readonly size: number;
  /**
   * The resourceVersion the cache reflects: that of the last list, event or bookmark applied
   * (`""` before the first list).
   */
  readonly resourceVersion: string;
  /** The object with key `namespace/name` (or `name`), if cached. */
  get(key: string): T | undefined;
  has(key: string): boolean;
  /** Every cached object, in no particular order. */
  list(): T[];
  /** Every key. */
  listKeys(): string[];
  /**
   * The objects filed under `value` in index `indexName`. Throws a `RangeError` for an unknown
   * index.
   */
  byIndex(indexName: string, value: string): T[];
  /** The keys filed under `value` in index `indexName`. */
  indexKeys(indexName: string, value: string): string[];
  /** The values under which at least one object is filed in index `indexName`. */
  listIndexFuncValues(indexName: string): string[];
  /** The objects sharing at least one value of index `indexName` with `obj`. */
  index(indexName: string, obj: T): T[];
}
