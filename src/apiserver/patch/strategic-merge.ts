import { cloneJson, errors } from "../../core/index.ts";

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * What a strategic merge patch knows of a place in the object's type (the registry builds it
 * from the built-in types table): how each field's value merges. Where it is unknown (a kind
 * without a type, arbitrary JSON), every list is replaced whole.
 */
export interface MergeType {
  /** Field `key` here, if the type has it. */
  field(key: string): MergeField | undefined;
}

/** A field of a {@link MergeType}. */
export interface MergeField {
  /** The type of the value — of each item, for a list — if it has fields. */
  readonly type?: MergeType;
  /** A list merged by a key, or as a set of scalars; replaced whole without it. */
  readonly list?: ListStrategy;
}

/** How a list field merges: by a key, or as a set of scalars. */
export type ListStrategy = { mergeKey: string } | { primitive: true };

/**
 * Applies a strategic merge patch to an object of type `root` (undefined for a kind without
 * one): like a merge patch, but lists whose field has the merge strategy merge element by
 * element by their merge key, or take the union of scalars, and the directives `$patch`
 * (replace/delete/merge), `$retainKeys`, `$setElementOrder/<list>` and
 * `$deleteFromPrimitiveList/<list>` are honoured. A malformed directive is 400. Inputs are not
 * modified.
 */
export function applyStrategicMerge(
  root: MergeType | undefined,
  original: unknown,
  patch: unknown,
): unknown {
  if (!isObj(patch)) throw errors.badRequest("a strategic merge patch must be a JSON object");
  return mergeObject(root, "", isObj(original) ? original : {}, patch);
}

function join(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

function mergeObject(at: MergeType | undefined, path: string, original: Obj, patch: Obj): Obj {
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
    const field = at?.field(key);
    if (value === null) {
      delete result[key];
    } else if (isObj(value)) {
      if (value.$patch === "delete") delete result[key];
      else
        result[key] = mergeObject(
          field?.type,
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
    if (Array.isArray(cur)) result[list] = reorder(at?.field(list)?.list, cur, order);
  }
  return result;
}

function mergeList(
  field: MergeField | undefined,
  path: string,
  original: unknown[],
  patch: unknown[],
): unknown[] {
  const strategy = field?.list;
  const items = field?.type;
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
function reorder(strategy: ListStrategy | undefined, list: unknown[], order: unknown[]): unknown[] {
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
