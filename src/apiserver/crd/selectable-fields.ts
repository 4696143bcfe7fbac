import type { KubeObject, StatusCause } from "../../core/index.ts";
import type { OpenApiSchema } from "../../resources/index.ts";
import { field } from "../registry/field-errors.ts";
import type { Json } from "../registry/strategies/util.ts";
import { evaluateJsonPath } from "./json-path.ts";

/** Most selectable fields a CRD version may declare (kube's limit). */
export const MAX_SELECTABLE_FIELDS = 8;

/** A version's `selectableFields` entry. */
export interface SelectableField {
  readonly jsonPath: string;
}

const SIMPLE_PATH = /^(\.[A-Za-z_$][A-Za-z0-9_$-]*)+$/;
const SCALAR_TYPES = new Set(["string", "integer", "boolean"]);

/** The field-selector name of a selectable field: its JSONPath without the leading dot. */
export function selectorName(f: SelectableField): string {
  return f.jsonPath.slice(1);
}

/**
 * The values of `fields` in a custom resource, by selector name, as kube's customResourceStrategy
 * computes them: the value printed as a string, or `""` when the field is absent.
 */
export function selectableValues(
  fields: readonly SelectableField[],
  object: KubeObject,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of fields) {
    const v = evaluateJsonPath(object, f.jsonPath);
    out[selectorName(f)] = v === undefined || v === null ? "" : String(v);
  }
  return out;
}

/** The schema node a simple path (`.spec.color`) leads to, through `properties` only. */
function schemaAt(schema: OpenApiSchema | undefined, path: string): OpenApiSchema | undefined {
  let cur = schema;
  for (const part of path.slice(1).split(".")) {
    cur = cur?.properties?.[part];
    if (cur === undefined) return undefined;
  }
  return cur;
}

/**
 * Validates `spec.versions[i].selectableFields` (at `path`): at most
 * {@link MAX_SELECTABLE_FIELDS}, each a simple JSONPath (`.spec.color`: no arrays, no
 * wildcards), unique, naming a string, integer or boolean field of `schema`.
 */
export function validateSelectableFields(
  raw: unknown,
  schema: OpenApiSchema | undefined,
  path: string,
): StatusCause[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) return [field.typeInvalid(path, raw, "must be a list")];
  const causes: StatusCause[] = [];
  if (raw.length > MAX_SELECTABLE_FIELDS) {
    causes.push(field.tooMany(path, raw.length, MAX_SELECTABLE_FIELDS));
  }
  const seen = new Set<string>();
  raw.forEach((entry, i) => {
    const p = `${path}[${i}].jsonPath`;
    const jsonPath =
      typeof entry === "object" && entry !== null ? (entry as Json).jsonPath : undefined;
    if (typeof jsonPath !== "string" || jsonPath === "") {
      causes.push(field.required(p));
      return;
    }
    if (!SIMPLE_PATH.test(jsonPath)) {
      causes.push(field.invalid(p, jsonPath, "must be a simple JSON path such as .spec.field"));
      return;
    }
    if (seen.has(jsonPath)) causes.push(field.duplicate(p, jsonPath));
    seen.add(jsonPath);
    const node = schemaAt(schema, jsonPath);
    if (node === undefined) {
      causes.push(field.invalid(p, jsonPath, "is not a field of the schema"));
    } else if (!SCALAR_TYPES.has(String(node.type))) {
      causes.push(
        field.invalid(
          p,
          jsonPath,
          "must point to a field of type one of: boolean, integer, string",
        ),
      );
    }
  });
  return causes;
}
