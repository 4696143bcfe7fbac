import type { KubeObject } from "../../core/index.ts";
import { BUILTIN_ROOTS, BUILTIN_TYPES } from "./builtin-fields.ts";

/** A field's type: arbitrary JSON, a scalar, or a model behind list/map wrappers. */
type FieldType = "any" | "scalar" | { readonly wrappers: string; readonly model: string };

const parsed = new Map<string, ReadonlyMap<string, FieldType>>();

function fieldsOf(model: string): ReadonlyMap<string, FieldType> {
  let fields = parsed.get(model);
  if (fields !== undefined) return fields;
  const table = new Map<string, FieldType>();
  for (const entry of (BUILTIN_TYPES[model] ?? "").split(" ")) {
    if (entry === "") continue;
    const colon = entry.indexOf(":");
    if (colon < 0) {
      table.set(entry, "scalar");
      continue;
    }
    const type = entry.slice(colon + 1);
    const model = type.replace(/^(\[\]|\{\})*/, "");
    table.set(
      entry.slice(0, colon),
      type === "*" ? "any" : { wrappers: type.slice(0, type.length - model.length), model },
    );
  }
  fields = table;
  parsed.set(model, fields);
  return fields;
}

/**
 * Removes, in place, every field of a built-in `kind` its Go type does not have — what kube's
 * JSON decoding does — and returns their paths (`spec.containers[0].imagePullPolicyy`), for the
 * `fieldValidation` warning or error. Scalars are not type-checked. An unknown kind is left
 * alone.
 */
export function pruneBuiltin(kind: string, object: KubeObject): string[] {
  const root = BUILTIN_ROOTS[kind];
  if (root === undefined) return [];
  const removed: string[] = [];
  walkModel(root, object, "", removed);
  return removed;
}

const join = (path: string, key: string) => (path === "" ? key : `${path}.${key}`);

function walkModel(model: string, value: unknown, path: string, removed: string[]): void {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return;
  const o = value as Record<string, unknown>;
  const fields = fieldsOf(model);
  for (const key of Object.keys(o)) {
    const type = fields.get(key);
    const p = join(path, key);
    if (type === undefined) {
      delete o[key];
      removed.push(p);
    } else if (typeof type === "object") {
      walkWrapped(type.wrappers, type.model, o[key], p, removed);
    }
  }
}

function walkWrapped(
  wrappers: string,
  model: string,
  value: unknown,
  path: string,
  removed: string[],
): void {
  if (wrappers === "") {
    walkModel(model, value, path, removed);
    return;
  }
  const rest = wrappers.slice(2);
  if (wrappers.startsWith("[]")) {
    if (!Array.isArray(value)) return;
    for (const [i, v] of value.entries()) walkWrapped(rest, model, v, `${path}[${i}]`, removed);
    return;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return;
  for (const [k, v] of Object.entries(value)) walkWrapped(rest, model, v, join(path, k), removed);
}
