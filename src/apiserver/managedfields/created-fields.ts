import { deepEqual } from "../../core/index.ts";
import type { FieldsV1 } from "./fields-v1.ts";
import { listItems } from "./list-items.ts";
import { compareElements, fieldElement } from "./path-element.ts";
import { entryType, isObject, type JsonObject, resolve, type TypeNode } from "./schema.ts";

/**
 * The FieldsV1 a create's manager gets — what `compare({}, object).added` holds, less the fields
 * nobody owns (apiVersion, kind, metadata's system fields) — built in one walk, without field
 * sets: creates are the hot write path, and this is half the general path's cost. The
 * top-level fields the main resource ignores (`status` where there is a status subresource,
 * what the kind's strategy resets) are left out. The
 * property test in created-fields.test.ts holds it to the general path. Undefined when the
 * manager gets nothing; throws where the general path would (which then decides). Keys sort by
 * UTF-16 code units, as `compareStrings` does.
 */
export function createdFieldsV1(
  object: JsonObject,
  type: TypeNode,
  ignored: ReadonlySet<string> = NONE,
): FieldsV1 | undefined {
  const t = resolve(type, object);
  if (t.kind !== "map") return undefined;
  const out: FieldsV1 = {};
  for (const key of Object.keys(object).sort()) {
    const v = object[key];
    if (v === undefined || key === "apiVersion" || key === "kind") continue;
    if (ignored.has(key)) continue;
    const ft = entryType(t, key);
    if (ft === undefined) throw new Error(`.${key}: field not declared in schema`);
    const zero = t.implicit?.has(key) ? { value: t.implicit.get(key) } : undefined;
    const node = key === "metadata" ? metadataNode(v, ft) : fromZero(v, ft, zero);
    if (node !== undefined) out[`f:${key}`] = node;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

const NONE: ReadonlySet<string> = new Set();

/** The node a field contributes, or undefined for nothing. */
type Node = FieldsV1 | undefined;

/** Fields of metadata nobody owns (all scalars; kube's `stripMetaManager` list). */
export const UNOWNED_METADATA_FIELDS: readonly string[] = [
  "name",
  "namespace",
  "creationTimestamp",
  "selfLink",
  "uid",
  "clusterName",
  "generation",
  "managedFields",
  "resourceVersion",
];
const META_STRIPPED = new Set(UNOWNED_METADATA_FIELDS);

/** `metadata`: added as a whole, but neither it nor its system fields are anyone's. */
function metadataNode(value: unknown, type: TypeNode): Node {
  const t = resolve(type, value);
  check(t, value);
  if (t.kind !== "map" || t.atomic || !isObject(value)) return undefined;
  const out: FieldsV1 = {};
  let any = false;
  for (const key of Object.keys(value).sort()) {
    if (value[key] === undefined || META_STRIPPED.has(key)) continue;
    const ft = entryType(t, key);
    if (ft === undefined) throw new Error(`.metadata.${key}: field not declared in schema`);
    out[`f:${key}`] = added(value[key], ft);
    any = true;
  }
  return any ? out : undefined;
}

/** Refuses what the general path's walk refuses (it then decides). */
function check(t: ReturnType<typeof resolve>, value: unknown): void {
  const ok =
    t.kind === "scalar"
      ? t.untyped || value === null || typeof value !== "object"
      : t.kind === "list"
        ? value === null || Array.isArray(value)
        : value === null || isObject(value);
  if (!ok) throw new Error(`a ${t.kind} type holds ${JSON.stringify(value)}`);
}

/** A value with nothing before it: all of it is added, containers included. */
function added(value: unknown, type: TypeNode): FieldsV1 {
  const t = resolve(type, value);
  check(t, value);
  if (t.kind === "scalar") return {};
  if (t.kind === "list") {
    if (t.listType === "atomic" || !Array.isArray(value) || value.length === 0) return {};
    return items(value, t, { ".": {} });
  }
  if (t.atomic || !isObject(value)) return {};
  const keys = Object.keys(value);
  if (keys.length === 0) return {};
  const out: FieldsV1 = { ".": {} };
  for (const key of keys.sort()) {
    if (value[key] === undefined) continue;
    const ft = entryType(t, key);
    if (ft === undefined) throw new Error(`.${key}: field not declared in schema`);
    out[`f:${key}`] = added(value[key], ft);
  }
  return out;
}

/** A field Go always writes, compared with its empty value (a struct's `{}`, a slice's null). */
function fromZero(value: unknown, type: TypeNode, zero: { value: unknown } | undefined): Node {
  if (zero === undefined) return added(value, type);
  const t = resolve(type, value);
  check(t, value);
  if (t.kind === "scalar") return deepEqual(zero.value, value) ? undefined : {};
  if (t.kind === "list") {
    const empty = !Array.isArray(value) || value.length === 0;
    if (t.listType === "atomic" || empty) return deepEqual(zero.value, value) ? undefined : {};
    return items(value as unknown[], t, {});
  }
  const empty = !isObject(value) || Object.keys(value).length === 0;
  if (t.atomic || empty) return deepEqual(zero.value, value) ? undefined : {};
  const out: FieldsV1 = {};
  const obj = value as JsonObject;
  for (const key of Object.keys(obj).sort()) {
    if (obj[key] === undefined) continue;
    const ft = entryType(t, key);
    if (ft === undefined) throw new Error(`.${key}: field not declared in schema`);
    const z = t.implicit?.has(key) ? { value: t.implicit.get(key) } : undefined;
    const node = fromZero(obj[key], ft, z);
    if (node !== undefined) out[`f:${key}`] = node;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The items of a set or map list, each added, into `out`. */
function items(list: unknown[], t: Extract<TypeNode, { kind: "list" }>, out: FieldsV1): FieldsV1 {
  const named = listItems(t, list, [fieldElement("")], false).items.filter((i) => !i.duplicate);
  if (named.length > 1) named.sort((a, b) => compareElements(a.pe, b.pe));
  for (const { pe, value } of named) out[pe.key] = added(value, t.element);
  return out;
}
