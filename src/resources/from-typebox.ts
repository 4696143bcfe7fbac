import { type OpenApiSchema, SHARED_KEYWORDS } from "./openapi-schema.ts";

/**
 * Turns a TypeBox (JSON Schema) type into the structural OpenAPI dialect of CRDs, or throws a
 * `TypeError` naming the path of what has no CRD equivalent. The mapping:
 *
 * | TypeBox | CRD schema |
 * | --- | --- |
 * | `Type.Unknown()` / `Type.Any()` | `x-kubernetes-preserve-unknown-fields: true` |
 * | `Type.Literal(v)`, union of literals, `Type.Enum` | `type` + `enum` |
 * | `Type.Union([T, Type.Null()])` | `T` with `nullable: true` |
 * | `Type.Union([Type.Integer(), Type.String()])` | `x-kubernetes-int-or-string: true` |
 * | `Type.Record(Type.String(), T)` | `type: object`, `additionalProperties: T` |
 * | `exclusiveMinimum: n` (draft 2019) | `minimum: n`, `exclusiveMinimum: true` (OpenAPI 3.0) |
 * | `additionalProperties: false` | dropped: the API server prunes unknown fields instead |
 * | `Type.Object({})` | `type: object` preserving unknown fields |
 * | `Type.Object({}, { additionalProperties: false })` | `type: object` (every field pruned) |
 * | literals mixing integers and numbers | `type: number` + `enum` |
 *
 * Other unions, intersections, tuples, `$ref`s and non-JSON types (Date, bigint, functions)
 * are refused.
 */
export function fromTypeBox(schema: unknown, path: string): OpenApiSchema {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw new TypeError(`${path}: expected a TypeBox schema, got ${JSON.stringify(schema)}`);
  }
  // Strip TypeBox's symbol and non-enumerable bookkeeping: only JSON Schema remains.
  const s = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  return convert(s, path);
}

const PRIMITIVES = new Set(["string", "integer", "number", "boolean"]);

function convert(s: Record<string, unknown>, path: string): OpenApiSchema {
  const refuse = (why: string): never => {
    throw new TypeError(`${path}: ${why}`);
  };
  const keys = Object.keys(s);
  const annotations = { ...pick(s), ...exclusiveBounds(s) };

  // Already in the CRD dialect (x-kubernetes-* extensions passed as TypeBox options).
  for (const k of keys) {
    if (k.startsWith("x-kubernetes-")) (annotations as Record<string, unknown>)[k] = s[k];
  }

  if ("$ref" in s) refuse("$ref is not supported in CRD schemas; inline the type");
  // On a typed node, junctors are value validations (`Type.String({ anyOf: [{ format: "date" },
  // { format: "date-time" }] })`): they pass through as they are, as in a structural schema.
  const junctors: Record<string, unknown> = {};
  if (typeof s.type === "string") {
    for (const j of ["allOf", "anyOf", "oneOf", "not"]) {
      if (s[j] !== undefined) junctors[j] = s[j];
      delete s[j];
    }
  }
  if ("allOf" in s)
    refuse("intersections (allOf) are not structural; use Type.Composite or one Type.Object");
  if ("items" in s && Array.isArray(s.items))
    refuse("tuples are not supported in CRD schemas; use Type.Array");
  if ("prefixItems" in s) refuse("tuples are not supported in CRD schemas; use Type.Array");

  if ("anyOf" in s || "oneOf" in s)
    return {
      ...convertUnion((s.anyOf ?? s.oneOf) as Record<string, unknown>[], path),
      ...annotations,
    };

  if ("const" in s) return { ...literals([s.const], path), ...annotations };
  if ("enum" in s && s.type === undefined)
    return { ...literals(s.enum as unknown[], path), ...annotations };

  const type = s.type;
  if (type === undefined) {
    const meaningful = keys.filter(
      (k) => !SHARED_KEYWORDS.includes(k) && !k.startsWith("x-kubernetes-"),
    );
    if (meaningful.length > 0)
      refuse(`cannot map a schema without a type (keywords: ${meaningful.join(", ")})`);
    return { "x-kubernetes-preserve-unknown-fields": true, ...annotations };
  }
  if (Array.isArray(type)) refuse("a list of types is not supported; use Type.Union");
  if (type === "null") refuse("a field that can only be null has no CRD equivalent");

  const out: OpenApiSchema = { ...annotations, ...junctors };
  if (Array.isArray(s.enum)) out.enum = s.enum;

  if (PRIMITIVES.has(type as string)) {
    return { type: type as OpenApiSchema["type"], ...out };
  }
  if (type === "array") {
    if (s.items === undefined) refuse("an array needs items");
    if (s.uniqueItems === true) {
      // Sets are a list type in CRDs, not a JSON Schema keyword.
      out["x-kubernetes-list-type"] = "set";
    }
    return {
      type: "array",
      ...out,
      items: convert(s.items as Record<string, unknown>, `${path}.items`),
    };
  }
  if (type === "object") {
    const result: OpenApiSchema = { type: "object", ...out };
    const props = s.properties as Record<string, Record<string, unknown>> | undefined;
    const patterns = s.patternProperties as Record<string, Record<string, unknown>> | undefined;
    if (props !== undefined && Object.keys(props).length > 0) {
      result.properties = {};
      for (const [name, child] of Object.entries(props)) {
        result.properties[name] = convert(child, `${path}.${name}`);
      }
      const required = (s.required as string[] | undefined) ?? [];
      if (required.length > 0) result.required = [...required];
    }
    if (patterns !== undefined) {
      const entries = Object.entries(patterns);
      if (entries.length !== 1 || !/^\^?\(?\.\*\)?\$?$/.test(entries[0]![0])) {
        refuse("patternProperties are not supported; use Type.Record(Type.String(), T)");
      }
      if (result.properties !== undefined) refuse("a record cannot also have named properties");
      result.additionalProperties = convert(entries[0]![1], `${path}[*]`);
    } else if (typeof s.additionalProperties === "object" && s.additionalProperties !== null) {
      result.additionalProperties = convert(
        s.additionalProperties as Record<string, unknown>,
        `${path}[*]`,
      );
    }
    if (
      result.properties === undefined &&
      result.additionalProperties === undefined &&
      s.additionalProperties !== false
    ) {
      // An object with no declared fields keeps whatever it is given, unless it says it has none.
      result["x-kubernetes-preserve-unknown-fields"] = true;
    }
    return result;
  }
  return refuse(`type "${String(type)}" has no CRD equivalent`);
}

