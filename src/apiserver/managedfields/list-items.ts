import {
  indexElement,
  type KeyField,
  keyElement,
  type Path,
  type PathElement,
  pathString,
  valueElement,
} from "./path-element.ts";
import { isObject, type ListType, shapeOf } from "./schema.ts";

/**
 * A value that does not fit the schema (an unknown field, an object where a scalar belongs, an
 * associative list item without its key), with the path it was found at, worded as
 * structured-merge-diff words it: `.spec.containers: element 0: associative list with keys has
 * an element that omits key field "name" (and doesn't have default value)`.
 */
export class SchemaError extends Error {
  constructor(path: Path, detail: string) {
    super(path.length === 0 ? detail : `${pathString(path)}: ${detail}`);
    this.name = "SchemaError";
  }
}

/** The element that names item `index` of `list` (throws a SchemaError if it has none). */
export function itemElement(list: ListType, index: number, item: unknown, path: Path): PathElement {
  if (list.listType === "atomic") return indexElement(index);
  if (list.listType === "set") {
    if (shapeOf(item) !== "scalar")
      throw new SchemaError(
        path,
        `element ${index}: associative list without keys has an element that's a ${shapeOf(item)} type`,
      );
    return valueElement(item);
  }
  if (!isObject(item))
    throw new SchemaError(
      path,
      `element ${index}: associative list with keys has an element that's not a map type`,
    );
  const fields: KeyField[] = [];
  for (const key of list.keys) {
    const v = item[key];
    if (v !== undefined && v !== null) fields.push([key, v]);
    else if (list.keyDefaults?.[key] !== undefined) fields.push([key, list.keyDefaults[key]]);
    else
      throw new SchemaError(
        path,
        `element ${index}: associative list with keys has an element that omits key field ${JSON.stringify(key)} (and doesn't have default value)`,
      );
  }
  return keyElement(fields);
}

/** One item of a list, named. `duplicate` marks a later item with the key of an earlier one. */
export interface ListItem {
  readonly pe: PathElement;
  readonly value: unknown;
  readonly duplicate: boolean;
}

/**
 * Names the items of `list`. A key given twice is an error when `strict` (an applied
 * configuration), as kube's; otherwise (a stored object) later items are marked duplicates.
 */
export function listItems(
  list: ListType,
  items: readonly unknown[],
  path: Path,
  strict: boolean,
): { items: ListItem[]; byKey: Map<string, ListItem> } {
  const out: ListItem[] = [];
  const byKey = new Map<string, ListItem>();
  for (let i = 0; i < items.length; i++) {
    const pe = itemElement(list, i, items[i], path);
    const seen = byKey.has(pe.key);
    if (seen && strict)
      throw new SchemaError(path, `duplicate entries for key ${pathString([pe])}`);
    const item: ListItem = { pe, value: items[i], duplicate: seen };
    if (!seen) byKey.set(pe.key, item);
    out.push(item);
  }
  return { items: out, byKey };
}
