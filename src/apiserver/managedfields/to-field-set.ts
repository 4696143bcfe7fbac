import { FieldSet } from "./field-set.ts";
import { listItems, SchemaError } from "./list-items.ts";
import { fieldElement, type PathElement } from "./path-element.ts";
import {
  entryType,
  isNamedField,
  isObject,
  type MapType,
  resolve,
  shapeOf,
  type TypeNode,
} from "./schema.ts";

/**
 * The fields a value sets — what an applier of it owns (structured-merge-diff's `ToFieldSet`):
 * every scalar, atomic list and atomic map is a member; so is every item of a set or map list
 * and every entry of a map that is not a named field. A named field that holds a granular
 * object is not itself a member (its fields are), nor is an empty granular object or list.
 * Throws a {@link SchemaError} for a value the schema does not allow; `strict` also refuses a
 * key given twice in one list (an applied configuration, as opposed to a stored object).
 */
export function toFieldSet(value: unknown, type: TypeNode, strict = true): FieldSet {
  const set = new FieldSet();
  walk(value, type, [], set, strict);
  return set;
}

function walk(
  value: unknown,
  type: TypeNode,
  path: PathElement[],
  set: FieldSet,
  strict: boolean,
): void {
  const t = resolve(type, value);
  if (t.kind === "scalar") {
    if (!t.untyped && shapeOf(value) !== "scalar")
      throw new SchemaError(path, `expected scalar, got ${shapeOf(value)}`);
    set.insert(path);
    return;
  }
  if (t.kind === "list") {
    if (value !== null && !Array.isArray(value))
      throw new SchemaError(path, `expected list, got ${shapeOf(value)}`);
    if (t.listType === "atomic") {
      set.insert(path);
      return;
    }
    if (value === null) return;
    for (const item of listItems(t, value, path, strict).items) {
      path.push(item.pe);
      walk(item.value, t.element, path, set, strict);
      set.insert(path);
      path.pop();
    }
    return;
  }
  if (value !== null && !isObject(value))
    throw new SchemaError(path, `expected map, got ${shapeOf(value)}`);
  if (t.atomic) {
    set.insert(path);
    return;
  }
  if (value === null) return;
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined) continue;
    const ft = entryType(t, key);
    path.push(fieldElement(key));
    if (ft === undefined) throw new SchemaError(path, "field not declared in schema");
    walk(v, ft, path, set, strict);
    if (!isNamedField(t, key)) set.insert(path);
    path.pop();
  }
}

/**
 * `set` plus, as members, the named fields that have members below them (structured-merge-diff's
 * `EnsureNamedFieldsAreMembers`): an applier that owned `spec.a` owned the `spec` it made, so
 * when it lets go of `spec.a` and nobody owns anything in `spec`, `spec` goes too.
 */
export function ensureNamedFieldsAreMembers(set: FieldSet, type: TypeNode): FieldSet {
  const out = new FieldSet();
  const map: MapType | undefined = type.kind === "map" ? type : undefined;
  for (const pe of set.members()) out.insertMember(pe);
  for (const { pe, set: child } of set.children()) {
    if (pe.kind === "field" && map !== undefined && isNamedField(map, pe.name))
      out.insertMember(pe);
    out.insertChild(pe, ensureNamedFieldsAreMembers(child, childType(type, pe)));
  }
  return out;
}

/** The type below `pe` in `type` (deduced where the schema says nothing). */
export function childType(type: TypeNode, pe: PathElement): TypeNode {
  if (type.kind === "map" && pe.kind === "field") return entryType(type, pe.name) ?? DEDUCED_TYPE;
  if (type.kind === "list") return type.element;
  return DEDUCED_TYPE;
}

const DEDUCED_TYPE: TypeNode = { kind: "deduced" };