function pick(s: Record<string, unknown>): OpenApiSchema {
  const out: Record<string, unknown> = {};
  for (const k of SHARED_KEYWORDS) if (s[k] !== undefined) out[k] = s[k];
  return out as OpenApiSchema;
}

/** JSON Schema's numeric exclusive bounds as OpenAPI 3.0's boolean ones. */
function exclusiveBounds(s: Record<string, unknown>): OpenApiSchema {
  const out: OpenApiSchema = {};
  if (typeof s.exclusiveMinimum === "number") {
    out.minimum = s.exclusiveMinimum;
    out.exclusiveMinimum = true;
  }
  if (typeof s.exclusiveMaximum === "number") {
    out.maximum = s.exclusiveMaximum;
    out.exclusiveMaximum = true;
  }
  return out;
}

function literals(values: unknown[], path: string): OpenApiSchema {
  const types = new Set(values.map(jsonType));
  // An integer is a number too: 1.5 and 2 are numbers.
  if (types.size === 2 && types.has("integer") && types.has("number")) types.delete("integer");
  if (types.size !== 1) {
    throw new TypeError(
      `${path}: an enum mixes types (${[...types].join(", ")}); CRD enums have one type`,
    );
  }
  const [type] = types as Set<string>;
  if (!PRIMITIVES.has(type!))
    throw new TypeError(`${path}: enum values must be strings, numbers or booleans`);
  return { type: type as OpenApiSchema["type"], enum: values };
}

function jsonType(v: unknown): string {
  if (v === null) return "null";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

function convertUnion(members: Record<string, unknown>[], path: string): OpenApiSchema {
  const nonNull = members.filter((m) => m.type !== "null");
  const nullable = nonNull.length < members.length;
  const withNull = (s: OpenApiSchema): OpenApiSchema => (nullable ? { ...s, nullable: true } : s);
  if (nonNull.length === 0)
    throw new TypeError(`${path}: a field that can only be null has no CRD equivalent`);
  if (nonNull.length === 1) return withNull(convert(nonNull[0]!, path));
  if (nonNull.every((m) => "const" in m))
    return withNull(
      literals(
        nonNull.map((m) => m.const),
        path,
      ),
    );
  const types = nonNull.map((m) => m.type).sort();
  if (
    nonNull.length === 2 &&
    types[0] === "integer" &&
    types[1] === "string" &&
    nonNull.every((m) => Object.keys(m).length === 1)
  ) {
    return withNull({ "x-kubernetes-int-or-string": true });
  }
  throw new TypeError(
    `${path}: this union is not structural; CRD fields have one type (allowed: unions of literals, T | null, integer | string)`,
  );
}
