/**
 * Request building, pure: URL paths of collections, objects and subresources, and query strings.
 * Nothing here sends anything.
 */
import type { FieldSelector, LabelSelector } from "../core/index.ts";
import { isNamespaced, type ResourceDefinition } from "../resources/index.ts";

/**
 * The path of a resource's collection: `/api/v1/namespaces/ns/configmaps`,
 * `/apis/apps/v1/deployments` (all namespaces, or a cluster-scoped kind).
 */
export function collectionPath(def: ResourceDefinition, namespace: string | undefined): string {
  const root = def.group === "" ? `/api/${def.version}` : `/apis/${def.group}/${def.version}`;
  if (namespace !== undefined && isNamespaced(def)) {
    return `${root}/namespaces/${encodeURIComponent(namespace)}/${def.plural}`;
  }
  return `${root}/${def.plural}`;
}

/** The path of one object, or of one of its subresources (`status`). */
export function objectPath(
  def: ResourceDefinition,
  namespace: string | undefined,
  name: string,
  subresource?: string,
): string {
  const base = `${collectionPath(def, namespace)}/${encodeURIComponent(name)}`;
  return subresource === undefined ? base : `${base}/${subresource}`;
}

/** A query parameter value; `undefined` leaves the parameter out. */
export type QueryValue = string | number | boolean | LabelSelector | FieldSelector | undefined;

/** `?a=1&b=2` from the defined values, in the given order; `""` if none is defined. */
export function queryString(params: Readonly<Record<string, QueryValue>>): string {
  let out = "";
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    const text = String(v);
    out += `${out === "" ? "?" : "&"}${k}=${encodeURIComponent(text)}`;
  }
  return out;
}

/** Appends `query` (a string from {@link queryString}) to `path`. */
export function withQuery(path: string, query: string): string {
  return query === "" ? path : `${path}${query}`;
}
