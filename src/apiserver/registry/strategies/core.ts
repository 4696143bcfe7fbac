import { errors, type KubeObject, type StatusCause } from "../../../core/index.ts";
import { field } from "../field-errors.ts";
import type { Strategy } from "../strategy.ts";
import { CONFIG_MAP_COLUMNS, SECRET_COLUMNS, SERVICE_ACCOUNT_COLUMNS } from "./columns/core.ts";
import { child, type Json, rec, recordAt, setDefault, stringAt } from "./util.ts";

const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
const MAX_CONFIG_BYTES = 1024 * 1024;

/** Keys of ConfigMap and Secret data: `[-._a-zA-Z0-9]+`, at most 253 characters, unique across maps. */
function validateDataKeys(o: Json, maps: readonly string[]): StatusCause[] {
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  let bytes = 0;
  for (const m of maps) {
    const data = o[m];
    if (data === undefined || data === null) continue;
    if (typeof data !== "object" || Array.isArray(data)) {
      causes.push(field.typeInvalid(m, data, "must be a map of strings"));
      continue;
    }
    for (const [k, v] of Object.entries(data as Json)) {
      if (!CONFIG_KEY.test(k) || k.length > 253 || k === "." || k === "..") {
        causes.push(
          field.invalid(
            `${m}[${k}]`,
            k,
            "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
          ),
        );
      }
      if (seen.has(k))
        causes.push(field.invalid(`${m}[${k}]`, k, "duplicate of key present in another map"));
      seen.add(k);
      if (typeof v !== "string")
        causes.push(field.typeInvalid(`${m}[${k}]`, v, "must be a string"));
      else bytes += v.length;
    }
  }
  if (bytes > MAX_CONFIG_BYTES) causes.push(field.tooLong("", MAX_CONFIG_BYTES));
  return causes;
}

function immutableData(o: Json, old: Json, maps: readonly string[]): StatusCause[] {
  if (old.immutable !== true) return [];
  const causes: StatusCause[] = [];
  if (o.immutable !== true)
    causes.push(field.forbidden("immutable", "field is immutable when `immutable` is set"));
  for (const m of maps) {
    if (JSON.stringify(o[m] ?? {}) !== JSON.stringify(old[m] ?? {})) {
      causes.push(field.forbidden(m, "field is immutable when `immutable` is set"));
    }
  }
  return causes;
}

/** ConfigMaps: data keys, 1 MiB total, immutability. */
export const configMapStrategy: Strategy = {
  validate: (o) => validateDataKeys(rec(o), ["data", "binaryData"]),
  validateUpdate: (o, old) => immutableData(rec(o), rec(old), ["data", "binaryData"]),
  columns: CONFIG_MAP_COLUMNS,
};

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function normalizeSecret(object: KubeObject): void {
  const o = rec(object);
  setDefault(o, "type", "Opaque");
  const stringData = recordAt(o, "stringData");
  if (stringData !== undefined) {
    const data = child(o, "data");
    for (const [k, v] of Object.entries(stringData)) {
      if (typeof v === "string") data[k] = Buffer.from(v, "utf8").toString("base64");
    }
    delete o.stringData;
  }
  for (const [k, v] of Object.entries(recordAt(o, "data") ?? {})) {
    if (typeof v === "string" && (v.length % 4 !== 0 || !BASE64.test(v))) {
      throw errors.badRequest(
        `Secret in version "v1" cannot be handled as a Secret: illegal base64 data in data[${k}]: values of a Secret's data must be base64-encoded (use stringData for plain text)`,
      );
    }
  }
}

/** Secrets: stringData folded into base64 data, type defaulted and immutable. */
export const secretStrategy: Strategy = {
  defaults: normalizeSecret,
  validate: (o) => validateDataKeys(rec(o), ["data"]),
  validateUpdate(o, old) {
    const causes = immutableData(rec(o), rec(old), ["data"]);
    if (rec(o).type !== rec(old).type) causes.push(field.immutable("type", rec(o).type));
    return causes;
  },
  fieldSelectors: ["type"],
  fields: (o) => ({ type: stringAt(o, "type") }),
  columns: SECRET_COLUMNS,
};

/** ServiceAccounts: nothing beyond metadata; a DELETE answers with the object, as kube's. */
export const serviceAccountStrategy: Strategy = {
  returnDeletedObject: true,
  columns: SERVICE_ACCOUNT_COLUMNS,
};
