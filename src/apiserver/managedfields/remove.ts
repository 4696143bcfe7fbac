import type { FieldSet } from "./field-set.ts";
import { itemElement } from "./list-items.ts";
import { fieldElement, type PathElement } from "./path-element.ts";
import { entryType, isObject, type JsonObject, resolve, type TypeNode } from "./schema.ts";

/**
 * `value` without the fields and items of `set` (structured-merge-diff's `RemoveItems`): a map
 * entry or list item whose path is a member goes with everything below it; one with members
 * below it is walked into. A map or list that removal empties goes too (kube's typed objects
 * drop the null that structured-merge-diff leaves). The input is not modified.
 */
export function removeItems(value: JsonObject, set: FieldSet, type: TypeNode): JsonObject {
  if (set.isEmpty()) return value;
  return (remove(value, set, type, []) as JsonObject | undefined) ?? {};
}

function remove(value: unknown, set: FieldSet, type: TypeNode, path: PathElement[]): unknown {
  const t = resolve(type, value);
  if (t.kind === "scalar") return value;
  if (t.kind === "list") {
    if (!Array.isArray(value) || value.length === 0 || t.listType === "atomic") return undefined;
    const out: unknown[] = [];
    for (let i = 0; i < value.length; i++) {
      let item = value[i];
      let pe: PathElement;
      try {
        pe = itemElement(t, i, item, path);
      } catch {
        out.push(item); // a stored item without its key: nothing can name it
        continue;
      }
      if (set.hasMember(pe)) continue;
      const below = set.withPrefix(pe);
      if (!below.isEmpty()) {
        path.push(pe);
        item = remove(item, below, t.element, path);
        path.pop();
        if (item === undefined) continue;
      }
      out.push(item);
    }
    return out.length > 0 ? out : undefined;
  }
  if (!isObject(value) || t.atomic) return undefined;
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(value)) {
    const pe = fieldElement(key);
    if (set.hasMember(pe)) continue;
    const below = set.withPrefix(pe);
    if (below.isEmpty()) {
      out[key] = v;
      continue;
    }
    path.push(pe);
    const rest = remove(v, below, entryType(t, key) ?? { kind: "deduced" }, path);
    path.pop();
    if (rest !== undefined) out[key] = rest;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
