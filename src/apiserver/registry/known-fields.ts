import { errors, type KubeObject } from "../../core/index.ts";
import {
  type BuiltinType,
  builtinRoot,
  builtinTypeNamed,
  type FieldValue,
} from "./builtin-types.ts";

/**
 * Decodes an object of a built-in kind (`group`, `version`, `kind`: the form it is in) as kube's
 * JSON decoding into its Go type does: removes, in place, every field the type does not have
 * and returns their paths (`spec.containers[0].imagePullPolicyy`), for the `fieldValidation`
 * warning or error; and refuses a value of the wrong JSON type with kube's 400 (`Deployment in
 * version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct
 * field DeploymentSpec.spec.replicas of type int32`). A kind the table does not have is left
 * alone.
 */
export function pruneBuiltin(
  group: string,
  version: string,
  kind: string,
  object: KubeObject,
): string[] {
  const root = builtinRoot(group, version, kind);
  if (root === undefined) return [];
  const removed: string[] = [];
  const problem = walkType(root, object, undefined, removed);
  if (problem !== undefined) {
    throw errors.badRequest(
      `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: json: ${problem}`,
    );
  }
  return removed;
}

/**
 * Where a value is, as a chain up to the object (built only where the walk goes down, read only
 * for a warning or an error): a struct's field, a list's index or a map's key, and the Go name
 * of the struct whose field holds it.
 */
interface At {
  readonly parent: At | undefined;
  readonly step: string | number;
  /** A struct field (what Go's type errors name), not a list index or a map key. */
  readonly field: boolean;
  /** The table name of that struct's type (`apps.v1.DeploymentSpec`). */
  readonly owner: string;
}

/** The path for warnings: `spec.containers[0].image`, map keys included. */
function pathOf(at: At | undefined): string {
  const steps: (string | number)[] = [];
  for (let a = at; a !== undefined; a = a.parent) steps.unshift(a.step);
  let out = "";
  for (const step of steps) {
    if (typeof step === "number") out += `[${step}]`;
    else out = out === "" ? step : `${out}.${step}`;
  }
  return out;
}

/** The struct fields Go's decoder names in a type error: `spec.template.spec.containers`. */
function goFieldsOf(at: At): string {
  const fields: string[] = [];
  for (let a: At | undefined = at; a !== undefined; a = a.parent)
    if (a.field) fields.unshift(String(a.step));
  return fields.join(".");
}

/** Checks a struct's fields; returns Go's message for the first value of the wrong type. */
function walkType(
  type: BuiltinType,
  value: unknown,
  at: At | undefined,
  removed: string[],
): string | undefined {
  const o = value as Record<string, unknown>;
  const owner = type.name;
  for (const key of Object.keys(o)) {
    const field = type.fields.get(key);
    if (field === undefined) {
      removed.push(pathOf({ parent: at, step: key, field: true, owner }));
      delete o[key];
      continue;
    }
    const v = o[key];
    // null decodes into anything; an undefined key is no key (JSON has none).
    if (v === null || v === undefined) continue;
    const fv = field.value;
    if (fv.kind === "scalar" && scalarFits(fv.go, v)) continue;
    const problem = walkValue(fv, v, { parent: at, step: key, field: true, owner }, removed);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function walkValue(value: FieldValue, v: unknown, at: At, removed: string[]): string | undefined {
  if (v === null || v === undefined || value.kind === "any") return undefined;
  switch (value.kind) {
    case "scalar":
      if (scalarFits(value.go, v)) return undefined;
      // Go names a number that is no integer of the type by its value.
      return typeof v === "number" && (value.go === "int32" || value.go === "int64")
        ? wrong(value, at, `number ${v}`)
        : wrong(value, at, jsonName(v));
    case "struct": {
      if (typeof v !== "object" || Array.isArray(v)) return wrong(value, at, jsonName(v));
      const type = builtinTypeNamed(value.type);
      return type === undefined ? undefined : walkType(type, v, at, removed);
    }
    case "list": {
      if (!Array.isArray(v)) return wrong(value, at, jsonName(v));
      const element = value.element;
      for (let i = 0; i < v.length; i++) {
        const item: unknown = v[i];
        if (fitsAsIs(element, item)) continue;
        const problem = walkValue(
          element,
          item,
          { ...at, parent: at, step: i, field: false },
          removed,
        );
        if (problem !== undefined) return problem;
      }
      return undefined;
    }
    case "map": {
      if (typeof v !== "object" || Array.isArray(v)) return wrong(value, at, jsonName(v));
      const element = value.element;
      const entries = v as Record<string, unknown>;
      for (const k of Object.keys(entries)) {
        const item = entries[k];
        if (fitsAsIs(element, item)) continue;
        const problem = walkValue(
          element,
          item,
          { ...at, parent: at, step: k, field: false },
          removed,
        );
        if (problem !== undefined) return problem;
      }
      return undefined;
    }
  }
}

/**
 * True if {@link walkValue} would pass `v` without looking inside (no value, any JSON, or a
 * scalar that fits): a list's or map's items are checked without a place for each.
 */
function fitsAsIs(value: FieldValue, v: unknown): boolean {
  return (
    v === null ||
    v === undefined ||
    value.kind === "any" ||
    (value.kind === "scalar" && scalarFits(value.go, v))
  );
}

/** Go's message for a value of JSON type `json` where `value` was wanted, at `at`. */
function wrong(value: FieldValue, at: At, json: string): string {
  return `cannot unmarshal ${json} into Go struct field ${structName(at.owner)}.${goFieldsOf(at)} of type ${goName(value)}`;
}

/** True if `v` is a JSON value Go decodes into a scalar of type `go`. */
function scalarFits(go: string, v: unknown): boolean {
  switch (go) {
    case "intstr":
    case "quantity":
      return typeof v === "string" || typeof v === "number";
    case "bool":
      return typeof v === "boolean";
    case "float64":
      return typeof v === "number";
    case "int32":
      return Number.isInteger(v) && (v as number) >= -(2 ** 31) && (v as number) < 2 ** 31;
    case "int64":
      return Number.isInteger(v);
    default:
      return typeof v === "string";
  }
}

/** The JSON type of a value, as Go's decoder names it. */
function jsonName(v: unknown): string {
  if (Array.isArray(v)) return "array";
  if (typeof v === "boolean") return "bool";
  return typeof v === "object" ? "object" : typeof v;
}

/** A table type's Go name without its package: `apps.v1.DeploymentSpec` → `DeploymentSpec`. */
function structName(name: string): string {
  return name.slice(name.lastIndexOf(".") + 1);
}

/** A value's Go type as the decoder prints it: `v1.PodSpec`, `[]v1.Container`, `map[string]string`. */
function goName(value: FieldValue): string {
  switch (value.kind) {
    case "scalar":
      return value.go === "intstr"
        ? "intstr.IntOrString"
        : value.go === "quantity"
          ? "resource.Quantity"
          : value.go;
    case "any":
      return "interface {}";
    case "struct": {
      const parts = value.type.split(".");
      return `${parts[parts.length - 2]}.${parts[parts.length - 1]}`;
    }
    case "list":
      return `[]${goName(value.element)}`;
    case "map":
      return `map[string]${goName(value.element)}`;
  }
}
