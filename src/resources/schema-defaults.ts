import type { OpenApiSchema } from "./openapi-schema.ts";

/**
 * Applies, in place, the schema's `default`s as kube-apiserver does for custom resources: a
 * missing field with a default gets a copy of it, and so does a `null` in a field that is not
 * `nullable`; then the walk continues into the (possibly defaulted) value, so nested defaults
 * apply too. Defaults inside arrays and maps apply to each element.
 */
export function applyDefaults(schema: OpenApiSchema, obj: unknown): void {
  walk(schema, obj);
}

function walk(s: OpenApiSchema, value: unknown): void {
  if (value === null || typeof value !== "object") return;
  if (Array.isArray(value)) {
    if (s.items !== undefined) for (const v of value) walk(s.items, v);
    return;
  }
  const o = value as Record<string, unknown>;
  for (const [key, child] of Object.entries(s.properties ?? {})) {
    const missing = !(key in o) || (o[key] === null && child.nullable !== true);
    if (missing && child.default !== undefined) o[key] = structuredClone(child.default);
    if (key in o) walk(child, o[key]);
  }
  if (typeof s.additionalProperties === "object") {
    for (const v of Object.values(o)) walk(s.additionalProperties, v);
  }
}
