import type { StatusCause } from "../core/index.ts";
import type { OpenApiSchema } from "./openapi-schema.ts";
import type { Report } from "./schema-list-rules.ts";
import { prune } from "./schema-prune.ts";
import { compileSchema } from "./schema-validator.ts";

const TYPE_META = ["apiVersion", "kind"];

/**
 * The `default`s of a CRD schema, checked as kube-apiserver checks them when a CRD is created: a
 * default must be valid against the schema of its own node, must have no field that pruning
 * would drop, and must not be set on the root's `apiVersion` or `kind` (nor in `metadata`, which
 * the structural rules already restrict). Defaults under junctors (value validations only) and
 * under `additionalProperties` are not followed, as in kube. Each problem is reported at
 * `<node>.default` (and the path inside the default), with the validator's message.
 */
export function checkDefaults(schema: OpenApiSchema, base: string, at: Report): void {
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    const path = `${base}.properties[${name}]`;
    if (TYPE_META.includes(name) && child.default !== undefined) {
      at(
        `${path}.default`,
        "FieldValueForbidden",
        `Forbidden: must not be set in top-level ${name}`,
      );
      continue;
    }
    if (name === "metadata") continue;
    walk(child, path, at);
  }
}

function walk(node: OpenApiSchema, path: string, at: Report): void {
  if (typeof node !== "object" || node === null) return;
  if (node.default !== undefined) checkDefault(node, `${path}.default`, at);
  if (node.items !== undefined && !Array.isArray(node.items)) walk(node.items, `${path}.items`, at);
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    walk(child, `${path}.properties[${name}]`, at);
  }
}

function checkDefault(node: OpenApiSchema, path: string, at: Report): void {
  const value: unknown = node.default;
  const pruned = structuredClone(value);
  if (prune(node, pruned, { root: false }).length > 0) {
    at(
      path,
      "FieldValueInvalid",
      `Invalid value: ${JSON.stringify(value)}: must not have unknown fields`,
    );
  }
  let causes: StatusCause[];
  try {
    causes = compileSchema(node)(value);
  } catch {
    return; // A schema ajv cannot compile is reported by the other rules.
  }
  for (const c of causes) {
    const inner = c.field ?? "";
    const field =
      inner === "" ? path : inner.startsWith("[") ? `${path}${inner}` : `${path}.${inner}`;
    const message = (c.message ?? "").replace(`${inner || "<root>"} in body`, `${field} in body`);
    at(field, c.reason ?? "FieldValueInvalid", message);
  }
}
