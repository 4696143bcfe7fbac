import type { KubeObject } from "../../core/index.ts";
import {
  type BuiltinType,
  builtinRoot,
  builtinTypeNamed,
  type FieldValue,
} from "./builtin-types.ts";

/**
 * Removes, in place, every field of a built-in kind (`group`, `version`, `kind`: the form it is
 * in) its Go type does not have — what kube's JSON decoding does — and returns their paths
 * (`spec.containers[0].imagePullPolicyy`), for the `fieldValidation` warning or error. Scalars
 * are not type-checked. A kind the table does not have is left alone.
 */
export function pruneBuiltin(
  group: string,
  version: string,
  kind: string,
  object: KubeObject,
): string[] {
  const root = builtinRoot(group, version, kind);
  if (root === undefined) return [];
  const removed: string[] = [];
  walkType(root, object, "", removed);
  return removed;
}

const join = (path: string, key: string) => (path === "" ? key : `${path}.${key}`);

function walkType(type: BuiltinType, value: unknown, path: string, removed: string[]): void {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return;
  const o = value as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    const field = type.fields.get(key);
    const p = join(path, key);
    if (field === undefined) {
      delete o[key];
      removed.push(p);
    } else walkValue(field.value, o[key], p, removed);
  }
}

function walkValue(value: FieldValue, v: unknown, path: string, removed: string[]): void {
  switch (value.kind) {
    case "struct": {
      const type = builtinTypeNamed(value.type);
      if (type !== undefined) walkType(type, v, path, removed);
      return;
    }
    case "list":
      if (!Array.isArray(v)) return;
      for (const [i, item] of v.entries()) walkValue(value.element, item, `${path}[${i}]`, removed);
      return;
    case "map":
      if (v === null || typeof v !== "object" || Array.isArray(v)) return;
      for (const [k, item] of Object.entries(v))
        walkValue(value.element, item, join(path, k), removed);
      return;
    default:
      return;
  }
}
