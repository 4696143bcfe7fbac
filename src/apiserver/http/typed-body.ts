import { errors } from "../../core/index.ts";

/*
 * Decoding a request body into a kind the server does not store (a review, a TokenRequest) as
 * kube's JSON decoding does: a value of the wrong JSON type is a 400 naming the Go field and
 * type, and fields the type does not have are dropped and reported (for `fieldValidation`).
 */

/** The type of a field, as Go's JSON decoding sees it. */
export type GoType =
  | { readonly kind: "string" | "bool" | "int" | "any"; readonly go: string }
  | { readonly kind: "list" | "map"; readonly go: string; readonly of: GoType }
  | { readonly kind: "struct"; readonly go: string; readonly fields: StructFields };

/** A struct's fields by JSON name (a function where the type refers to itself). */
export type StructFields =
  | Readonly<Record<string, GoType>>
  | (() => Readonly<Record<string, GoType>>);

export const goString: GoType = { kind: "string", go: "string" };
export const goBool: GoType = { kind: "bool", go: "bool" };
export const goInt64: GoType = { kind: "int", go: "int64" };
export const goInt32: GoType = { kind: "int", go: "int32" };
export const goStrings: GoType = { kind: "list", go: "[]string", of: goString };

/** A struct `go` (as Go prints it: `v1.ResourceAttributes`) with `fields`. */
export function goStruct(go: string, fields: StructFields): GoType {
  return { kind: "struct", go, fields };
}

/** `map[string]<of>`. */
export function goMap(of: GoType): GoType {
  return { kind: "map", go: `map[string]${of.go}`, of };
}

const ANY: GoType = { kind: "any", go: "interface {}" };

/** ObjectMeta (meta/v1): its fields known (their values not checked here), others dropped. */
export const objectMeta: GoType = goStruct(
  "v1.ObjectMeta",
  Object.fromEntries(
    [
      "name",
      "generateName",
      "namespace",
      "selfLink",
      "uid",
      "resourceVersion",
      "generation",
      "creationTimestamp",
      "deletionTimestamp",
      "deletionGracePeriodSeconds",
      "labels",
      "annotations",
      "ownerReferences",
      "finalizers",
      "managedFields",
    ].map((f) => [f, ANY]),
  ),
);

/** The kind a body is decoded as, for the wording of errors. */
export interface DecodeTarget {
  readonly kind: string;
  readonly version: string;
  /** The kind's top-level fields besides apiVersion, kind and metadata. */
  readonly fields: Readonly<Record<string, GoType>>;
}

/**
 * Checks `body` against `target`'s type in place: drops the fields it does not have and returns
 * their paths (`spec.foo`); throws kube's 400 for the first value of the wrong JSON type
 * (`TokenRequest in version "v1" cannot be handled as a TokenRequest: json: cannot unmarshal
 * string into Go struct field TokenRequestSpec.spec.expirationSeconds of type int64`).
 */
export function decodeTyped(body: Record<string, unknown>, target: DecodeTarget): string[] {
  const dropped: string[] = [];
  const root = goStruct(target.kind, {
    apiVersion: goString,
    kind: goString,
    metadata: objectMeta,
    ...target.fields,
  });
  const problem = walk(root, body, "", target.kind, dropped);
  if (problem !== undefined) {
    throw errors.badRequest(
      `${target.kind} in version ${JSON.stringify(target.version)} cannot be handled as a ${target.kind}: json: ${problem}`,
    );
  }
  return dropped;
}

/**
 * `object` with its fields in the order kube's Go types write them: kind, apiVersion, metadata,
 * then `target`'s fields (and theirs, nested) in their declared order; fields the types do not
 * name keep their place after those.
 */
export function inGoOrder<T>(object: T, target: DecodeTarget): T {
  const root = goStruct(target.kind, {
    kind: goString,
    apiVersion: goString,
    metadata: { kind: "any", go: "v1.ObjectMeta" },
    ...target.fields,
  });
  return reorder(root, object) as T;
}

function reorder(type: GoType, value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (type.kind === "list" && Array.isArray(value)) return value.map((v) => reorder(type.of, v));
  if (type.kind === "map" && !Array.isArray(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, reorder(type.of, v)]));
  }
  if (type.kind !== "struct" || Array.isArray(value)) return value;
  const fields = typeof type.fields === "function" ? type.fields() : type.fields;
  const o = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, t] of Object.entries(fields)) {
    if (key in o) out[key] = reorder(t, o[key]);
  }
  for (const [key, v] of Object.entries(o)) if (!(key in out)) out[key] = v;
  return out;
}

function jsonType(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return `number ${value}`;
  if (typeof value === "boolean") return "bool";
  return typeof value;
}

/** Checks one value; returns Go's message for the first type error, if any. */
function walk(
  type: GoType,
  value: unknown,
  path: string,
  owner: string,
  dropped: string[],
): string | undefined {
  if (value === null || type.kind === "any") return undefined;
  const wrong = () =>
    `cannot unmarshal ${jsonType(value)} into Go struct field ${owner}.${path} of type ${type.go}`;
  switch (type.kind) {
    case "string":
      return typeof value === "string" ? undefined : wrong();
    case "bool":
      return typeof value === "boolean" ? undefined : wrong();
    case "int":
      return typeof value === "number" && Number.isInteger(value) ? undefined : wrong();
    case "list": {
      if (!Array.isArray(value)) return wrong();
      for (const item of value) {
        const p = walk(type.of, item, path, owner, dropped);
        if (p !== undefined) return p;
      }
      return undefined;
    }
    case "map": {
      if (typeof value !== "object" || Array.isArray(value)) return wrong();
      for (const [k, v] of Object.entries(value)) {
        const p = walk(type.of, v, `${path}.${k}`, owner, dropped);
        if (p !== undefined) return p;
      }
      return undefined;
    }
    case "struct": {
      if (typeof value !== "object" || Array.isArray(value)) return wrong();
      const fields = typeof type.fields === "function" ? type.fields() : type.fields;
      const o = value as Record<string, unknown>;
      // Go names the struct that holds a field by its type's name without the package.
      const name = path === "" ? owner : type.go.slice(type.go.indexOf(".") + 1);
      for (const key of Object.keys(o)) {
        const field = fields[key];
        const p = path === "" ? key : `${path}.${key}`;
        if (field === undefined) {
          delete o[key];
          dropped.push(p);
          continue;
        }
        const problem = walk(field, o[key], p, name, dropped);
        if (problem !== undefined) return problem;
      }
      return undefined;
    }
  }
}
