import type { KubeObject, ObjectMeta, StatusCause } from "../../core/index.ts";
import type { ObjectAttrs } from "../watchcache/cache-event.ts";
import type { DeleteOptions } from "./deletion.ts";
import type { NameRule } from "./object-meta.ts";
import type { Requester } from "./types.ts";

/**
 * A table column, as `meta.k8s.io/v1` Table defines it, with the function that prints its cell.
 * kube-apiserver prints every column, the `-o wide` ones (priority 1) included.
 */
export interface TableColumn {
  readonly name: string;
  readonly type: "string" | "integer" | "number" | "boolean" | "date";
  readonly format?: string;
  readonly description?: string;
  readonly priority?: number;
  /**
   * A cell kube prints in each row without declaring its column (an IPAddress's age): the cell
   * is in the rows, the column is not in the definitions.
   */
  readonly undeclared?: boolean;
  /** The cell of an object at `nowMs`, the server's time (ages and durations count to it). */
  readonly cell: (object: KubeObject, nowMs: number) => unknown;
}

/** A condition of a Table row (meta.k8s.io/v1 TableRowCondition). */
export interface TableRowCondition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
}

/**
 * What the registry needs to know about one kind beyond its name: how it is defaulted,
 * validated and versioned, which fields it can be selected on, and how it prints. Kube calls
 * this a REST strategy. Every hook is optional; the defaults make a plain kind like ConfigMap.
 */
export interface Strategy {
  /** How names are validated. @default "subdomain" */
  readonly nameRule?: NameRule;
  /** Bump `metadata.generation` when anything outside metadata (and status) changes. */
  readonly trackGeneration?: boolean;
  /** The kind has a `status` subresource: the main endpoint ignores status changes. */
  readonly statusSubresource?: boolean;
  /**
   * Top-level fields kube's strategy resets on writes to the object itself besides `status`
   * (its `GetResetFields`): no writer of the object owns them (a CertificateSigningRequest's
   * `spec`, which the server fills in from its requester). @default none
   */
  readonly resetFields?: readonly string[];
  /** An update without `metadata.resourceVersion` is allowed (overwrites). @default true */
  readonly allowUnconditionalUpdate?: boolean;
  /** A successful DELETE answers with the object instead of a Success Status. */
  readonly returnDeletedObject?: boolean;
  /**
   * kube's scheme defaulting of the kind (its `SetDefaults_*` functions): fills in what a written
   * object leaves out, on the body of every write as it is decoded (create, update, patch,
   * status), before field management records the write — so the writer owns the defaulted
   * fields, as on kube. Mutates `object`. What kube's registry strategy sets (a created
   * object's status, generated labels, allocated addresses) belongs in `prepareForCreate`.
   */
  defaults?(object: KubeObject): void;
  /**
   * Clears what a client may not set and sets what the server decides, on create (after field
   * management: the writer does not own it), knowing who creates it (none for the server's own
   * writes). Mutates `object`.
   */
  prepareForCreate?(object: KubeObject, requester?: Requester): void;
  /** Same on update, knowing the stored object. Mutates `object`. */
  prepareForUpdate?(object: KubeObject, old: KubeObject): void;
  /** Kind-specific validation of an object, on create and on update. */
  validate?(object: KubeObject): StatusCause[];
  /** Validation of a new object only, besides `validate` (rules an update does not apply). */
  validateCreate?(object: KubeObject): StatusCause[];
  /**
   * Kind-specific validation of an update (immutable fields). `subresource` is the subresource
   * written (`status`, or one `prepareSubresource` built the object for), if any.
   */
  validateUpdate?(object: KubeObject, old: KubeObject, subresource?: string): StatusCause[];
  /**
   * True while something besides `metadata.finalizers` keeps a deleting object in storage (a
   * namespace's `spec.finalizers`).
   */
  blocksDeletion?(object: KubeObject): boolean;
  /**
   * Finalizers kube's registry adds to an object when its deletion starts (a CRD's cleanup
   * finalizer), so that it stays until they are done. @default none
   */
  readonly deletionFinalizers?: readonly string[];
  /**
   * A DELETE that names no propagation policy orphans the object's dependents — kube's default
   * garbage collection policy of ReplicationControllers and batch/v1 Jobs, kept for old
   * clients. @default false: the dependents are deleted in the background
   */
  readonly orphanByDefault?: boolean;
  /**
   * Starting a deletion sets only `deletionTimestamp` — no grace period, no new generation — as
   * the kinds kube deletes with code of their own do (namespaces, CRDs). @default false
   */
  readonly deletionTimestampOnly?: boolean;
  /**
   * For a kind deleted gracefully (kube's CheckGracefulDelete: pods), the grace period in
   * seconds a DELETE with `options` gives the object before it is removed. @default none
   */
  deletionGracePeriod?(object: KubeObject, options: DeleteOptions): number;
  /**
   * A generateName is the name itself, no suffix added (IPAddresses, named by their address, as
   * kube's no-op name generator for them). @default false
   */
  readonly nameIsGenerateName?: boolean;
  /** Checks that a DELETE is allowed (throws an ApiError otherwise). */
  beforeDelete?(object: KubeObject): void;
  /** Adjusts an object as its deletion starts (a namespace's Terminating phase). Mutates it. */
  markDeleting?(object: KubeObject): void;
  /**
   * Builds the object a write to another subresource (`finalize`, a pod's `binding`) stores,
   * from the request body, a copy of the stored object and the clock's time (for condition
   * timestamps). Throws an ApiError to refuse the write.
   */
  prepareSubresource?(
    subresource: string,
    body: KubeObject,
    stored: KubeObject,
    nowMs: number,
  ): KubeObject;
  /** Selectable fields beyond metadata.name/metadata.namespace, with their values. */
  readonly fieldSelectors?: readonly string[];
  fields?(object: KubeObject): Record<string, string | undefined>;
  /**
   * Every Table column, in kube's order, Name and Age included (its printers place them: an
   * Event prints its name last, some kinds have no Age); Name is put first when no column is
   * a Name of the `name` format. @default Name and Created At, as kube's default table for a kind
   * without a printer
   */
  readonly columns?: readonly TableColumn[];
  /**
   * The order kube's printer lists a collection's Table rows in, where it is not the storage
   * order (FlowSchemas by matching precedence). Within one page: a paged list is sorted page by
   * page, as kube's is.
   */
  tableOrder?(a: KubeObject, b: KubeObject): number;
  /** The conditions of an object's Table row (a finished pod's `Completed`), if any. */
  rowConditions?(object: KubeObject): readonly TableRowCondition[] | undefined;
  /**
   * The metadata as kube's internal form of the kind holds it, which is what kube answers where
   * it sends metadata alone (PartialObjectMetadata, a Table row's object): without what only the
   * versioned form carries (a DaemonSet's template generation annotation). Returns a copy.
   */
  internalMetadata?(meta: ObjectMeta): ObjectMeta;
}

/** Label and field values of an object for a kind's strategy. */
export function attrsOf(strategy: Strategy, object: KubeObject): ObjectAttrs {
  const meta = object.metadata ?? {};
  const fields: Record<string, string | undefined> = {
    "metadata.name": meta.name,
    "metadata.namespace": meta.namespace ?? "",
    ...strategy.fields?.(object),
  };
  return { labels: meta.labels ?? {}, fields };
}
