/**
 * The OpenAPI v3 schema dialect of CustomResourceDefinitions (apiextensions.k8s.io/v1
 * `JSONSchemaProps`), with the `x-kubernetes-*` extensions. Recursive positions use this type.
 */
export interface OpenApiSchema {
  type?: "object" | "array" | "string" | "integer" | "number" | "boolean";
  format?: string;
  title?: string;
  description?: string;
  default?: unknown;
  example?: unknown;
  enum?: unknown[];
  nullable?: boolean;
  maximum?: number;
  exclusiveMaximum?: boolean;
  minimum?: number;
  exclusiveMinimum?: boolean;
  multipleOf?: number;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  items?: OpenApiSchema;
  properties?: Record<string, OpenApiSchema>;
  additionalProperties?: OpenApiSchema | boolean;
  allOf?: OpenApiSchema[];
  anyOf?: OpenApiSchema[];
  oneOf?: OpenApiSchema[];
  not?: OpenApiSchema;
  externalDocs?: { description?: string; url?: string };
  /** Keep fields the schema does not name (no pruning below this node). */
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  /** The value is an integer or a string; the node has no `type`. */
  "x-kubernetes-int-or-string"?: boolean;
  /** The value is a whole Kubernetes object (apiVersion, kind, metadata). */
  "x-kubernetes-embedded-resource"?: boolean;
  /** How a list merges: `atomic`, `set` (unique scalars) or `map` (unique by `x-kubernetes-list-map-keys`). */
  "x-kubernetes-list-type"?: "atomic" | "set" | "map";
  "x-kubernetes-list-map-keys"?: string[];
  "x-kubernetes-map-type"?: "atomic" | "granular";
  "x-kubernetes-validations"?: {
    rule: string;
    message?: string;
    fieldPath?: string;
    reason?: string;
  }[];
}

/**
 * Keywords that mean the same in TypeBox (JSON Schema) and in a CRD schema: annotations and the
 * value validations that need no conversion. Both directions copy them as they are.
 */
export const SHARED_KEYWORDS: readonly string[] = [
  "format",
  "title",
  "description",
  "default",
  "example",
  "maximum",
  "minimum",
  "multipleOf",
  "maxLength",
  "minLength",
  "pattern",
  "maxItems",
  "minItems",
  "maxProperties",
  "minProperties",
  "externalDocs",
];

/** The Kubernetes extensions that shape a node and how it merges (all but validations). */
export const X_KUBERNETES_SHAPE_KEYWORDS: readonly string[] = [
  "x-kubernetes-preserve-unknown-fields",
  "x-kubernetes-int-or-string",
  "x-kubernetes-embedded-resource",
  "x-kubernetes-list-type",
  "x-kubernetes-list-map-keys",
  "x-kubernetes-map-type",
];

/** Every keyword a CRD schema may carry; anything else is refused. */
export const OPENAPI_SCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  ...SHARED_KEYWORDS,
  "type",
  "enum",
  "nullable",
  "exclusiveMaximum",
  "exclusiveMinimum",
  "uniqueItems",
  "required",
  "items",
  "properties",
  "additionalProperties",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  ...X_KUBERNETES_SHAPE_KEYWORDS,
  "x-kubernetes-validations",
]);
