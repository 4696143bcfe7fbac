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
  const problem = walkType(root, object, { path: "", fields: [] }, removed);
  if (problem !== undefined) {
    throw errors.badRequest(
      `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: json: ${problem}`,
    );
  }
  return removed;
}

/**
 * Where a value is: its path for warnings (with indices and map keys), and the Go struct fields
 * entered to reach it, as Go's decoder names them in a type error (no indices, no map keys).
 */
interface At {
  readonly path: string;
  readonly fields: readonly string[];
  /** The Go name of the struct whose field holds the value. */
  readonly owner?: string;
}

const join = (path: string, key: string) => (path === "" ? key : `${path}.${key}`);

/** Checks a struct's fields; returns Go's message for the first value of the wrong type. */
function walkType(
  type: BuiltinType,
  value: unknown,
  at: At,
  removed: string[],
): string | undefined {
  const o = value as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    const field = type.fields.get(key);
    const path = join(at.path, key);
    if (field === undefined) {
      delete o[key];
      removed.push(path);
      continue;
    }
    const inner: At = { path, fields: [...at.fields, key], owner: structName(type.name) };
    const problem = walkValue(field.value, o[key], inner, removed);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function walkValue(value: FieldValue, v: unknown, at: At, removed: string[]): string | undefined {
  // null decodes into anything; an undefined key is no key (JSON has none).
  if (v === null || v === undefined || value.kind === "any") return undefined;
  const wrong = (json = jsonName(v)) =>
    `cannot unmarshal ${json} into Go struct field ${at.owner}.${at.fields.join(".")} of type ${goName(value)}`;
  switch (value.kind) {
    case "scalar":
      return scalarProblem(value.go, v, wrong);
    case "struct": {
      if (typeof v !== "object" || Array.isArray(v)) return wrong();
      const type = builtinTypeNamed(value.type);
      return type === undefined ? undefined : walkType(type, v, at, removed);
    }
    case "list": {
      if (!Array.isArray(v)) return wrong();
      for (const [i, item] of v.entries()) {
        const problem = walkValue(
          value.element,
          item,
          { ...at, path: `${at.path}[${i}]` },
          removed,
        );
        if (problem !== undefined) return problem;
      }
      return undefined;
    }
    case "map": {
      if (typeof v !== "object" || Array.isArray(v)) return wrong();
      for (const [k, item] of Object.entries(v)) {
        const problem = walkValue(value.element, item, { ...at, path: join(at.path, k) }, removed);
        if (problem !== undefined) return problem;
      }
      return undefined;
    }
  }
}

/** Go's message for a scalar of the wrong JSON type, if it is one. */
function scalarProblem(
  go: string,
  v: unknown,
  wrong: (json?: string) => string,
): string | undefined {
  switch (go) {
    case "intstr":
    case "quantity":
      return typeof v === "string" || typeof v === "number" ? undefined : wrong();
    case "bool":
      return typeof v === "boolean" ? undefined : wrong();
    case "float64":
      return typeof v === "number" ? undefined : wrong();
    case "int32":
    case "int64": {
      if (typeof v !== "number") return wrong();
      const limit = go === "int32" ? 2 ** 31 : 2 ** 63;
      return Number.isInteger(v) && v >= -limit && v < limit ? undefined : wrong(`number ${v}`);
    }
    default:
      return typeof v === "string" ? undefined : wrong();
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
