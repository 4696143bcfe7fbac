import { cloneJson, type KubeObject, type ObjectMeta } from "../../core/index.ts";
import type { KeyValue } from "../storage/storage.ts";

/**
 * How objects are stored: JSON without `metadata.resourceVersion`, which is the storage
 * revision of the last write and is set back on every read (as kube's etcd3 store does), and
 * with `metadata.managedFields` last (where Go writes it), so that one object encodes the same
 * however its metadata was assembled — a write that changes nothing stores nothing.
 */
export function encodeForStorage(object: KubeObject): string {
  const meta = object.metadata;
  if (
    meta === undefined ||
    (meta.resourceVersion === undefined &&
      (meta.managedFields === undefined || managedFieldsLast(meta)))
  )
    return JSON.stringify(object);
  const { resourceVersion: _, managedFields, ...rest } = meta;
  return JSON.stringify({
    ...object,
    metadata: managedFields === undefined ? rest : { ...rest, managedFields },
  });
}

/** True if managedFields is the last key of `meta` (as a create leaves it): no copy needed. */
function managedFieldsLast(meta: object): boolean {
  let last: string | undefined;
  for (const key in meta) last = key;
  return last === "managedFields";
}

/** The stored object with its resourceVersion set from the entry's modRevision. */
export function decodeFromStorage(kv: KeyValue): KubeObject {
  const object = JSON.parse(kv.value) as KubeObject;
  object.metadata = { ...object.metadata, resourceVersion: String(kv.modRevision) };
  return object;
}

/** A deep copy of a JSON object (see {@link cloneJson}). */
export function cloneObject<T>(object: T): T {
  return cloneJson(object);
}

/** `ObjectMeta` with its fields writable (kubernetes-types marks system fields readonly). */
export type MutableMeta = { -readonly [K in keyof ObjectMeta]: ObjectMeta[K] };

/** The object's metadata (created if absent), writable. */
export function metaOf(object: KubeObject): MutableMeta {
  object.metadata ??= {};
  return object.metadata as MutableMeta;
}
