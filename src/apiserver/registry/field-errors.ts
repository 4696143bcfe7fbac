import type { StatusCause } from "../../core/index.ts";

/**
 * Builders for validation causes with apimachinery's `field.Error` wording: each names the
 * field path (`spec.containers[0].image`, `metadata.labels[app]`) and what is wrong with it.
 */
export const field = {
  required(path: string, detail?: string): StatusCause {
    return cause("FieldValueRequired", path, `Required value${detail ? `: ${detail}` : ""}`);
  },
  invalid(path: string, value: unknown, detail: string): StatusCause {
    return cause("FieldValueInvalid", path, `Invalid value: ${show(value)}: ${detail}`);
  },
  typeInvalid(path: string, value: unknown, detail: string): StatusCause {
    return cause("FieldValueTypeInvalid", path, `Invalid value: ${show(value)}: ${detail}`);
  },
  notSupported(path: string, value: unknown, supported: readonly string[]): StatusCause {
    const list = supported.map((s) => JSON.stringify(s)).join(", ");
    return cause(
      "FieldValueNotSupported",
      path,
      `Unsupported value: ${show(value)}: supported values: ${list}`,
    );
  },
  forbidden(path: string, detail: string): StatusCause {
    return cause("FieldValueForbidden", path, `Forbidden: ${detail}`);
  },
  notFound(path: string, value: unknown): StatusCause {
    return cause("FieldValueNotFound", path, `Not found: ${show(value)}`);
  },
  duplicate(path: string, value: unknown): StatusCause {
    return cause("FieldValueDuplicate", path, `Duplicate value: ${show(value)}`);
  },
  tooLong(path: string, max: number): StatusCause {
    return cause("FieldValueTooLong", path, `Too long: may not be more than ${max} bytes`);
  },
  tooMany(path: string, actual: number, max: number): StatusCause {
    return cause("FieldValueTooMany", path, `Too many: ${actual}: must have at most ${max} items`);
  },
  immutable(path: string, value: unknown): StatusCause {
    return field.invalid(path, value, "field is immutable");
  },
} as const;

function cause(reason: string, path: string, message: string): StatusCause {
  return { reason, message, field: path };
}

/** A value as kube prints it in a field error: strings quoted, objects as JSON. */
export function show(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (value === undefined) return "null";
  if (typeof value === "object") {
    const s = JSON.stringify(value);
    return s.length > 200 ? `${s.slice(0, 200)}...` : s;
  }
  return String(value);
}
