import { Ajv, type ErrorObject } from "ajv";
import formatsPlugin from "ajv-formats";
import type { StatusCause } from "../core/index.ts";
import type { OpenApiSchema } from "./openapi-schema.ts";
import { re2Engine } from "./re2.ts";

/** Validates an object against a CRD schema; returns the causes, empty when valid. */
export type SchemaValidator = (value: unknown) => StatusCause[];

/**
 * Compiles a structural CRD schema into a validator whose causes carry kube's field paths
 * (`spec.items[0].name`) and cause types, so that the client (`definition.validate`) and the
 * embedded API server (422 Invalid) report the same thing. Validators are cached per schema
 * object.
 */
export function compileSchema(schema: OpenApiSchema): SchemaValidator {
  const cached = cache.get(schema);
  if (cached !== undefined) return cached;
  const check = ajv().compile(toAjv(schema));
  const validator: SchemaValidator = (value) => {
    if (check(value)) return [];
    return dedupe(withoutJunctorDetails(check.errors ?? []).map((e) => toCause(e, value)));
  };
  cache.set(schema, validator);
  return validator;
}

const cache = new WeakMap<OpenApiSchema, SchemaValidator>();

/** The formats kube-apiserver validates in CRD schemas; any other format is ignored, as in kube. */
const FORMATS: Record<string, RegExp | true> = {
  bsonobjectid: /^[0-9a-fA-F]{24}$/,
  uuid: /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i,
  uuid3: /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i,
  uuid4: /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i,
  uuid5: /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i,
  mac: /^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$/,
  cidr: /^(\d{1,3}(\.\d{1,3}){3}\/\d{1,2}|[0-9a-fA-F:]+\/\d{1,3})$/,
  hexcolor: /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/,
  byte: /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/,
  password: true,
  int32: true,
  int64: true,
  float: true,
  double: true,
};
const AJV_FORMATS = [
  "date",
  "date-time",
  "uri",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "duration",
] as const;

let shared: Ajv | undefined;

function ajv(): Ajv {
  if (shared !== undefined) return shared;
  const a = new Ajv({
    allErrors: true,
    strict: false,
    validateFormats: true,
    code: { regExp: re2Engine },
  });
  formatsPlugin.default(a, [...AJV_FORMATS]);
  a.addFormat("datetime", a.formats["date-time"]!);
  for (const [name, f] of Object.entries(FORMATS)) a.addFormat(name, f);
  a.addKeyword({
    keyword: "x-kubernetes-int-or-string",
    schemaType: "boolean",
    validate: function intOrString(on: boolean, data: unknown) {
      if (!on || typeof data === "string" || Number.isInteger(data)) return true;
      (intOrString as unknown as { errors: Partial<ErrorObject>[] }).errors = [
        {
          keyword: "x-kubernetes-int-or-string",
          message: "must be of type integer or string",
          params: {},
        },
      ];
      return false;
    },
    errors: true,
  });
  a.addKeyword({
    keyword: "x-kubernetes-list-type",
    schemaType: "string",
    validate: function listType(kind: string, data: unknown, parent?: OpenApiSchema) {
      if (!Array.isArray(data) || kind === "atomic") return true;
      const keys = parent?.["x-kubernetes-list-map-keys"] ?? [];
      const seen = new Set<string>();
      const dupes: Partial<ErrorObject>[] = [];
      data.forEach((item, i) => {
        const id =
          kind === "set"
            ? JSON.stringify(item)
            : JSON.stringify(keys.map((k) => (item as Record<string, unknown>)?.[k]));
        if (seen.has(id)) {
          dupes.push({
            keyword: "x-kubernetes-list-type",
            message: `Duplicate value: ${kind === "set" ? JSON.stringify(item) : id}`,
            params: { index: i },
          });
        }
        seen.add(id);
      });
      (listType as unknown as { errors: Partial<ErrorObject>[] }).errors = dupes;
      return dupes.length === 0;
    },
    errors: true,
  });
  for (const k of [
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-map-type",
    "x-kubernetes-validations",
  ]) {
    a.addKeyword({ keyword: k });
  }
  shared = a;
  return a;
}

/** OpenAPI 3.0 → the JSON Schema ajv speaks: boolean exclusive bounds become numeric ones. */
function toAjv(s: OpenApiSchema): Record<string, unknown> {
  const out: Record<string, unknown> = { ...s };
  if (s.exclusiveMinimum === true && s.minimum !== undefined) {
    out.exclusiveMinimum = s.minimum;
    delete out.minimum;
  } else delete out.exclusiveMinimum;
  if (s.exclusiveMaximum === true && s.maximum !== undefined) {
    out.exclusiveMaximum = s.maximum;
    delete out.maximum;
  } else delete out.exclusiveMaximum;
  if (
    s.format !== undefined &&
    !(s.format in FORMATS) &&
    !(AJV_FORMATS as readonly string[]).includes(s.format) &&
    s.format !== "datetime"
  ) {
    delete out.format;
  }
  // `default` and `example` are not validations; ajv must not judge them.
  delete out.default;
  delete out.example;
  if (s.items !== undefined) out.items = toAjv(s.items);
  if (s.properties !== undefined) {
    out.properties = Object.fromEntries(
      Object.entries(s.properties).map(([k, v]) => [k, toAjv(v)]),
    );
  }
  if (typeof s.additionalProperties === "object")
    out.additionalProperties = toAjv(s.additionalProperties);
  for (const j of ["allOf", "anyOf", "oneOf"] as const) {
    if (s[j] !== undefined) out[j] = s[j].map(toAjv);
  }
  if (s.not !== undefined) out.not = toAjv(s.not);
  return out;
}

