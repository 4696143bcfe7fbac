import type { KubeObject } from "../../core/index.ts";

/**
 * What kube's Go types leave out when they encode a built-in object: a map or list field tagged
 * `omitempty` that is empty (a label removed by a merge patch leaves `labels: {}` in the JSON;
 * kube stores and returns no `labels` at all). The fields here are the ones clients empty:
 * ObjectMeta's maps and lists, and a ConfigMap's or Secret's data. (`managedFields: []` is a
 * request to clear them, which the field manager reads and acts on.)
 */
const META_FIELDS = ["labels", "annotations", "finalizers", "ownerReferences"];
const DATA_FIELDS: Readonly<Record<string, readonly string[]>> = {
  ConfigMap: ["data", "binaryData"],
  Secret: ["data", "stringData"],
};

/** Removes, in place, the empty `omitempty` fields of a built-in object of `kind`. */
export function omitEmpty(kind: string, object: KubeObject): void {
  omitEmptyMeta(object);
  for (const field of DATA_FIELDS[kind] ?? [])
    dropIfEmpty(object as Record<string, unknown>, field);
}

/**
 * Removes, in place, the empty `omitempty` fields of an object's metadata: what kube leaves out of
 * any object, a custom resource's too (its handler reads metadata into the Go type).
 */
export function omitEmptyMeta(object: KubeObject): void {
  const meta = object.metadata as Record<string, unknown> | undefined;
  if (meta !== undefined) for (const field of META_FIELDS) dropIfEmpty(meta, field);
}

function dropIfEmpty(o: Record<string, unknown>, field: string): void {
  const v = o[field];
  if (v === null) return;
  if (Array.isArray(v) ? v.length === 0 : typeof v === "object" && Object.keys(v).length === 0) {
    delete o[field];
  }
}
