/**
 * The storage seam of the API server: a revisioned key-value store shaped like etcd's v3 API.
 *
 * Every successful write gets the next value of one global revision counter; the revision of an
 * object's last write is its `resourceVersion`. History is kept (multi-version) until
 * compacted, so a list can be served at a past revision (consistent pages of a paged list) and a
 * watch can start from one. `MemoryStorage` is the embedded default; any backend must pass
 * `storageConformance` from kontroller/testing.
 *
 * Values are opaque strings to the storage (the registry stores JSON without the
 * resourceVersion, and sets it from `modRevision` when it reads).
 */
export interface Storage {
  /** The store's current revision: the revision of its last write (1 when it is new). */
  currentRevision(): Promise<number>;

  /**
   * The value of `key` at `revision` (default: now), or undefined when absent then. Rejects
   * with `StorageError` `Compacted` for a revision older than the compacted one and
   * `FutureRevision` for one the store has not reached.
   */
  get(key: string, options?: { revision?: number }): Promise<KeyValue | undefined>;

  /**
   * The keys that start with `prefix`, in ascending key order, as they were at `revision`
   * (default: now). Errors as {@link get}.
   */
  list(prefix: string, options?: StorageListOptions): Promise<StorageListResult>;

  /** Creates `key` if it is absent (`KeyExists` otherwise); resolves to the new entry. */
  create(key: string, value: string): Promise<KeyValue>;

  /**
   * Replaces the value of `key` if its `modRevision` is still `expectedModRevision`
   * (`Conflict` otherwise, `NotFound` if the key is absent). Resolves to the new entry.
   */
  update(key: string, value: string, expectedModRevision: number): Promise<KeyValue>;

  /**
   * Deletes `key`, if given only while its `modRevision` is `expectedModRevision`
   * (`Conflict`); `NotFound` if absent. Resolves to the deleted entry and the revision of the
   * deletion.
   */
  delete(key: string, expectedModRevision?: number): Promise<DeleteResult>;

  /**
   * Every change to keys under `prefix` with revision ≥ `fromRevision` (default: the next
   * revision), in revision order, as batches. A batch with no events is a progress
   * notification: the store has reached `revision` and nothing under `prefix` changed in
   * between. The iterable ends when `signal` aborts or the store closes; it throws
   * `Compacted` when `fromRevision` is older than the compacted revision.
   */
  watch(prefix: string, options?: StorageWatchOptions): AsyncIterable<WatchBatch>;

  /**
   * Discards history older than `revision`: reads and watches at a revision below it then
   * fail with `Compacted`. Compacting to a revision at or below the current compaction does
   * nothing.
   */
  compact(revision: number): Promise<void>;

  /** The oldest revision still readable (history before it is compacted). */
  compactedRevision(): Promise<number>;

  /** Ends every watch and refuses further calls (`Closed`). Idempotent. */
  close(): Promise<void>;
}

/** One key's value at one revision. */
export interface KeyValue {
  readonly key: string;
  readonly value: string;
  /** Revision of the write that created this key (since it last did not exist). */
  readonly createRevision: number;
  /** Revision of the last write to this key: the object's resourceVersion. */
  readonly modRevision: number;
  /** Number of writes since creation, starting at 1. */
  readonly version: number;
}

/** Options of {@link Storage.list}. */
export interface StorageListOptions {
  /** Read at this revision. @default the current revision */
  revision?: number;
  /** Return at most this many entries (0 or absent: all). */
  limit?: number;
  /** Start at this key (inclusive) instead of at `prefix`. */
  startKey?: string;
  /** Also count the entries after the returned ones (`StorageListResult.remaining`). @default false */
  countRemaining?: boolean;
}

/** What {@link Storage.list} returns. */
export interface StorageListResult {
  readonly kvs: readonly KeyValue[];
  /** The revision the list was read at. */
  readonly revision: number;
  /** True if entries remain after the last one returned. */
  readonly more: boolean;
  /** With `countRemaining`: how many entries remain after the last one returned. */
  readonly remaining?: number;
}

/** What {@link Storage.delete} returns. */
export interface DeleteResult {
  /** The revision of the deletion. */
  readonly revision: number;
  /** The entry as it was just before the deletion. */
  readonly prev: KeyValue;
}

/** Options of {@link Storage.watch}. */
export interface StorageWatchOptions {
  /** First revision to deliver. @default current revision + 1 */
  fromRevision?: number;
  /** Ends the watch. */
  signal?: AbortSignal;
}

/** A change to one key. */
export type StorageEvent =
  | { readonly type: "put"; readonly kv: KeyValue; readonly prev?: KeyValue }
  | {
      readonly type: "delete";
      readonly key: string;
      readonly revision: number;
      readonly prev: KeyValue;
    };

/** A batch of changes; `revision` is the store's revision after them (etcd's header). */
export interface WatchBatch {
  readonly revision: number;
  readonly events: readonly StorageEvent[];
}

/** The revision of a storage event. */
export function eventRevision(event: StorageEvent): number {
  return event.type === "put" ? event.kv.modRevision : event.revision;
}
