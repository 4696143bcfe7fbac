import type { StatusCause } from "../../core/index.ts";
import { deepEqual } from "../../core/index.ts";
import { field } from "../registry/field-errors.ts";
import { arrayAt, type Json, recordAt } from "../registry/strategies/util.ts";

/*
 * Validation of what each version of a CRD declares besides its schema: the scale subresource's
 * paths and the printer columns, with kube-apiserver's field paths and messages. kube validates
 * its internal form, in which what every version declares identically moves to the spec
 * (`spec.subresources`, `spec.additionalPrinterColumns`): problems of such a shared declaration
 * are reported there, once, and those of differing ones under `spec.versions[i]`.
 */

const COLUMN_TYPES = ["boolean", "date", "integer", "number", "string"];
const COLUMN_FORMATS = [
  "byte",
  "date",
  "date-time",
  "double",
  "float",
  "int32",
  "int64",
  "password",
];

/** The problems of the versions' `subresources` and `additionalPrinterColumns`. */
export function versionFieldProblems(versions: readonly unknown[]): StatusCause[] {
  const causes: StatusCause[] = [];
  const shared = (key: string) =>
    versions.length > 0 &&
    versions.every((v) => deepEqual(recordOf(v)[key], recordOf(versions[0])[key]));
  const sharedSubresources = shared("subresources");
  const sharedColumns = shared("additionalPrinterColumns");
  versions.forEach((v, i) => {
    const p = `spec.versions[${i}]`;
    if (!sharedSubresources) causes.push(...subresourceProblems(recordOf(v), p));
    if (!sharedColumns) causes.push(...columnProblems(recordOf(v), p));
  });
  if (versions.length > 0) {
    if (sharedSubresources) causes.push(...subresourceProblems(recordOf(versions[0]), "spec"));
    if (sharedColumns) causes.push(...columnProblems(recordOf(versions[0]), "spec"));
  }
  return causes;
}

function recordOf(v: unknown): Json {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Json) : {};
}

function subresourceProblems(version: Json, at: string): StatusCause[] {
  const scale = recordAt(recordAt(version, "subresources") ?? {}, "scale");
  if (scale === undefined) return [];
  const p = `${at}.subresources.scale`;
  const causes: StatusCause[] = [];
  const under = (key: string, roots: readonly string[], detail: string, required: boolean) => {
    const path = scale[key];
    if (path === undefined || path === "") {
      if (required) causes.push(field.required(`${p}.${key}`));
      return;
    }
    const bad = simpleJsonPathProblem(`${p}.${key}`, path);
    if (bad !== undefined) causes.push(bad);
    else if (!roots.some((r) => (path as string).startsWith(r)))
      causes.push(field.invalid(`${p}.${key}`, path, detail));
  };
  under("specReplicasPath", [".spec."], "should be a json path under .spec", true);
  under("statusReplicasPath", [".status."], "should be a json path under .status", true);
  under(
    "labelSelectorPath",
    [".spec.", ".status."],
    "should be a json path under either .spec or .status",
    false,
  );
  return causes;
}

function columnProblems(version: Json, at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  (arrayAt(version, "additionalPrinterColumns") ?? []).forEach((raw, i) => {
    const c = recordOf(raw);
    const p = `${at}.additionalPrinterColumns[${i}]`;
    if (typeof c.name !== "string" || c.name === "") causes.push(field.required(`${p}.name`));
    const types = `must be one of ${COLUMN_TYPES.join(",")}`;
    if (c.type === undefined || c.type === "") causes.push(field.required(`${p}.type`, types));
    else if (!COLUMN_TYPES.includes(c.type as string))
      causes.push(field.invalid(`${p}.type`, c.type, types));
    if (c.format !== undefined && c.format !== "" && !COLUMN_FORMATS.includes(c.format as string))
      causes.push(
        field.invalid(`${p}.format`, c.format, `must be one of ${COLUMN_FORMATS.join(",")}`),
      );
    // kube's internal field is JSONPath, and so its messages name it.
    if (c.jsonPath === undefined || c.jsonPath === "") causes.push(field.required(`${p}.JSONPath`));
    else {
      const bad = simpleJsonPathProblem(`${p}.JSONPath`, c.jsonPath);
      if (bad !== undefined) causes.push(bad);
    }
  });
  return causes;
}

/** A path such as `.spec.replicas`: it must start with a dot. */
function simpleJsonPathProblem(path: string, value: unknown): StatusCause | undefined {
  if (typeof value !== "string" || !value.startsWith("."))
    return field.invalid(path, value, "must be a simple json path starting with .");
  return undefined;
}