/** `/spec/items/0/name` → `spec.items[0].name`. */
export function fieldPath(instancePath: string): string {
  let path = "";
  for (const raw of instancePath.split("/").slice(1)) {
    const seg = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (/^\d+$/.test(seg)) path += `[${seg}]`;
    else path += path === "" ? seg : `.${seg}`;
  }
  return path;
}

function valueAt(root: unknown, instancePath: string): unknown {
  let v = root;
  for (const raw of instancePath.split("/").slice(1)) {
    const seg = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    v = (v as Record<string, unknown> | undefined)?.[seg];
  }
  return v;
}

function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

function toCause(e: ErrorObject, root: unknown): StatusCause {
  const path = fieldPath(e.instancePath);
  const value = valueAt(root, e.instancePath);
  const shown = JSON.stringify(value);
  const inBody = `${path || "<root>"} in body`;
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "required": {
      const field =
        path === "" ? String(p.missingProperty) : `${path}.${String(p.missingProperty)}`;
      return { reason: "FieldValueRequired", field, message: "Required value" };
    }
    case "type":
      // kube-openapi names the value's type twice, never the value (`...: "string"`).
      return {
        reason: "FieldValueTypeInvalid",
        field: path,
        message: `Invalid value: "${typeName(value)}": ${inBody} must be of type ${String(p.type)}: "${typeName(value)}"`,
      };
    case "enum":
      return {
        reason: "FieldValueNotSupported",
        field: path,
        message: `Unsupported value: ${shown}: supported values: ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`,
      };
    case "maxLength":
      return {
        reason: "FieldValueTooLong",
        field: path,
        message: `Too long: may not be more than ${String(p.limit)} bytes`,
      };
    case "maxItems":
      return {
        reason: "FieldValueTooMany",
        field: path,
        message: `Too many: ${(value as unknown[]).length}: must have at most ${String(p.limit)} items`,
      };
    case "maxProperties":
      return {
        reason: "FieldValueTooMany",
        field: path,
        message: `Too many: must have at most ${String(p.limit)} properties`,
      };
    case "minLength":
      return {
        reason: "FieldValueInvalid",
        field: path,
        message: `Invalid value: ${shown}: ${inBody} should be at least ${String(p.limit)} chars long`,
      };
    case "minItems":
      return {
        reason: "FieldValueInvalid",
        field: path,
        message: `Invalid value: ${shown}: ${inBody} should have at least ${String(p.limit)} items`,
      };
    case "minimum":
    case "exclusiveMinimum":
    case "maximum":
    case "exclusiveMaximum": {
      const than = e.keyword.endsWith("inimum") ? "greater than" : "less than";
      const orEqual = e.keyword.startsWith("exclusive") ? "" : "or equal to ";
      return {
        reason: "FieldValueInvalid",
        field: path,
        message: `Invalid value: ${shown}: ${inBody} should be ${than} ${orEqual}${String(p.limit)}`,
      };
    }
    case "pattern":
      return {
        reason: "FieldValueInvalid",
        field: path,
        message: `Invalid value: ${shown}: ${inBody} should match '${String(p.pattern)}'`,
      };
    case "format":
      return {
        reason: "FieldValueInvalid",
        field: path,
        message: `Invalid value: ${shown}: ${inBody} must be of type ${String(p.format)}`,
      };
    case "anyOf":
      return {
        reason: "FieldValueInvalid",
        field: path,
        message: `Invalid value: ${shown}: ${inBody} must validate at least one schema (anyOf)`,
      };
    case "oneOf":
      return {
        reason: "FieldValueInvalid",
        field: path,
        message: `Invalid value: ${shown}: ${inBody} must validate one and only one schema (oneOf)`,
      };
    case "x-kubernetes-int-or-string":
      return {
        reason: "FieldValueTypeInvalid",
        field: path,
        message: `Invalid value: "${typeName(value)}": ${inBody} must be of type integer,string: "${typeName(value)}"`,
      };
    case "x-kubernetes-list-type":
      return {
        reason: "FieldValueDuplicate",
        field: `${path}[${String(p.index)}]`,
        message: e.message ?? "Duplicate value",
      };
    default:
      return {
        reason: "FieldValueInvalid",
        field: path,
        message: `Invalid value: ${shown}: ${e.message ?? e.keyword}`,
      };
  }
}

/**
 * A failed anyOf/oneOf is one problem, as kube reports it, not one per alternative: the errors
 * of the alternatives under a failed junctor are dropped.
 */
function withoutJunctorDetails(errs: ErrorObject[]): ErrorObject[] {
  const junctors = errs
    .filter((e) => e.keyword === "anyOf" || e.keyword === "oneOf")
    .map((e) => `${e.schemaPath}/`);
  return errs.filter((e) => !junctors.some((j) => e.schemaPath.startsWith(j)));
}

function dedupe(causes: StatusCause[]): StatusCause[] {
  const seen = new Set<string>();
  return causes.filter((c) => {
    const k = `${c.field}\u0000${c.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
