import { errorMessage, type StatusCause } from "../core/index.ts";
import {
  OPENAPI_SCHEMA_KEYWORDS,
  type OpenApiSchema,
  X_KUBERNETES_SHAPE_KEYWORDS,
} from "./openapi-schema.ts";
import { compileRe2 } from "./re2.ts";
import { checkDefaults } from "./schema-default-rules.ts";
import { checkListsAndMaps, type Report } from "./schema-list-rules.ts";

/**
 * The rules that make a CRD schema *structural*, as kube-apiserver enforces them for
 * apiextensions.k8s.io/v1: every field has a type (unless it is int-or-string or preserves
 * unknown fields), `properties` and `additionalProperties` exclude each other, logical
 * junctors (allOf/anyOf/oneOf/not) carry only value validations, and the JSON-Schema features
 * that CRDs do not support are absent; the list and map extensions are used as kube allows
 * (`schema-list-rules.ts`); and, once all that holds, every `default` is valid where it stands
 * (`schema-default-rules.ts`). Returns every problem, each with the field path (under `base`)
 * and a kube-style message; an empty list means kube-apiserver accepts the schema (CEL rules in
 * `x-kubernetes-validations` excepted: they are not compiled).
 */
export function structuralProblems(schema: OpenApiSchema, base: string): StatusCause[] {
  const problems: StatusCause[] = [];
  const at = (path: string, reason: StatusCause["reason"], message: string) =>
    problems.push({ field: path, reason, message });

  if (schema.type === undefined) {
    at(`${base}.type`, "FieldValueRequired", "Required value: must not be empty at the root");
  } else if (schema.type !== "object") {
    at(
      `${base}.type`,
      "FieldValueInvalid",
      `Invalid value: "${schema.type}": must be object at the root`,
    );
  }
  checkNode(schema, base, "root", at);
  checkRootMetadata(schema, base, at);
  // As kube: defaults are judged by the schema, so only once it is structural; the list and map
  // extensions are checked either way.
  if (problems.length === 0) checkDefaults(schema, base, at);
  checkListsAndMaps(schema, base, at);
  return problems;
}

const UNSUPPORTED: Record<string, string> = {
  $ref: "$ref is not supported",
  $schema: "$schema is not supported",
  definitions: "definitions is not supported",
  dependencies: "dependencies is not supported",
  id: "id is not supported",
  patternProperties: "patternProperties is not supported",
  additionalItems: "additionalItems is not supported",
  const: "const is not supported; use enum with one value",
};

/** Keywords a junctor (allOf/anyOf/oneOf/not) must not carry. */
const NOT_IN_JUNCTORS = [
  "type",
  "additionalProperties",
  "default",
  "nullable",
  "description",
  "title",
  ...X_KUBERNETES_SHAPE_KEYWORDS,
];

const TYPES = new Set(["object", "array", "string", "integer", "number", "boolean"]);

