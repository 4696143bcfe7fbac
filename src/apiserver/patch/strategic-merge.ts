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
    const id = (v: unknown) => JSON.stringify(v);
    const sent = new Set(patch.map(id));
    const added = patch.filter((v, i) => patch.findIndex((w) => id(w) === id(v)) === i);
    return mergeSorted(
      original.filter((v) => !sent.has(id(v))),
      added,
      original,
      id,
    );
  }
  const key = strategy.mergeKey;
  if (patch.some((v) => isObj(v) && v.$patch === "replace")) {
    return cloneJson(patch.filter((v) => !(isObj(v) && v.$patch === "replace")));
  }
  const id = (v: unknown) => (isObj(v) ? JSON.stringify(v[key]) : `\0${JSON.stringify(v)}`);
  const merged: unknown[] = [];
  for (const item of patch) {
    if (!isObj(item))
      throw errors.badRequest(`the list ${path} merges by ${key}: its items must be objects`);
    if (item.$patch === "delete") continue;
    const at = merged.findIndex((o) => id(o) === id(item));
    const base = at >= 0 ? merged[at] : original.find((o) => id(o) === id(item));
    const next = mergeObject(items, `${path}[]`, (base ?? {}) as Obj, item);
    if (at >= 0) merged[at] = next;
    else merged.push(next);
  }
  const sent = new Set(patch.map(id));
  return mergeSorted(
    original.filter((o) => !sent.has(id(o))),
    merged,
    original,
    id,
  );
}

/**
 * The items the server alone has (`serverOnly`, in their order) and the patch's (`patched`, in
 * the patch's order) as one list, as kube's merge of two sorted lists: a server item goes before
 * a patch item only where both are in the live list and it came first there, so an item new to
 * the list lands before the server's items not yet placed.
 */
function mergeSorted(
  serverOnly: unknown[],
  patched: unknown[],
  live: unknown[],
  id: (v: unknown) => string,
): unknown[] {
  const rank = new Map<string, number>();
  live.forEach((v, i) => {
    if (!rank.has(id(v))) rank.set(id(v), i);
  });
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length || j < patched.length) {
    if (i >= serverOnly.length) out.push(patched[j++]);
    else if (j >= patched.length) out.push(serverOnly[i++]);
    else {
      const l = rank.get(id(serverOnly[i]));
      const r = rank.get(id(patched[j]));
      if (l !== undefined && r !== undefined && l < r) out.push(serverOnly[i++]);
      else out.push(patched[j++]);
    }
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
