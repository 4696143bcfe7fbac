import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import type { StatusCause } from "../../core/index.ts";
import { field } from "../registry/field-errors.ts";

/** An OpenAPI v3 schema node as CRDs write it. */
export interface SchemaNode {
  type?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
  default?: unknown;
  nullable?: boolean;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-int-or-string"?: boolean;
  "x-kubernetes-embedded-resource"?: boolean;
  allOf?: SchemaNode[];
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  not?: SchemaNode;
  [key: string]: unknown;
}

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The structural-schema rules of apiextensions that matter most: a typed root object, a type
 * on every node (unless int-or-string or preserve-unknown-fields), no `additionalProperties`
 * beside `properties`, no `uniqueItems: true`, and nothing but name/generateName under root
 * `metadata`. Returns causes with paths under `path`.
 */
export function structuralCauses(schema: unknown, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!isObj(schema)) return [field.required(path)];
  if (schema.type !== "object")
    causes.push(field.invalid(`${path}.type`, schema.type, 'must be "object" at the root'));
  const walk = (node: unknown, p: string, root: boolean) => {
    if (!isObj(node)) return;
    const n = node as SchemaNode;
    if (
      n.type === undefined &&
      !n["x-kubernetes-int-or-string"] &&
      !n["x-kubernetes-preserve-unknown-fields"] &&
      !root
    ) {
      causes.push(field.required(`${p}.type`, "must not be empty for specified object fields"));
    }
    if (
      n.properties !== undefined &&
      n.additionalProperties !== undefined &&
      n.additionalProperties !== false
    ) {
      causes.push(
        field.forbidden(
          `${p}.additionalProperties`,
          "additionalProperties and properties are mutual exclusive",
        ),
      );
    }
    if (n.uniqueItems === true)
      causes.push(
        field.forbidden(
          `${p}.uniqueItems`,
          "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
        ),
      );
    for (const [k, v] of Object.entries(n.properties ?? {})) {
      if (root && k === "metadata" && isObj(v)) {
        for (const mk of Object.keys((v as SchemaNode).properties ?? {})) {
          if (mk !== "name" && mk !== "generateName") {
            causes.push(
              field.forbidden(
                `${p}.properties[metadata].properties[${mk}]`,
                "must not be specified",
              ),
            );
          }
        }
        continue;
      }
      walk(v, `${p}.properties[${k}]`, false);
    }
    if (isObj(n.items)) walk(n.items, `${p}.items`, false);
    if (isObj(n.additionalProperties))
      walk(n.additionalProperties, `${p}.additionalProperties`, false);
  };
  walk(schema, path, true);
  return causes;
}

/** The schema as JSON Schema for ajv: nullable and int-or-string made explicit, metadata open. */
function toJsonSchema(node: unknown, root = false): unknown {
  if (!isObj(node)) return node;
  const n = node as SchemaNode;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(n)) {
    if (
      k.startsWith("x-kubernetes-") ||
      k === "nullable" ||
      k === "default" ||
      k === "example" ||
      k === "format" ||
      k === "externalDocs"
    )
      continue;
    if (k === "properties" && isObj(v)) {
      out.properties = Object.fromEntries(
        Object.entries(v)
          .filter(([pk]) => !(root && pk === "metadata"))
          .map(([pk, pv]) => [pk, toJsonSchema(pv)]),
      );
    } else if (k === "items" || k === "additionalProperties" || k === "not") {
      out[k] = typeof v === "boolean" ? v : toJsonSchema(v);
    } else if ((k === "allOf" || k === "anyOf" || k === "oneOf") && Array.isArray(v)) {
      out[k] = v.map((s) => toJsonSchema(s));
    } else {
      out[k] = v;
    }
  }
  if (n["x-kubernetes-int-or-string"]) {
    delete out.type;
    out.allOf = [
      ...((out.allOf as unknown[]) ?? []),
      { anyOf: [{ type: "integer" }, { type: "string" }] },
    ];
  }
  if (n.nullable && typeof out.type === "string") out.type = [out.type, "null"];
  if (root && Array.isArray(out.required))
    out.required = (out.required as string[]).filter((r) => r !== "metadata");
  return out;
}