function checkNode(
  node: OpenApiSchema,
  path: string,
  role: "root" | "field" | "items" | "junctor",
  at: Report,
): void {
  if (typeof node !== "object" || node === null || Array.isArray(node)) {
    at(path, "FieldValueTypeInvalid", "Invalid value: must be a schema object");
    return;
  }
  const raw = node as Record<string, unknown>;
  for (const key of Object.keys(raw)) {
    if (key in UNSUPPORTED)
      at(`${path}.${key}`, "FieldValueForbidden", `Forbidden: ${UNSUPPORTED[key]}`);
    else if (!OPENAPI_SCHEMA_KEYWORDS.has(key)) {
      at(`${path}.${key}`, "FieldValueForbidden", `Forbidden: unknown schema keyword "${key}"`);
    }
  }
  const intOrString = node["x-kubernetes-int-or-string"] === true;
  const preserve = node["x-kubernetes-preserve-unknown-fields"] === true;

  if (role === "junctor") {
    for (const key of NOT_IN_JUNCTORS) {
      if (raw[key] !== undefined) {
        at(`${path}.${key}`, "FieldValueForbidden", "Forbidden: must be empty to be structural");
      }
    }
  } else if (node.type === undefined) {
    if (role !== "root" && !intOrString && !preserve) {
      const what = role === "items" ? "array items" : "specified object fields";
      at(`${path}.type`, "FieldValueRequired", `Required value: must not be empty for ${what}`);
    }
  } else if (!TYPES.has(node.type)) {
    at(
      `${path}.type`,
      "FieldValueNotSupported",
      `Unsupported value: "${node.type}": supported values: "array", "boolean", "integer", "number", "object", "string"`,
    );
  }

  if (intOrString && node.type !== undefined) {
    at(
      `${path}.type`,
      "FieldValueForbidden",
      "Forbidden: must be empty if x-kubernetes-int-or-string is true",
    );
  }
  if (raw["x-kubernetes-preserve-unknown-fields"] === false) {
    at(
      `${path}.x-kubernetes-preserve-unknown-fields`,
      "FieldValueInvalid",
      "Invalid value: false: must be true or undefined",
    );
  }
  if (node.properties !== undefined && node.additionalProperties !== undefined) {
    at(
      `${path}.additionalProperties`,
      "FieldValueForbidden",
      "Forbidden: additionalProperties and properties are mutual exclusive",
    );
  }
  if (node.additionalProperties === false) {
    at(
      `${path}.additionalProperties`,
      "FieldValueForbidden",
      "Forbidden: must not be false; unknown fields are pruned instead",
    );
  }
  if (typeof node.pattern === "string") {
    try {
      compileRe2(node.pattern);
    } catch (err) {
      at(
        `${path}.pattern`,
        "FieldValueInvalid",
        `Invalid value: ${JSON.stringify(node.pattern)}: must be a valid regular expression, but isn't: ${errorMessage(err)}`,
      );
    }
  }
  if (node.uniqueItems === true) {
    at(
      `${path}.uniqueItems`,
      "FieldValueForbidden",
      "Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
    );
  }
  if (Array.isArray(node.items)) {
    at(
      `${path}.items`,
      "FieldValueForbidden",
      "Forbidden: items must be a schema object and not an array",
    );
  } else if (node.items !== undefined) {
    checkNode(node.items, `${path}.items`, role === "junctor" ? "junctor" : "items", at);
  }
  if (node.type === "array" && node.items === undefined && role !== "junctor") {
    at(`${path}.items`, "FieldValueRequired", "Required value: must be specified");
  }
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    checkNode(child, `${path}.properties[${name}]`, role === "junctor" ? "junctor" : "field", at);
  }
  if (typeof node.additionalProperties === "object") {
    checkNode(
      node.additionalProperties,
      `${path}.additionalProperties`,
      role === "junctor" ? "junctor" : "field",
      at,
    );
  }
  // kube leaves unchecked the one form int-or-string is spelled with in generated CRDs:
  // `anyOf: [{type: integer}, {type: string}]`, or that anyOf as the first allOf.
  const skipAnyOf = intOrString && isIntOrStringAnyOf(node.anyOf);
  const skipFirstAllOf = intOrString && isIntOrStringAnyOf(node.allOf?.[0]?.anyOf);
  for (const junctor of ["allOf", "anyOf", "oneOf"] as const) {
    if (junctor === "anyOf" && skipAnyOf) continue;
    for (const [i, j] of (node[junctor] ?? []).entries()) {
      if (junctor === "allOf" && i === 0 && skipFirstAllOf) {
        checkNode({ ...j, anyOf: undefined }, `${path}.allOf[0]`, "junctor", at);
      } else {
        checkNode(j, `${path}.${junctor}[${i}]`, "junctor", at);
      }
    }
  }
  if (node.not !== undefined) checkNode(node.not, `${path}.not`, "junctor", at);
}

function isIntOrStringAnyOf(anyOf: readonly OpenApiSchema[] | undefined): boolean {
  if (anyOf?.length !== 2) return false;
  const only = (schema: OpenApiSchema | undefined, type: string) =>
    schema !== undefined && schema.type === type && Object.keys(schema).length === 1;
  return only(anyOf[0], "integer") && only(anyOf[1], "string");
}

/** At the root, `metadata` may only restrict `name` and `generateName`. */
function checkRootMetadata(schema: OpenApiSchema, base: string, at: Report): void {
  const meta = schema.properties?.metadata;
  if (meta === undefined) return;
  const path = `${base}.properties[metadata]`;
  const extra = Object.keys(meta).filter(
    (k) => k !== "type" && k !== "properties" && k !== "description",
  );
  const props = Object.keys(meta.properties ?? {}).filter(
    (k) => k !== "name" && k !== "generateName",
  );
  if (meta.type !== undefined && meta.type !== "object") {
    at(`${path}.type`, "FieldValueInvalid", `Invalid value: "${meta.type}": must be object`);
  }
  if (extra.length > 0 || props.length > 0) {
    at(
      path,
      "FieldValueForbidden",
      "Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified",
    );
  }
}
