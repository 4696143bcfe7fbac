import { COMPONENT_REF, type JsonSchema } from "./builtin-schemas.ts";
import { KUBE_VERSION } from "./discovery.ts";
import type { OpenApiV3Document } from "./openapi.ts";

/** Where a Swagger 2.0 `$ref` points. */
const DEFINITION_REF = "#/definitions/";

/**
 * The Swagger 2.0 document of `GET /openapi/v2`, shaped as kube-apiserver's: every
 * group-version's paths in one document, and every schema under `definitions` by the same name
 * as in /openapi/v3 (`io.k8s.api.apps.v1.Deployment`, with its `x-kubernetes-group-version-kind`),
 * built from the group-versions' v3 documents, so the two always agree.
 *
 * The v3 forms Swagger 2.0 lacks are written as kube writes them in v2: a `$ref` beside a
 * description instead of `allOf: [{$ref}]`, `type: string` for a `oneOf` (Quantity,
 * IntOrString), no `default`, `nullable`, `anyOf` or `not`; an operation's request body is an
 * `in: body` parameter, its content types `consumes` and `produces`.
 */
export function swaggerDocument(documents: Iterable<OpenApiV3Document>): unknown {
  const paths: Record<string, unknown> = {};
  const definitions: Record<string, unknown> = {};
  for (const doc of documents) {
    for (const [path, item] of Object.entries(doc.paths)) paths[path] = pathItem(item);
    for (const [name, schema] of Object.entries(doc.components.schemas)) {
      definitions[name] ??= schemaV2(schema);
    }
  }
  return {
    swagger: "2.0",
    info: { title: "Kubernetes", version: `${KUBE_VERSION.major}.${KUBE_VERSION.minor}` },
    paths: sortedObject(paths),
    definitions: sortedObject(definitions),
    securityDefinitions: {
      BearerToken: {
        description: "Bearer Token authentication",
        type: "apiKey",
        name: "authorization",
        in: "header",
      },
    },
    security: [{ BearerToken: [] }],
  };
}

function sortedObject<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** A v3 schema as Swagger 2.0 has it (see {@link swaggerDocument}). */
export function schemaV2(schema: JsonSchema): JsonSchema {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    switch (key) {
      case "$ref":
        out[key] = typeof value === "string" ? value.replace(COMPONENT_REF, DEFINITION_REF) : value;
        break;
      case "allOf": {
        const all = value as JsonSchema[];
        if (all.length === 1 && typeof all[0]!.$ref === "string")
          Object.assign(out, schemaV2(all[0]!));
        else out[key] = all.map(schemaV2);
        break;
      }
      case "oneOf":
        out.type = "string";
        break;
      case "default":
      case "nullable":
      case "anyOf":
      case "not":
        break;
      case "properties":
        out[key] = Object.fromEntries(
          Object.entries(value as Record<string, JsonSchema>).map(([k, v]) => [k, schemaV2(v)]),
        );
        break;
      case "items":
      case "additionalProperties":
        out[key] =
          typeof value === "object" && value !== null ? schemaV2(value as JsonSchema) : value;
        break;
      default:
        out[key] = value;
    }
  }
  return out;
}

interface OperationV3 {
  parameters?: { name: string; in: string; schema?: JsonSchema }[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<
    string,
    { description: string; content?: Record<string, { schema: JsonSchema }> }
  >;
  [extension: string]: unknown;
}

function pathItem(item: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [method, op] of Object.entries(item as Record<string, OperationV3>)) {
    out[method] = operation(op);
  }
  return out;
}

/** A v3 operation as a Swagger 2.0 one. */
function operation(op: OperationV3): Record<string, unknown> {
  const { parameters = [], requestBody, responses, ...rest } = op;
  const bodyTypes = Object.keys(requestBody?.content ?? {});
  const bodySchema = Object.values(requestBody?.content ?? {})[0]?.schema;
  const produces = new Set<string>();
  const answers: Record<string, unknown> = {};
  for (const [code, r] of Object.entries(responses)) {
    for (const t of Object.keys(r.content ?? {})) produces.add(t);
    const schema = Object.values(r.content ?? {})[0]?.schema;
    answers[code] = { description: r.description, ...(schema ? { schema: schemaV2(schema) } : {}) };
  }
  return {
    ...(bodyTypes.length > 0 ? { consumes: bodyTypes } : { consumes: ["*/*"] }),
    produces: [...produces],
    schemes: ["https"],
    ...rest,
    parameters: [
      ...(bodySchema
        ? [{ name: "body", in: "body", required: true, schema: schemaV2(bodySchema) }]
        : []),
      ...parameters.map(({ schema, ...p }) => ({ ...schema, ...p })),
    ],
    responses: answers,
  };
}
