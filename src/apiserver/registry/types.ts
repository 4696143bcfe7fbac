import type { FieldSelector, KubeObject, LabelSelector } from "../../core/index.ts";
import type { CacheEntry } from "../watchcache/cache-event.ts";

/*
 * The registry's vocabulary, shared by the store, its rule modules and the layers above
 * (field management, CRDs, HTTP). It imports nothing of the registry, so no module that uses
 * it can make an import cycle through it.
 */

/** List parameters after parsing and validation. */
export interface ListQuery {
  readonly label: LabelSelector;
  readonly field: FieldSelector;
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: "Exact" | "NotOlderThan";
  readonly limit?: number;
  readonly continue?: string;
}

/** A list read: the items (with memoized JSON), its resourceVersion and paging. */
export interface ListResult {
  readonly items: readonly CacheEntry[];
  readonly resourceVersion: number;
  readonly continue?: string;
  readonly remainingItemCount?: number;
}

/** The outcome of a DELETE. */
export interface DeleteOutcome {
  /** The object: still there (finalizers pending) or its last state. */
  readonly object: KubeObject;
  /** True if the object is gone; false if it is only marked for deletion. */
  readonly deleted: boolean;
}

/** How unknown fields in a write are treated (kube's `fieldValidation`). */
export type FieldValidation = "Ignore" | "Warn" | "Strict";

/**
 * What the layer above the registry does to an object about to be written, knowing the stored
 * one (kube's `rest.UpdatedObjectInfo` transformers): field management records who changed
 * which fields here (`metadata.managedFields`). The store calls it inside its compare-and-swap
 * loop, once per attempt, with the stored object (undefined on a create) and the object to
 * write, both in the served version's form after unknown fields are dropped, and the
 * subresource written, if any. It mutates `object`.
 */
export type WriteTransform = (
  stored: KubeObject | undefined,
  object: KubeObject,
  subresource: string | undefined,
) => void;

/**
 * Who a write is from, as kube's `user.Info` names a user: what the request authenticated as.
 * Kinds that record their requester read it (a CertificateSigningRequest's `spec.username`).
 */
export interface Requester {
  readonly username: string;
  /** @default none */
  readonly uid?: string;
  readonly groups: readonly string[];
  /** @default none */
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** Whether a write is real or only checked (`dryRun=All`), and how unknown fields count. */
export interface WriteOptions {
  /** Who the write is from. @default nobody: a write of the server's own */
  readonly requester?: Requester;
  /** Check the write without storing it (`dryRun=All`). @default false */
  readonly dryRun?: boolean;
  /**
   * Unknown fields are dropped silently (Ignore), dropped with a warning (Warn: kube's default),
   * or refused with 400 BadRequest (Strict).
   * @default "Warn"
   */
  readonly fieldValidation?: FieldValidation;
  /** Receives the warnings of a successful write (`unknown field "spec.x"`). @default none */
  readonly warnings?: string[];
  /**
   * Keys the request body had twice in one object (the HTTP layer finds them in the raw
   * text): under `fieldValidation` they count as unknown fields do, as `duplicate field "x"`.
   * @default none
   */
  readonly duplicateFields?: readonly string[];
  /**
   * Field management of this write (see {@link WriteTransform}); not called for a pod's
   * `binding`, written without a field manager as kube's BindingREST does.
   * @default none: managedFields are stored as they come
   */
  readonly transform?: WriteTransform;
  /**
   * The object's managedFields are already worked out (a server-side apply): a write to
   * `status` keeps the applied ones instead of the stored ones.
   * @default false
   */
  readonly managedFieldsSet?: boolean;
}

/** A write to one object, perhaps through a subresource (`status`, `finalize`, `binding`). */
export interface UpdateOptions extends WriteOptions {
  /** The subresource written. @default the object itself */
  readonly subresource?: string;
}
