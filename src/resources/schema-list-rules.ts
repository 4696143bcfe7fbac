import type { StatusCause } from "../core/index.ts";
import type { OpenApiSchema } from "./openapi-schema.ts";

/** Reports one problem: the field path, the cause type and a kube-style message. */
export type Report = (path: string, reason: StatusCause["reason"], message: string) => void;

const LIST_TYPES = ["atomic", "map", "set"];
const MAP_TYPES = ["atomic", "granular"];
const quoted = (values: readonly string[]) => values.map((v) => `"${v}"`).join(", ");

/** Applies {@link checkListAndMapTypes} to every node of `schema`, junctors included. */
export function checkListsAndMaps(schema: OpenApiSchema, path: string, at: Report): void {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return;
  checkListAndMapTypes(schema, path, at);
  if (schema.items !== undefined) checkListsAndMaps(schema.items, `${path}.items`, at);
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    checkListsAndMaps(child, `${path}.properties[${name}]`, at);
  }
  if (typeof schema.additionalProperties === "object") {
    checkListsAndMaps(schema.additionalProperties, `${path}.additionalProperties`, at);
  }
  for (const junctor of ["allOf", "anyOf", "oneOf"] as const) {
    for (const [i, j] of (schema[junctor] ?? []).entries()) {
      checkListsAndMaps(j, `${path}.${junctor}[${i}]`, at);
    }
  }
  if (schema.not !== undefined) checkListsAndMaps(schema.not, `${path}.not`, at);
}

/** Reports `value` at `field` unless it is undefined or one of `allowed`. */
function supported(
  value: string | undefined,
  allowed: readonly string[],
  field: string,
  at: Report,
): void {
  if (value === undefined || allowed.includes(value)) return;
  at(
    field,
    "FieldValueNotSupported",
    `Unsupported value: "${value}": supported values: ${quoted(allowed)}`,
  );
}

/**
 * The rules kube-apiserver applies to the list and map extensions of one schema node
 * (apiextensions validation of `x-kubernetes-list-type`, `x-kubernetes-list-map-keys` and
 * `x-kubernetes-map-type`, with the checks it makes of every new CRD):
 * - a list type is `atomic`, `set` or `map`, on an array; a map type is `atomic` or `granular`,
 *   on an object;
 * - the items of a set or map list are not nullable; a set of objects or lists holds atomic ones;
 * - a map list has keys, which name scalar properties of its object items, once each, each
 *   required or defaulted and not nullable.
 */
export function checkListAndMapTypes(node: OpenApiSchema, path: string, at: Report): void {
  const listType = node["x-kubernetes-list-type"];
  const keys = node["x-kubernetes-list-map-keys"];
  const mapType = node["x-kubernetes-map-type"];
  supported(listType, LIST_TYPES, `${path}.x-kubernetes-list-type`, at);
  if (listType !== undefined && node.type !== "array") {
    at(
      `${path}.x-kubernetes-list-type`,
      "FieldValueInvalid",
      "Invalid value: must only be used if type is array",
    );
  }
  supported(mapType, MAP_TYPES, `${path}.x-kubernetes-map-type`, at);
  if (mapType !== undefined && node.type !== "object") {
    const detail = "must be object if x-kubernetes-map-type is specified";
    if (node.type === undefined)
      at(`${path}.type`, "FieldValueRequired", `Required value: ${detail}`);
    else at(`${path}.type`, "FieldValueInvalid", `Invalid value: "${node.type}": ${detail}`);
  }
  const items = node.items;
  if ((listType === "set" || listType === "map") && items?.nullable === true) {
    at(
      `${path}.items.nullable`,
      "FieldValueForbidden",
      `Forbidden: cannot be nullable when x-kubernetes-list-type is ${listType}`,
    );
  }
  if (listType === "set" && items !== undefined) checkSetItems(items, `${path}.items`, at);
  if (listType === "map") checkMapKeys(node, path, at);
  else if (keys !== undefined) {
    at(
      `${path}.x-kubernetes-list-map-keys`,
      "FieldValueForbidden",
      'Forbidden: must not be set if x-kubernetes-list-type is not "map"',
    );
  }
}

/** A set holds scalars, or atomic objects and lists (which can be compared as a whole). */
function checkSetItems(items: OpenApiSchema, path: string, at: Report): void {
  const message = "Invalid value: must be atomic as item of a list with x-kubernetes-list-type=set";
  if (items.type === "object" && items["x-kubernetes-map-type"] !== "atomic") {
    at(`${path}.x-kubernetes-map-type`, "FieldValueInvalid", message);
  }
  const itemList = items["x-kubernetes-list-type"];
  if (items.type === "array" && itemList !== undefined && itemList !== "atomic") {
    at(`${path}.x-kubernetes-list-type`, "FieldValueInvalid", message);
  }
}

function checkMapKeys(node: OpenApiSchema, path: string, at: Report): void {
  const keys = node["x-kubernetes-list-map-keys"];
  const items = node.items;
  if (keys === undefined || keys.length === 0) {
    at(
      `${path}.x-kubernetes-list-map-keys`,
      "FieldValueRequired",
      'Required value: must not be empty if x-kubernetes-list-type is "map"',
    );
    return;
  }
  if (items?.type !== "object") {
    at(
      `${path}.items.type`,
      "FieldValueInvalid",
      'Invalid value: must be object if x-kubernetes-list-type is "map"',
    );
    return;
  }
  const required = new Set(items.required ?? []);
  const seen = new Set<string>();
  for (const k of keys) {
    if (seen.has(k)) {
      at(
        `${path}.x-kubernetes-list-map-keys`,
        "FieldValueInvalid",
        `Invalid value: "${k}": must not contain duplicate entries`,
      );
    }
    seen.add(k);
    const key = items.properties?.[k];
    const keyPath = `${path}.items.properties[${k}]`;
    if (key === undefined) {
      at(
        `${path}.x-kubernetes-list-map-keys`,
        "FieldValueInvalid",
        `Invalid value: "${k}": entries must all be names of item properties`,
      );
      continue;
    }
    if (key.type === "array" || key.type === "object") {
      at(
        `${keyPath}.type`,
        "FieldValueInvalid",
        `Invalid value: "${key.type}": must be a scalar type if parent array's x-kubernetes-list-type is map`,
      );
    }
    if (!required.has(k) && key.default === undefined) {
      at(
        `${keyPath}.default`,
        "FieldValueRequired",
        "Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
      );
    }
    if (key.nullable === true) {
      at(
        `${keyPath}.nullable`,
        "FieldValueForbidden",
        "Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
      );
    }
  }
}
