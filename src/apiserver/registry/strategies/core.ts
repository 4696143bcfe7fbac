import { errors, type KubeObject, type StatusCause } from "../../../core/index.ts";
import { field } from "../field-errors.ts";
import type { Strategy } from "../strategy.ts";
import { arrayAt, child, type Json, rec, recordAt, setDefault, stringAt } from "./util.ts";

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

const count = (o: KubeObject, ...maps: string[]) =>
  maps.reduce((n, m) => n + Object.keys(recordAt(rec(o), m) ?? {}).length, 0);

/** ConfigMaps: data keys, 1 MiB total, immutability. */
export const configMapStrategy: Strategy = {
  validate: (o) => validateDataKeys(rec(o), ["data", "binaryData"]),
  validateUpdate: (o, old) => immutableData(rec(o), rec(old), ["data", "binaryData"]),
  columns: [
    {
      name: "Data",
      type: "integer",
      description: "Number of keys",
      cell: (o) => count(o, "data", "binaryData"),
    },
  ],
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
  prepareForCreate: normalizeSecret,
  prepareForUpdate: normalizeSecret,
  validate: (o) => validateDataKeys(rec(o), ["data"]),
  validateUpdate(o, old) {
    const causes = immutableData(rec(o), rec(old), ["data"]);
    if (rec(o).type !== rec(old).type) causes.push(field.immutable("type", rec(o).type));
    return causes;
  },
  fieldSelectors: ["type"],
  fields: (o) => ({ type: stringAt(o, "type") }),
  columns: [
    { name: "Type", type: "string", cell: (o) => stringAt(o, "type") ?? "" },
    { name: "Data", type: "integer", cell: (o) => count(o, "data") },
  ],
};

/** ServiceAccounts: nothing beyond metadata. */
export const serviceAccountStrategy: Strategy = {};

const SERVICE_TYPES = ["ClusterIP", "NodePort", "LoadBalancer", "ExternalName"];
const PROTOCOLS = ["TCP", "UDP", "SCTP"];

/** Cluster IPs handed out by this process (10.96.0.0/16, in order; never reused). */
let nextClusterIp = 1;

/** Services: defaults (type, ports, a cluster IP) and port validation. */
export const serviceStrategy: Strategy = {
  statusSubresource: true,
  returnDeletedObject: true,
  prepareForCreate(object) {
    const o = rec(object);
    const spec = child(o, "spec");
    setDefault(spec, "type", "ClusterIP");
    setDefault(spec, "sessionAffinity", "None");
    if (spec.type !== "ExternalName") {
      if (spec.clusterIP === undefined || spec.clusterIP === "") {
        const n = nextClusterIp++;
        spec.clusterIP = `10.96.${(n >> 8) & 255}.${n & 255}`;
      }
      setDefault(spec, "clusterIPs", [spec.clusterIP]);
      setDefault(spec, "ipFamilies", ["IPv4"]);
      setDefault(spec, "ipFamilyPolicy", "SingleStack");
      setDefault(spec, "internalTrafficPolicy", "Cluster");
    }
    for (const p of arrayAt(spec, "ports") ?? []) {
      if (typeof p !== "object" || p === null) continue;
      const port = p as Json;
      setDefault(port, "protocol", "TCP");
      setDefault(port, "targetPort", port.port);
    }
    o.status = { loadBalancer: {} };
  },
  prepareForUpdate(object, old) {
    const spec = child(rec(object), "spec");
    const oldSpec = recordAt(rec(old), "spec") ?? {};
    for (const k of [
      "clusterIP",
      "clusterIPs",
      "ipFamilies",
      "ipFamilyPolicy",
      "internalTrafficPolicy",
      "sessionAffinity",
    ]) {
      if (spec[k] === undefined && oldSpec[k] !== undefined) spec[k] = oldSpec[k];
    }
    for (const p of arrayAt(spec, "ports") ?? []) {
      if (typeof p !== "object" || p === null) continue;
      setDefault(p as Json, "protocol", "TCP");
      setDefault(p as Json, "targetPort", (p as Json).port);
    }
  },
  validate(object) {
    const spec = recordAt(rec(object), "spec") ?? {};
    const causes: StatusCause[] = [];
    const type = spec.type;
    if (typeof type !== "string" || !SERVICE_TYPES.includes(type)) {
      causes.push(field.notSupported("spec.type", type, SERVICE_TYPES));
    }
    const ports = arrayAt(spec, "ports") ?? [];
    if (type === "ExternalName") {
      if (!spec.externalName) causes.push(field.required("spec.externalName"));
    } else if (ports.length === 0 && spec.clusterIP !== "None") {
      causes.push(field.required("spec.ports"));
    }
    const names = new Set<unknown>();
    ports.forEach((raw, i) => {
      const p = (raw ?? {}) as Json;
      const path = `spec.ports[${i}]`;
      if (ports.length > 1 && !p.name) causes.push(field.required(`${path}.name`));
      if (p.name !== undefined) {
        if (names.has(p.name)) causes.push(field.duplicate(`${path}.name`, p.name));
        names.add(p.name);
      }
      if (!Number.isInteger(p.port) || (p.port as number) < 1 || (p.port as number) > 65535) {
        causes.push(
          field.invalid(`${path}.port`, p.port, "must be between 1 and 65535, inclusive"),
        );
      }
      if (!PROTOCOLS.includes(String(p.protocol)))
        causes.push(field.notSupported(`${path}.protocol`, p.protocol, PROTOCOLS));
    });
    return causes;
  },
  validateUpdate(object, old) {
    const a = stringAt(object, "spec.clusterIP");
    const b = stringAt(old, "spec.clusterIP");
    return a !== b && b !== undefined && b !== "" ? [field.immutable("spec.clusterIP", a)] : [];
  },
  columns: [
    { name: "Type", type: "string", cell: (o) => stringAt(o, "spec.type") ?? "" },
    { name: "Cluster-IP", type: "string", cell: (o) => stringAt(o, "spec.clusterIP") ?? "<none>" },
    {
      name: "External-IP",
      type: "string",
      cell: (o) => stringAt(o, "spec.externalName") ?? "<none>",
    },
    {
      name: "Port(s)",
      type: "string",
      cell: (o) =>
        (arrayAt(recordAt(rec(o), "spec") ?? {}, "ports") ?? [])
          .map((p) => `${(p as Json).port}/${(p as Json).protocol ?? "TCP"}`)
          .join(",") || "<none>",
    },
  ],
};
