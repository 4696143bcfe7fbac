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

const SUFFIXES: Readonly<Record<string, number>> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  "": 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/**
 * The value of a quantity as a number (`500m` is 0.5, `1Ki` 1024), for comparisons and sums;
 * NaN if it is not one. A double is exact enough to compare the requests and limits of a pod.
 */
export function quantityValue(value: unknown): number {
  if (typeof value === "number") return value;
  if (!isQuantity(value)) return Number.NaN;
  const text = value as string;
  const match = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(.*)$/.exec(text)!;
  const [, number, suffix] = match as unknown as [string, string, string];
  const scale = SUFFIXES[suffix] ?? 10 ** Number(suffix.slice(1));
  return Number(number) * scale;
}
