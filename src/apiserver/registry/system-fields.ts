import { deepEqual, errors, type KubeObject } from "../../core/index.ts";
import { cloneObject, type MutableMeta, metaOf } from "./codec.ts";
import { type DeleteOptions, finalizersForDeletion, timestamp } from "./deletion.ts";
import type { Strategy } from "./strategy.ts";

/*
 * The system fields of `metadata` — uid, timestamps, generation, deletion fields — as the
 * registry sets them on each write (kube's `BeforeCreate`, `BeforeUpdate`, `BeforeDelete`).
 * Pure: the clock's time comes in as a number.
 */

/** Where an object is created and what its kind's rules are. */
export interface CreateContext {
  /** The namespace of the URL ("" for a cluster-scoped kind). */
  readonly namespace: string;
  readonly namespaced: boolean;
  /** The kind bumps `metadata.generation` (it starts at 1). */
  readonly trackGeneration: boolean;
  /** The new uid. */
  readonly uid: string;
  readonly nowMs: number;
}

/** 400 unless the body's namespace, if any, is the URL's (namespaced kinds only). */
export function checkNamespace(
  namespaced: boolean,
  urlNamespace: string,
  bodyNamespace: string | undefined,
): void {
  if (namespaced && bodyNamespace && bodyNamespace !== urlNamespace) {
    throw errors.badRequest(
      "the namespace of the provided object does not match the namespace sent on the request",
    );
  }
}

/**
 * Sets the system fields of an object to create: the URL's namespace, a new uid, the creation
 * time, generation 1 for kinds that track it; clears what a client may not set. A
 * resourceVersion in the body is refused (500, as kube answers).
 */
export function prepareCreateMeta(meta: MutableMeta, c: CreateContext): void {
  if (c.namespaced) meta.namespace = c.namespace;
  else delete meta.namespace;
  if (meta.resourceVersion !== undefined && meta.resourceVersion !== "") {
    throw errors.internal("resourceVersion should not be set on objects to be created");
  }
  delete meta.resourceVersion;
  meta.uid = c.uid;
  meta.creationTimestamp = timestamp(c.nowMs);
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.selfLink;
  if (c.trackGeneration) meta.generation = 1;
  else delete meta.generation;
}

/**
 * Sets the system fields of an updated object from the stored one's `old`: name, namespace,
 * uid, creation and deletion timestamps, generation; clears the resourceVersion (storage sets
 * it). As kube's BeforeUpdate, a client's creationTimestamp (`…00.000Z` from JavaScript
 * clients) gives way to the stored one.
 */
export function keepSystemFields(meta: MutableMeta, old: MutableMeta, namespaced: boolean): void {
  meta.name = meta.name ?? old.name;
  if (namespaced) meta.namespace = meta.namespace ?? old.namespace;
  else delete meta.namespace;
  meta.uid = meta.uid || old.uid;
  meta.creationTimestamp = old.creationTimestamp ?? meta.creationTimestamp;
  if (old.deletionTimestamp) meta.deletionTimestamp = old.deletionTimestamp;
  else delete meta.deletionTimestamp;
  // As stored: none for a kind whose deletion sets the timestamp alone (namespaces, CRDs).
  if (old.deletionGracePeriodSeconds !== undefined)
    meta.deletionGracePeriodSeconds = old.deletionGracePeriodSeconds;
  else delete meta.deletionGracePeriodSeconds;
  delete meta.resourceVersion;
  meta.generation = old.generation;
  if (meta.generation === undefined) delete meta.generation;
}

/**
 * Marks an object for deletion with the finalizers it keeps: the deletion time (once), grace
 * period 0, and the next generation for kinds that track it — or, `timestampOnly`, the deletion
 * time alone.
 */
export function markForDeletion(
  meta: MutableMeta,
  finalizers: string[],
  nowMs: number,
  timestampOnly = false,
): void {
  if (finalizers.length > 0) meta.finalizers = finalizers;
  else delete meta.finalizers;
  if (!meta.deletionTimestamp) {
    meta.deletionTimestamp = timestamp(nowMs);
    if (timestampOnly) return;
    meta.deletionGracePeriodSeconds = 0;
    if ((meta.generation ?? 0) > 0) meta.generation = meta.generation! + 1;
  }
}

/**
 * The object as a DELETE with `options` starts its deletion, if it must wait — for finalizers
 * (its own, the propagation policy's, those the kind adds) or while the kind blocks it — or
 * undefined if it can go at once.
 */
export function markedForDeletion(
  stored: KubeObject,
  strategy: Strategy,
  options: DeleteOptions,
  nowMs: number,
): KubeObject | undefined {
  const meta = metaOf(stored);
  const added = meta.deletionTimestamp ? [] : (strategy.deletionFinalizers ?? []);
  const unstated =
    options.propagationPolicy === undefined && options.orphanDependents === undefined;
  const policy: DeleteOptions =
    unstated && strategy.orphanByDefault ? { ...options, propagationPolicy: "Orphan" } : options;
  const finalizers = [
    ...new Set([...finalizersForDeletion(meta.finalizers ?? [], policy), ...added]),
  ];
  if (finalizers.length === 0 && !(strategy.blocksDeletion?.(stored) ?? false)) return undefined;
  const marked = cloneObject(stored);
  markForDeletion(metaOf(marked), finalizers, nowMs, strategy.deletionTimestampOnly);
  strategy.markDeleting?.(marked);
  return marked;
}

/** True if anything outside metadata (and status, with a status subresource) differs. */
export function specChanged(a: KubeObject, b: KubeObject, ignoreStatus: boolean): boolean {
  const strip = (o: KubeObject) => {
    const {
      metadata: _m,
      apiVersion: _a,
      kind: _k,
      ...rest
    } = o as KubeObject & { status?: unknown };
    if (ignoreStatus) delete (rest as { status?: unknown }).status;
    return rest;
  };
  return !deepEqual(strip(a), strip(b));
}

/**
 * The object a write to `status` stores: the stored object with the body's status (none if the
 * body has none); with `managedFields`, an apply's worked-out entries replace the stored ones.
 */
export function withStatusOf(
  stored: KubeObject,
  body: KubeObject,
  managedFields?: { readonly entries: unknown },
): KubeObject {
  const status = (body as { status?: unknown }).status;
  const object = { ...stored, status } as KubeObject;
  if (status === undefined) delete (object as { status?: unknown }).status;
  if (managedFields !== undefined) setManagedFields(object, managedFields.entries);
  return object;
}

/** Keeps the stored status of an object whose kind has a status subresource. */
export function keepStoredStatus(object: KubeObject, stored: KubeObject): void {
  const s = (stored as { status?: unknown }).status;
  if (s === undefined) delete (object as { status?: unknown }).status;
  else (object as { status?: unknown }).status = s;
}

/** Sets (or, for undefined, removes) an object's managedFields. */
export function setManagedFields(object: KubeObject, entries: unknown): void {
  object.metadata ??= {};
  const meta = object.metadata as Record<string, unknown>;
  if (entries === undefined) delete meta.managedFields;
  else meta.managedFields = entries;
}
