import { cloneJson, deepEqual } from "../../core/index.ts";
import { FieldSet } from "./field-set.ts";
import { type ListItem, listItems, SchemaError } from "./list-items.ts";
import { fieldElement, type PathElement } from "./path-element.ts";
import {
  entryType,
  isObject,
  type JsonObject,
  type ListType,
  type MapType,
  resolve,
  shapeOf,
  type TypeNode,
} from "./schema.ts";

/** What changed between two values of one type, as sets of paths (structured-merge-diff's). */
export interface Comparison {
  /** Fields the new value sets that the old one did not (and objects/items it creates). */
  readonly added: FieldSet;
  /** Leaf fields both set, to different values. */
  readonly modified: FieldSet;
  /** Fields the old value set that the new one does not. */
  readonly removed: FieldSet;
}

/**
 * Merges an applied configuration into the live object (structured-merge-diff's `Merge`): what
 * the configuration sets wins, nothing is removed; granular maps merge by key and map/set lists
 * item by item — in the configuration's order where it speaks, the live order elsewhere; atomic
 * values are replaced. A null the configuration sets for a field is dropped from the result (as
 * kube's typed decoding, and its pruning of nulls in custom resources, drop it). Throws a
 * {@link SchemaError} for a configuration the schema does not allow.
 */
export function merge(live: JsonObject, config: JsonObject, type: TypeNode): JsonObject {
  return (new Walker("merge").walk(type, live, config, []) as JsonObject | undefined) ?? {};
}

/** Compares two values of `type` (structured-merge-diff's `Compare`). */
export function compare(before: unknown, after: unknown, type: TypeNode): Comparison {
  const w = new Walker("compare");
  w.walk(type, before, after, []);
  return { added: w.added, modified: w.modified, removed: w.removed };
}

/**
 * One traversal of two values side by side. In `merge` mode it returns the merged value; in
 * `compare` mode it records paths: a leaf (scalar, atomic value, pair of empty containers) is
 * added, removed or modified; an object or list item that exists on one side only is added or
 * removed as well as its fields.
 */
/** One step of the walk into a map or a list: its two values at `path`, and how to treat them. */
interface Step {
  readonly lhs: unknown;
  readonly rhs: unknown;
  readonly path: PathElement[];
  /** Only the children count: the value itself is not a leaf of the result sets. */
  readonly childrenOnly: boolean;
  /** The old value the leaf rule sees (see `#atom`). */
  readonly leafLhs: unknown;
}

class Walker {
  readonly added = new FieldSet();
  readonly modified = new FieldSet();
  readonly removed = new FieldSet();
  readonly #merging: boolean;

  constructor(mode: "merge" | "compare") {
    this.#merging = mode === "merge";
  }

  walk(type: TypeNode, lhs: unknown, rhs: unknown, path: PathElement[]): unknown {
    const al = lhs === undefined ? undefined : resolve(type, lhs);
    const ar = rhs === undefined ? undefined : resolve(type, rhs);
    if (ar === undefined) return this.#atom(al!, lhs, undefined, path);
    if (al !== undefined && al !== ar) {
      // Deduced values of different shapes: the old one's fields go, the new one replaces it.
      if (!this.#merging) this.#atom(al, lhs, undefined, path, true);
    }
    return this.#atom(ar, al === ar ? lhs : undefined, rhs, path, false, lhs);
  }

  /**
   * `leafLhs` is the old value when `lhs` was dropped because its shape differs: the leaf rule
   * still sees it (a modification, not an addition).
   */
  #atom(
    t: MapType | ListType | { kind: "scalar"; untyped?: boolean },
    lhs: unknown,
    rhs: unknown,
    path: PathElement[],
    childrenOnly = false,
    leafLhs: unknown = lhs,
  ): unknown {
    // A value of another shape than the type's is a schema error; null is an empty map or list.
    for (const v of [lhs, rhs]) {
      if (v === undefined || shapeOf(v) === t.kind) continue;
      if (t.kind === "scalar" ? t.untyped : v === null) continue;
      throw new SchemaError(path, `expected ${t.kind}, got ${shapeOf(v)}`);
    }
    if (t.kind === "scalar") return childrenOnly ? undefined : this.#leaf(leafLhs, rhs, path);
    const step: Step = { lhs, rhs, path, childrenOnly, leafLhs };
    return t.kind === "list" ? this.#list(t, step) : this.#map(t, step);
  }

  #leaf(lhs: unknown, rhs: unknown, path: PathElement[]): unknown {
    if (this.#merging) return rhs !== undefined ? rhs : lhs;
    if (lhs === undefined) this.added.insert(path);
    else if (rhs === undefined) this.removed.insert(path);
    else if (!deepEqual(lhs, rhs)) this.modified.insert(path);
    return undefined;
  }

  #post(lhs: unknown, rhs: unknown, path: PathElement[]): void {
    if (this.#merging) return;
    if (lhs === undefined) this.added.insert(path);
    else if (rhs === undefined) this.removed.insert(path);
  }

