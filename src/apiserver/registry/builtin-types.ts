import type { MergeField, MergeType } from "../patch/strategic-merge.ts";
import { BUILTIN_ROOTS, BUILTIN_TYPES } from "./builtin-fields.ts";

/*
 * The generated table of the built-in types (builtin-fields.ts), read: each type's fields with
 * their values' shapes, list and map semantics, strategic merge patch strategy and whether Go
 * always writes them. Pruning, server-side apply's schema and strategic merge patch all read the
 * built-in kinds from here, so each fact has this one source.
 */

/** The shape of a field's value. */
export type FieldValue =
  | {
      readonly kind: "scalar";
      /**
       * Its Go type as JSON decoding checks it: `string`, `int32`, `int64`, `float64`, `bool`, or
       * `intstr`/`quantity` (a string or a number).
       */
      readonly go: string;
    }
  | { readonly kind: "any"; readonly atomic?: boolean }
  | { readonly kind: "struct"; readonly type: string }
  | {
      readonly kind: "list";
      readonly listType: "atomic" | "set" | "map";
      /** Key fields of a `map` list. */
      readonly keys: readonly string[];
      /** Defaults of key fields, where the type has one (a port's `protocol: "TCP"`). */
      readonly keyDefaults: Readonly<Record<string, unknown>>;
      readonly element: FieldValue;
    }
  | { readonly kind: "map"; readonly atomic: boolean; readonly element: FieldValue };

/** A strategic merge patch strategy of a field (Go's `patchStrategy`/`patchMergeKey` tags). */
export interface PatchStrategy {
  /** `merge`: a list merged by `mergeKey`, or (without it) a list of scalars merged as a set. */
  readonly merge?: boolean;
  readonly mergeKey?: string;
  readonly retainKeys?: boolean;
  readonly replace?: boolean;
}

/** One field of a built-in type. */
export interface BuiltinField {
  readonly value: FieldValue;
  /** What Go writes when the field is empty, if it always writes it: `{}` or null. */
  readonly written?: Record<string, never> | null;
  readonly patch?: PatchStrategy;
}

/** A built-in type: its fields, and whether it is replaced whole (`+structType=atomic`). */
export interface BuiltinType {
  readonly name: string;
  readonly atomic: boolean;
  readonly fields: ReadonlyMap<string, BuiltinField>;
}

const STRING_VALUE: FieldValue = { kind: "scalar", go: "string" };
const ANY_VALUE: FieldValue = { kind: "any" };
const ANY_ATOMIC_VALUE: FieldValue = { kind: "any", atomic: true };
const parsed = new Map<string, BuiltinType>();

/** The type `name` of the table (undefined if the table does not have it). */
export function builtinTypeNamed(name: string): BuiltinType | undefined {
  const cached = parsed.get(name);
  if (cached !== undefined) return cached;
  const entry = BUILTIN_TYPES[name];
  if (entry === undefined) return undefined;
  const fields = new Map<string, BuiltinField>();
  let atomic = false;
  for (const spec of entry.split(" ")) {
    if (spec === "") continue;
    if (spec === "@atomic") {
      atomic = true;
      continue;
    }
    const colon = spec.indexOf(":");
    const head = colon < 0 ? spec : spec.slice(0, colon);
    const mark = head.at(-1);
    const fieldName = mark === "!" || mark === "~" ? head.slice(0, -1) : head;
    const rest = colon < 0 ? "" : spec.slice(colon + 1);
    const slash = rest.indexOf("/");
    const value = parseValue(slash < 0 ? rest : rest.slice(0, slash));
    const patch = slash < 0 ? undefined : parsePatch(rest.slice(slash + 1));
    fields.set(fieldName, {
      value,
      ...(mark === "!" ? { written: {} } : mark === "~" ? { written: null } : {}),
      ...(patch ? { patch } : {}),
    });
  }
  const type: BuiltinType = { name, atomic, fields };
  parsed.set(name, type);
  return type;
}

/**
 * The root type of a built-in kind, by `group/version/Kind` (`/v1/Pod` for the core group), or
 * undefined for a kind the table does not have.
 */
