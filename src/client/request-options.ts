/**
 * The options of each ResourceClient call. Every call takes an `AbortSignal`; the names and
 * meanings of the server-side options are the API server's query parameters.
 */
import type { FieldSelector, KubeObject, LabelSelector } from "../core/index.ts";

/** What every call accepts. */
export interface CallOptions {
  /** Aborting rejects the call with `signal.reason` (and closes a watch). */
  signal?: AbortSignal;
}

/** Options of `get`. */
export interface GetOptions extends CallOptions {
  /** `""` (latest, the default), `"0"` (any cached copy) or a resourceVersion to be at least. */
  resourceVersion?: string;
}

/** Selectors shared by list, watch and deleteCollection. */
export interface SelectorOptions {
  /** A label selector, as text (`app=web,tier!=db`) or parsed. */
  labelSelector?: string | LabelSelector;
  /** A field selector, as text (`metadata.name=x`) or parsed. */
  fieldSelector?: string | FieldSelector;
}

/** Options of `list`. */
export interface ListOptions extends CallOptions, SelectorOptions {
  /** `""`/absent: a consistent read; `"0"`: any cached state; `"N"`: see `resourceVersionMatch`. */
  resourceVersion?: string;
  resourceVersionMatch?: "Exact" | "NotOlderThan";
  /** Page size; the server may return fewer, or (at resourceVersion "0") ignore it. */
  limit?: number;
  /** The continue token of the previous page. */
  continue?: string;
  timeoutSeconds?: number;
}

/** Options of `listAll`. */
export interface ListAllOptions extends CallOptions, SelectorOptions {
  resourceVersion?: string;
  resourceVersionMatch?: "Exact" | "NotOlderThan";
  /**
   * Items per page.
   * @default 500
   */
  pageSize?: number;
}

/** One page of a list. */
export interface ListResult<T extends KubeObject> {
  items: T[];
  /** The list's resourceVersion: the snapshot it reflects, from which a watch can start. */
  resourceVersion: string;
  /** Present when more pages follow. */
  continue?: string;
  /** The server's estimate of the items after this page, when it gives one. */
  remainingItemCount?: number;
}

/** Options of `watch`. */
export interface WatchOptions extends CallOptions, SelectorOptions {
  /** Start after this resourceVersion; `""`/`"0"` start with ADDED events for the current state. */
  resourceVersion?: string;
  resourceVersionMatch?: "NotOlderThan";
  /** Ask for BOOKMARK events. */
  allowWatchBookmarks?: boolean;
  /** Streaming list: the current state as ADDED events, then a bookmark ending them. */
  sendInitialEvents?: boolean;
  /** The server closes the watch after this many seconds. */
  timeoutSeconds?: number;
}

/** Options of `create`, `update` and `updateStatus`. */
export interface WriteOptions extends CallOptions {
  /** Validate and admit, but do not persist. */
  dryRun?: boolean;
  /** The field manager recorded in managedFields. */
  fieldManager?: string;
  fieldValidation?: "Ignore" | "Warn" | "Strict";
}

/** Patch flavours, by their content type. */
export type PatchType = "json" | "merge" | "strategic" | "apply";

/** Options of `patch`. */
export interface PatchOptions extends WriteOptions {
  /** Server-side apply only: take ownership of conflicting fields. */
  force?: boolean;
  /** Patch this subresource (`status`) instead of the object. */
  subresource?: string;
}

/** Preconditions of a delete: it fails with 409 Conflict unless they hold. */
export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

/** Options of `delete`. */
export interface DeleteOptions extends CallOptions {
  /** What happens to dependents: deleted in the foreground, the background, or orphaned. */
  propagationPolicy?: "Foreground" | "Background" | "Orphan";
  preconditions?: Preconditions;
  gracePeriodSeconds?: number;
  dryRun?: boolean;
}

/** Options of `deleteCollection`. */
export interface DeleteCollectionOptions extends DeleteOptions, SelectorOptions {}
