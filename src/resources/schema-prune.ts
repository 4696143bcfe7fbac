import type { OpenApiSchema } from "./openapi-schema.ts";

/**
 * Prunes, in place, every field the schema does not specify, as kube-apiserver does for custom
 * resources: below a node with `x-kubernetes-preserve-unknown-fields: true` unknown fields stay
 * (specified ones are still walked); int-or-string and untyped nodes are left alone; an embedded
 * resource keeps `apiVersion`, `kind` and `metadata`. At the root, `apiVersion`, `kind` and
 * `metadata` are the server's business and always stay.
 * Returns the JSON paths removed, for the `fieldValidation` warnings.
 */
export function prune(schema: OpenApiSchema, obj: unknown, options: PruneOptions = {}): string[] {
  const removed: string[] = [];
  walk(schema, obj, "", options.root ?? true, removed);
  return removed;
}

/** Options of {@link prune}. */
export interface PruneOptions {
  /**
   * True when `obj` is a whole object, whose `apiVersion`, `kind` and `metadata` always stay;
   * false for a value inside one (a field's `default`).
   * @default true
   */
  root?: boolean;
}

const ROOT_META = new Set(["apiVersion", "kind", "metadata"]);

const join = (path: string, key: string) => (path === "" ? key : `${path}.${key}`);

function walk(
  s: OpenApiSchema,
  value: unknown,
  path: string,
  root: boolean,
  removed: string[],
): void {
  if (value === null || typeof value !== "object") return;
  if (Array.isArray(value)) {
    if (s.items !== undefined)
      for (const [i, v] of value.entries()) walk(s.items, v, `${path}[${i}]`, false, removed);
    return;
  }
  const o = value as Record<string, unknown>;
  const preserve =
    s["x-kubernetes-preserve-unknown-fields"] === true || s.additionalProperties === true;
  const embedded = s["x-kubernetes-embedded-resource"] === true;
  if (s.properties !== undefined) {
    for (const key of Object.keys(o)) {
      // apiVersion, kind and metadata of an object are the server's, whatever the schema says.
      if ((root || embedded) && ROOT_META.has(key)) continue;
      const child = s.properties[key];
      const childPath = join(path, key);
      if (child !== undefined) walk(child, o[key], childPath, false, removed);
      else if (!preserve) {
        delete o[key];
        removed.push(childPath);
      }
    }
  } else if (typeof s.additionalProperties === "object") {
    for (const key of Object.keys(o))
      walk(s.additionalProperties, o[key], join(path, key), false, removed);
  } else if (!preserve && s.type === "object") {
    for (const key of Object.keys(o)) {
      if ((root || embedded) && ROOT_META.has(key)) continue;
      delete o[key];
      removed.push(join(path, key));
    }
  }
}