  #map(t: MapType, step: Step): unknown {
    const { lhs, rhs, path, childrenOnly, leafLhs } = step;
    const lm = isObject(lhs) ? lhs : undefined;
    const rm = isObject(rhs) ? rhs : undefined;
    const empty = (m: JsonObject | undefined) => m === undefined || Object.keys(m).length === 0;
    if (t.atomic || (empty(lm) && empty(rm)))
      return childrenOnly ? undefined : this.#leaf(leafLhs, rhs, path);
    const out: JsonObject = {};
    const visit = (key: string, lv: unknown, rv: unknown) => {
      if (lv === undefined && rv === undefined) return;
      const ft = entryType(t, key);
      path.push(fieldElement(key));
      if (ft === undefined) throw new SchemaError(path, "field not declared in schema");
      const zero = this.#merging ? undefined : t.implicit;
      if (zero?.has(key)) {
        if (lm !== undefined) lv ??= cloneJson(zero.get(key));
        if (rm !== undefined) rv ??= cloneJson(zero.get(key));
      }
      const v = this.walk(ft, lv, rv, path);
      path.pop();
      if (v !== undefined && !(v === null && rv === null)) out[key] = v;
    };
    if (lm !== undefined) for (const key of Object.keys(lm)) visit(key, lm[key], rm?.[key]);
    if (rm !== undefined)
      for (const key of Object.keys(rm))
        if (lm === undefined || !(key in lm)) visit(key, undefined, rm[key]);
    if (!childrenOnly) this.#post(leafLhs, rhs, path);
    return out;
  }

  #list(t: ListType, step: Step): unknown {
    const { lhs, rhs, path, childrenOnly, leafLhs } = step;
    const ll = Array.isArray(lhs) ? lhs : undefined;
    const rl = Array.isArray(rhs) ? rhs : undefined;
    if (t.listType === "atomic" || ((ll?.length ?? 0) === 0 && (rl?.length ?? 0) === 0))
      return childrenOnly ? undefined : this.#leaf(leafLhs, rhs, path);
    const left = listItems(t, ll ?? [], path, false);
    const right = listItems(t, rl ?? [], path, this.#merging);
    const out = this.#merging
      ? this.#mergeItems(t, left.items, right.items, left.byKey, right.byKey, path)
      : this.#compareItems(t, left.byKey, right.byKey, path);
    if (!childrenOnly) this.#post(leafLhs, rhs, path);
    return out;
  }

  #item(
    t: ListType,
    l: ListItem | undefined,
    r: ListItem | undefined,
    path: PathElement[],
  ): unknown {
    path.push((r ?? l)!.pe);
    const v = this.walk(t.element, l?.value, r?.value, path);
    path.pop();
    return v;
  }

  #compareItems(
    t: ListType,
    left: Map<string, ListItem>,
    right: Map<string, ListItem>,
    path: PathElement[],
  ): undefined {
    for (const [key, r] of right) this.#item(t, left.get(key), r, path);
    for (const [key, l] of left) if (!right.has(key)) this.#item(t, l, undefined, path);
    return undefined;
  }

  /**
   * structured-merge-diff's ordering: items only the live list has keep their place; items the
   * configuration names come in its order, each merged with its live counterpart. A live
   * duplicate (a key given twice) stays as it is unless the configuration names that key.
   */
  #mergeItems(
    t: ListType,
    lhs: ListItem[],
    rhs: ListItem[],
    lhsByKey: Map<string, ListItem>,
    rhsByKey: Map<string, ListItem>,
    path: PathElement[],
  ): unknown[] {
    const out: unknown[] = [];
    const shared = rhs.filter((r) => lhsByKey.has(r.pe.key)).map((r) => r.pe.key);
    let next = 0;
    let l = 0;
    let r = 0;
    const push = (v: unknown) => {
      if (v !== undefined) out.push(v);
    };
    while (l < lhs.length || r < rhs.length) {
      const li = lhs[l];
      if (li?.duplicate) {
        if (!rhsByKey.has(li.pe.key)) out.push(li.value);
        l++;
        continue;
      }
      if (li !== undefined && r < rhs.length) {
        if (li.pe.key === rhs[r]!.pe.key) {
          push(this.#item(t, li, rhs[r], path));
          l++;
          r++;
          next++;
          continue;
        }
        if (rhsByKey.has(li.pe.key) && next < shared.length && shared[next] !== li.pe.key) {
          l++;
          continue;
        }
      }
      if (li !== undefined && !rhsByKey.has(li.pe.key)) {
        push(this.#item(t, li, undefined, path));
        l++;
        continue;
      }
      if (r < rhs.length) {
        const ri = rhs[r]!;
        push(this.#item(t, lhsByKey.get(ri.pe.key), ri, path));
        r++;
        if (next < shared.length && shared[next] === ri.pe.key) next++;
        continue;
      }
      l++; // a live item the configuration named, already merged
    }
    return out;
  }
}
