import { cloneJson, errors } from "../../core/index.ts";
import {
  builtinTypeNamed,
  type FieldValue,
  type PatchStrategy,
} from "../registry/builtin-types.ts";

type Obj = Record<string, unknown>;

/**
 * Where the merge is in the object's type: a struct of the built-in types table, a map of some
 * value, or unknown (a kind the table does not have, arbitrary JSON) — where every list is
 * replaced whole.
 */
type At = FieldValue | undefined;

/** The value and strategic merge patch strategy of `key` at `at`. */
function child(at: At, key: string): { value?: FieldValue; patch?: PatchStrategy } {
  if (at?.kind === "map") return { value: at.element };
  if (at?.kind !== "struct") return {};
  const field = builtinTypeNamed(at.type)?.fields.get(key);
  return field === undefined
    ? {}
    : { value: field.value, ...(field.patch ? { patch: field.patch } : {}) };
}

/** How a list field merges: by a key, as a set of scalars, or not at all (replaced). */
type ListStrategy = { mergeKey: string } | { primitive: true } | undefined;

function listStrategy(patch: PatchStrategy | undefined): ListStrategy {
  if (patch?.merge !== true) return undefined;
  return patch.mergeKey === undefined ? { primitive: true } : { mergeKey: patch.mergeKey };
}

/** The items' place in the type of a list field. */
function itemsOf(value: FieldValue | undefined): At {
  return value?.kind === "list" ? value.element : undefined;
}

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Applies a strategic merge patch to an object of the built-in type `root` (`{kind: "struct",
 * type}`, from the built-in types table; undefined for a kind it does not have): like a merge
 * patch, but lists whose field has the merge strategy merge element by element by their merge
 * key, or take the union of scalars, and the directives `$patch` (replace/delete/merge),
 * `$retainKeys`, `$setElementOrder/<list>` and `$deleteFromPrimitiveList/<list>` are honoured.
 * A malformed directive is 400. Inputs are not modified.
 */
export function applyStrategicMerge(root: At, original: unknown, patch: unknown): unknown {
  if (!isObj(patch)) throw errors.badRequest("a strategic merge patch must be a JSON object");
  return mergeObject(root, "", isObj(original) ? original : {}, patch);
}

function join(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

function mergeObject(at: At, path: string, original: Obj, patch: Obj): Obj {
  const directive = patch.$patch;
  if (directive === "replace") {
    const { $patch: _, ...rest } = patch;
    return cloneJson(rest);
  }
  if (directive !== undefined && directive !== "merge" && directive !== "delete") {
    throw errors.badRequest(
      `unknown $patch directive ${JSON.stringify(directive)} at ${path || "the top level"}`,
    );
  }
  const result: Obj = { ...original };
  const retain = patch.$retainKeys;
  if (retain !== undefined) {
    if (!Array.isArray(retain))
      throw errors.badRequest(
        `$retainKeys at ${path || "the top level"} must be a list of field names`,
      );
    for (const k of Object.keys(result)) if (!retain.includes(k)) delete result[k];
  }
  const orders: [string, unknown][] = [];
  for (const [key, value] of Object.entries(patch)) {
    if (key === "$patch" || key === "$retainKeys") continue;
    if (key.startsWith("$setElementOrder/")) {
      orders.push([key.slice("$setElementOrder/".length), value]);
      continue;
    }
    if (key.startsWith("$deleteFromPrimitiveList/")) {
      const list = key.slice("$deleteFromPrimitiveList/".length);
      if (!Array.isArray(value)) throw errors.badRequest(`${key} must be a list`);
      const cur = result[list];
      if (Array.isArray(cur))
        result[list] = cur.filter(
          (v) => !value.some((d) => JSON.stringify(d) === JSON.stringify(v)),
        );
      continue;
    }
    const p = join(path, key);
    const field = child(at, key);
    if (value === null) {
      delete result[key];
    } else if (isObj(value)) {
      if (value.$patch === "delete") delete result[key];
      else
        result[key] = mergeObject(
          field.value,
          p,
          isObj(result[key]) ? (result[key] as Obj) : {},
          value,
        );
    } else if (Array.isArray(value)) {
      result[key] = mergeList(
        field,
        p,
        Array.isArray(result[key]) ? (result[key] as unknown[]) : [],
        value,
      );
    } else {
      result[key] = value;
    }
  }
  for (const [list, order] of orders) {
    if (!Array.isArray(order)) throw errors.badRequest(`$setElementOrder/${list} must be a list`);
    const cur = result[list];
    if (Array.isArray(cur)) result[list] = reorder(listStrategy(child(at, list).patch), cur, order);
  }
  return result;
}

function mergeList(
  field: { value?: FieldValue; patch?: PatchStrategy },
  path: string,
  original: unknown[],
  patch: unknown[],
): unknown[] {
  const strategy = listStrategy(field.patch);
  const items = itemsOf(field.value);
  if (strategy === undefined)
    return cloneJson(patch.filter((v) => !(isObj(v) && v.$patch !== undefined)));
  if ("primitive" in strategy) {
    const out = [...original];
    for (const v of patch)
      if (!out.some((o) => JSON.stringify(o) === JSON.stringify(v))) out.push(v);
    return out;
  }
  const key = strategy.mergeKey;
  if (patch.some((v) => isObj(v) && v.$patch === "replace")) {
    return cloneJson(patch.filter((v) => !(isObj(v) && v.$patch === "replace")));
  }
  const out = [...original];
  for (const item of patch) {
    if (!isObj(item))
      throw errors.badRequest(`the list ${path} merges by ${key}: its items must be objects`);
    const at = out.findIndex((o) => isObj(o) && o[key] === item[key]);
    if (item.$patch === "delete") {
      if (at >= 0) out.splice(at, 1);
      continue;
    }
    if (at >= 0) out[at] = mergeObject(items, `${path}[]`, out[at] as Obj, item);
    else out.push(mergeObject(items, `${path}[]`, {}, item));
  }
  return out;
}

/** Orders `list` as `order` says (by merge key or value); items not named keep their place after. */
function reorder(strategy: ListStrategy, list: unknown[], order: unknown[]): unknown[] {
  const id = (v: unknown) =>
    strategy !== undefined && "mergeKey" in strategy && isObj(v)
      ? JSON.stringify(v[strategy.mergeKey])
      : JSON.stringify(v);
  const rank = new Map(order.map((o, i) => [id(o), i]));
  const named = list
    .filter((v) => rank.has(id(v)))
    .sort((a, b) => rank.get(id(a))! - rank.get(id(b))!);
  const others = list.filter((v) => !rank.has(id(v)));
  return [...named, ...others];
}