export function builtinRoot(group: string, version: string, kind: string): BuiltinType | undefined {
  const root = BUILTIN_ROOTS[`${group}/${version}/${kind}`];
  return root === undefined ? undefined : builtinTypeNamed(root);
}

/** How a strategic merge patch merges a built-in kind's objects (undefined for another kind). */
export function strategicMergeType(
  group: string,
  version: string,
  kind: string,
): MergeType | undefined {
  const root = BUILTIN_ROOTS[`${group}/${version}/${kind}`];
  return root === undefined ? undefined : mergeTypeOf({ kind: "struct", type: root });
}

const mergeTypes = new Map<string, MergeType>();

/** The merge view of a value: a struct's fields, or a map's entries; undefined otherwise. */
function mergeTypeOf(value: FieldValue): MergeType | undefined {
  if (value.kind === "map") {
    const entries = mergeTypeOf(value.element);
    const field: MergeField = entries === undefined ? {} : { type: entries };
    return { field: () => field };
  }
  if (value.kind !== "struct") return undefined;
  const cached = mergeTypes.get(value.type);
  if (cached !== undefined) return cached;
  const fields = new Map<string, MergeField>();
  const type: MergeType = {
    field(key) {
      let f = fields.get(key);
      if (f === undefined) {
        const field = builtinTypeNamed(value.type)?.fields.get(key);
        if (field === undefined) return undefined;
        f = mergeFieldOf(field);
        fields.set(key, f);
      }
      return f;
    },
  };
  mergeTypes.set(value.type, type);
  return type;
}

function mergeFieldOf(field: BuiltinField): MergeField {
  const value = field.value;
  const type = mergeTypeOf(value.kind === "list" ? value.element : value);
  const patch = field.patch;
  const list =
    patch?.merge !== true
      ? undefined
      : patch.mergeKey === undefined
        ? { primitive: true as const }
        : { mergeKey: patch.mergeKey };
  return { ...(type ? { type } : {}), ...(list ? { list } : {}) };
}

function parseValue(text: string): FieldValue {
  if (text === "") return STRING_VALUE;
  if (text.startsWith("%")) return { kind: "scalar", go: text.slice(1) };
  if (text === "*") return ANY_VALUE;
  if (text === "*atomic") return ANY_ATOMIC_VALUE;
  if (text.startsWith("[")) {
    const close = text.indexOf("]");
    const semantics = text.slice(1, close);
    const element = parseValue(text.slice(close + 1));
    if (semantics === "") return list("atomic", [], {}, element);
    if (semantics === "set") return list("set", [], {}, element);
    const keys: string[] = [];
    const keyDefaults: Record<string, unknown> = {};
    for (const key of semantics.slice("map=".length).split(",")) {
      const at = key.indexOf(":");
      if (at < 0) keys.push(key);
      else {
        keys.push(key.slice(0, at));
        const d = key.slice(at + 1);
        keyDefaults[key.slice(0, at)] = /^-?\d+$/.test(d) ? Number(d) : d;
      }
    }
    return list("map", keys, keyDefaults, element);
  }
  if (text.startsWith("{")) {
    const close = text.indexOf("}");
    return {
      kind: "map",
      atomic: text.slice(1, close) === "atomic",
      element: parseValue(text.slice(close + 1)),
    };
  }
  return { kind: "struct", type: text };
}

function list(
  listType: "atomic" | "set" | "map",
  keys: string[],
  keyDefaults: Record<string, unknown>,
  element: FieldValue,
): FieldValue {
  return { kind: "list", listType, keys, keyDefaults, element };
}

function parsePatch(text: string): PatchStrategy {
  const out: { merge?: boolean; mergeKey?: string; retainKeys?: boolean; replace?: boolean } = {};
  for (const part of text.split("/")) {
    if (part === "retainKeys") out.retainKeys = true;
    else if (part === "replace") out.replace = true;
    else if (part === "merge") out.merge = true;
    else if (part.startsWith("merge=")) {
      out.merge = true;
      out.mergeKey = part.slice("merge=".length);
    }
  }
  return out;
}
