import { errors, type StatusCause } from "../../../core/index.ts";
import { field } from "../field-errors.ts";
import { type Json, recordAt } from "./util.ts";

/**
 * A Kubernetes quantity in its serialized form (`500m`, `2Gi`, `1e3`, `0.5`): an optional sign,
 * a decimal number, and at most one suffix — decimal SI (`n u m k M G T P E`), binary SI
 * (`Ki Mi Gi Ti Pi Ei`) or a decimal exponent (`e3`, `E-2`).
 */
const QUANTITY = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[numkMGTPE]|[KMGTPE]i|[eE][+-]?\d+)?$/;

/** The regular expression kube quotes when a quantity does not parse. */
const KUBE_PATTERN = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$";

/** True if `value` is a quantity: a string in the grammar above, or a finite JSON number. */
export function isQuantity(value: unknown): boolean {
  if (typeof value === "number") return Number.isFinite(value);
  return typeof value === "string" && QUANTITY.test(value);
}

/**
 * Checks a map of resource quantities (`status.capacity`, `resources.requests`): an
 * unparseable value is a 400, as kube's decoder answers; a negative one a 422 cause.
 */
export function checkQuantities(
  owner: Json,
  key: string,
  path: string,
  kind: string,
): StatusCause[] {
  const map = recordAt(owner, key);
  if (map === undefined) return [];
  const causes: StatusCause[] = [];
  for (const [name, value] of Object.entries(map)) {
    if (!isQuantity(value)) {
      throw errors.badRequest(
        `${kind} in version "v1" cannot be handled as a ${kind}: quantities must match the regular expression '${KUBE_PATTERN}' (${path}.${key}[${name}]: ${JSON.stringify(value)})`,
      );
    }
    if (String(value).startsWith("-")) {
      causes.push(
        field.invalid(
          `${path}.${key}[${name}]`,
          String(value),
          "must be greater than or equal to 0",
        ),
      );
    }
  }
  return causes;
}