const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false, verbose: true });

/** A compiled validator for one CRD version's schema. */
export class SchemaValidator {
  readonly #validate: ValidateFunction;

  constructor(schema: SchemaNode) {
    this.#validate = ajv.compile(toJsonSchema(schema, true) as object);
  }

  /** The validation causes for an object, with dotted field paths. */
  causes(object: unknown): StatusCause[] {
    if (this.#validate(object)) return [];
    return (this.#validate.errors ?? []).map(toCause);
  }
}

function dotted(instancePath: string): string {
  return instancePath
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce((acc, s) => (/^\d+$/.test(s) ? `${acc}[${s}]` : acc === "" ? s : `${acc}.${s}`), "");
}

function valueAt(e: ErrorObject): unknown {
  return e.data;
}

function toCause(e: ErrorObject): StatusCause {
  const path = dotted(e.instancePath);
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "required": {
      const missing = String(p.missingProperty);
      return field.required(path === "" ? missing : `${path}.${missing}`);
    }
    case "type":
      return field.typeInvalid(
        path,
        valueAt(e),
        `${path} in body must be of type ${String(p.type)}: ${JSON.stringify(typeName(valueAt(e)))}`,
      );
    case "enum":
      return field.notSupported(
        path,
        valueAt(e),
        ((p.allowedValues as unknown[]) ?? []).map(String),
      );
    case "maxLength":
      return field.tooLong(path, Number(p.limit));
    case "maxItems":
      return field.tooMany(
        path,
        Array.isArray(valueAt(e)) ? (valueAt(e) as unknown[]).length : 0,
        Number(p.limit),
      );
    default:
      return field.invalid(path, valueAt(e), `${path} in body ${e.message ?? "is invalid"}`);
  }
}

function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

/**
 * Drops fields the schema does not declare (kube's pruning), in place, except under
 * `x-kubernetes-preserve-unknown-fields`; root apiVersion, kind and metadata are kept.
 * Returns the dotted paths of what was dropped.
 */
export function prune(object: unknown, schema: SchemaNode): string[] {
  const dropped: string[] = [];
  const walk = (value: unknown, node: SchemaNode | undefined, path: string, root: boolean) => {
    if (
      node === undefined ||
      (node["x-kubernetes-preserve-unknown-fields"] &&
        node.properties === undefined &&
        node.items === undefined &&
        node.additionalProperties === undefined)
    )
      return;
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) walk(v, node.items, `${path}[${i}]`, false);
      return;
    }
    if (!isObj(value)) return;
    for (const key of Object.keys(value)) {
      if (root && (key === "apiVersion" || key === "kind" || key === "metadata")) continue;
      const p = path === "" ? key : `${path}.${key}`;
      const prop = node.properties?.[key];
      if (prop !== undefined) walk(value[key], prop, p, false);
      else if (isObj(node.additionalProperties))
        walk(value[key], node.additionalProperties, p, false);
      else if (node.additionalProperties === true || node["x-kubernetes-preserve-unknown-fields"])
        continue;
      else {
        delete value[key];
        dropped.push(p);
      }
    }
  };
  walk(object, schema, "", true);
  return dropped;
}

/** Applies `default`s of the schema where values are absent, in place. */
export function applyDefaults(object: unknown, schema: SchemaNode): void {
  const walk = (value: unknown, node: SchemaNode | undefined) => {
    if (node === undefined) return;
    if (Array.isArray(value)) {
      for (const v of value) walk(v, node.items);
      return;
    }
    if (!isObj(value)) return;
    for (const [key, prop] of Object.entries(node.properties ?? {})) {
      if (value[key] === undefined && prop.default !== undefined)
        value[key] = structuredClone(prop.default);
      if (value[key] !== undefined) walk(value[key], prop);
    }
    if (isObj(node.additionalProperties)) {
      for (const key of Object.keys(value))
        if (!node.properties?.[key]) walk(value[key], node.additionalProperties);
    }
  };
  walk(object, schema);
}
