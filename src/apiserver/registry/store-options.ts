import type { Clock, GroupResource, KubeObject, StatusCause } from "../../core/index.ts";
import type { ResourceDefinition } from "../../resources/index.ts";
import type { KeyValue, Storage } from "../storage/storage.ts";
import type { WatchEncoder } from "../watchcache/cache-event.ts";
import type { WatchCache } from "../watchcache/watch-cache.ts";
import type { Strategy } from "./strategy.ts";

/** Options of {@link Store}. */
export interface StoreOptions {
  /** The kind at the version this store serves. */
  readonly def: ResourceDefinition;
  readonly storage: Storage;
  /** The watch cache over `prefix` (shared by the versions of one resource). */
  readonly cache: WatchCache;
  /** Storage prefix, ending in `/`. */
  readonly prefix: string;
  readonly strategy: Strategy;
  readonly clock: Clock;
  /** The apiVersion objects are stored at. @default the served apiVersion */
  readonly storageApiVersion?: string;
  /**
   * Admission for writes into a namespace (existence, Terminating).
   * @default none: every namespace is admitted
   */
  readonly admitNamespace?: (namespace: string, gr: GroupResource, name: string) => Promise<void>;
  /**
   * Called once a DELETE has written its effect to storage — the object marked for deletion or
   * gone — with the revision of that write.
   * @default none
   */
  readonly onDeletionWritten?: (name: string, revision: number) => void;
  /** Extra validation (a custom resource's schema), run after the strategy's. @default none */
  readonly validate?: (object: KubeObject) => StatusCause[];
  /**
   * Normalizes an object on write as kube's decoding does: drops the fields its schema does not
   * have (a built-in kind's Go type, a custom resource's structural schema) and applies
   * defaults. Returns the paths of the fields dropped; the store turns them into warnings, or a
   * 400 with fieldValidation=Strict.
   * @default none: every field is kept
   */
  readonly normalize?: (object: KubeObject) => string[];
  /** The encoder for this version's output (rewrites apiVersion for other versions). */
  readonly encoder: WatchEncoder;
  /**
   * How a stored value becomes the object — for custom resources, pruned and defaulted with the
   * storage version's schema, as kube reads them from etcd. The watch cache must decode the same
   * way. @default decodeFromStorage
   */
  readonly decode?: (kv: KeyValue) => KubeObject;
  /** Converts a stored object to this version (the inverse of `toStorage`). @default none */
  readonly fromStorage?: (object: KubeObject) => KubeObject;
  /** Converts an object of this version to the stored form. @default none */
  readonly toStorage?: (object: KubeObject) => KubeObject;
  /** Picks a number in [0, 1) for generated names. @default Math.random */
  readonly random?: () => number;
  /** Work a write does beyond the object's own key (a Service's IPs and ports). @default none */
  readonly lifecycle?: WriteLifecycle;
}

/**
 * What kube's generic store calls BeginCreate, BeginUpdate and AfterDelete: work a write does
 * outside the object's key — claiming a Service's cluster IP and node ports in storage — that
 * must be undone if the write fails. A begin hook runs once the object is prepared and
 * validated, may change it (the values it claimed), and returns the function the store calls
 * with the outcome: true once the object is written, false if it was not (then the claims are
 * released). A dry run checks without claiming.
 */
export interface WriteLifecycle {
  beginCreate?(object: KubeObject, dryRun: boolean): Promise<Finish>;
  beginUpdate?(object: KubeObject, old: KubeObject, dryRun: boolean): Promise<Finish>;
  /** The object is gone from storage (a DELETE, or its last finalizer removed). */
  afterDelete?(object: KubeObject): Promise<void>;
}

/** The end of a write a {@link WriteLifecycle} began: `written` says if it was stored. */
export type Finish = (written: boolean) => Promise<void>;

/**
 * Runs a write a lifecycle began (`finish`, if any), then finishes it with the outcome: written
 * once `write` has called its `stored` callback, not written otherwise (it threw, or stored
 * nothing).
 */
export async function finishing<T>(
  finish: Finish | undefined,
  write: (stored: () => void) => Promise<T>,
): Promise<T> {
  let written = false;
  try {
    return await write(() => {
      written = true;
    });
  } finally {
    await finish?.(written);
  }
}
