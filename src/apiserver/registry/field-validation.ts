import { errors } from "../../core/index.ts";
import type { FieldValidation } from "./types.ts";

/** The kind and version a write is decoded as, for the wording of a strict decoding error. */
export interface DecodedAs {
  readonly kind: string;
  readonly version: string;
}

/**
 * What kube's `fieldValidation` makes of the unknown fields a write dropped and the keys its
 * body gave twice: nothing with Ignore (or nothing found), warnings with Warn (the default) —
 * `unknown field "spec.x"`, `duplicate field "y"` — and a 400 strict decoding error with
 * Strict, worded as kube's.
 */
export function fieldValidationWarnings(
  dropped: readonly string[],
  duplicates: readonly string[],
  validation: FieldValidation | undefined,
  as: DecodedAs,
): string[] {
  if ((dropped.length === 0 && duplicates.length === 0) || validation === "Ignore") return [];
  const problems = [
    ...dropped.map((d) => `unknown field ${JSON.stringify(d)}`),
    ...duplicates.map((d) => `duplicate field ${JSON.stringify(d)}`),
  ];
  if (validation === "Strict") {
    const { kind, version } = as;
    throw errors.badRequest(
      `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: strict decoding error: ${problems.join(", ")}`,
    );
  }
  return problems;
}
