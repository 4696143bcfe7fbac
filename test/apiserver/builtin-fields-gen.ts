/**
 * Builds src/apiserver/registry/builtin-fields.ts — the fields of every built-in kind
 * kube-apiserver 1.36 serves, with what merging needs to know of them — from the OpenAPI v3
 * documents of Kubernetes 1.36 in ../shared/k8s-api/openapi-v3 (read there, never copied). From
 * each schema it keeps: the fields and their types; list types and map keys
 * (`x-kubernetes-list-type`, `x-kubernetes-list-map-keys`, with a key's default); atomic maps and
 * structs (`x-kubernetes-map-type: atomic`); strategic merge patch strategies
 * (`x-kubernetes-patch-strategy`, `x-kubernetes-patch-merge-key`); and the fields Go always
 * writes: a struct held by value (`default: {}` in kube's OpenAPI) as `{}`, a required list, map
 * or pointer (no `omitempty`) as `null`.
 */
import { readdirSync, readFileSync } from "node:fs";
import { OPENAPI_DIR } from "./builtin-resources-gen.ts";

interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: Schema | boolean;
  allOf?: Schema[];
  $ref?: string;
  default?: unknown;
  "x-kubernetes-list-type"?: string;
  "x-kubernetes-list-map-keys"?: string[];
  "x-kubernetes-map-type"?: string;
  "x-kubernetes-patch-strategy"?: string;
  "x-kubernetes-patch-merge-key"?: string;
  "x-kubernetes-group-version-kind"?: { group: string; version: string; kind: string }[];
}

/**
 * Lists Go writes as \`null\` when empty (no \`omitempty\`) that the documents do not mark
 * required (they are \`+optional\`), as kube's types declare them.
 */
const WRITTEN_AS_NULL = new Set([
  "admissionregistration.v1.MutatingWebhook.admissionReviewVersions",
  "admissionregistration.v1.ValidatingWebhook.admissionReviewVersions",
  "apiextensions.v1.CustomResourceDefinitionStatus.conditions",
  "apiextensions.v1.CustomResourceDefinitionStatus.storedVersions",
  "autoscaling.v2.HorizontalPodAutoscalerStatus.currentMetrics",
  "core.v1.ContainerImage.names",
  "core.v1.ProjectedVolumeSource.sources",
  "discovery.v1.EndpointSlice.endpoints",
  "discovery.v1.EndpointSlice.ports",
  "flowcontrol.v1.ResourcePolicyRule.namespaces",
  "rbac.v1.ClusterRole.rules",
  "rbac.v1.Role.rules",
  "resource.v1.AllocatedDeviceStatus.conditions",
  "resource.v1.DeviceClaim.requests",
  "storage.v1.CSINodeDriver.topologyKeys",
]);

/**
 * Fields the documents mark required that Go leaves out when empty all the same (`+required`
 * with `omitempty`), as kube's types declare them: not written as `null`, so an object
 * without one lacks it, and a write that sets it adds the field itself (`"."`) to its
 * manager's fields, as kube records it.
 */
const OMITTED_WHEN_EMPTY = new Set([
  "admissionregistration.v1.ValidatingAdmissionPolicyBindingSpec.validationActions",
  "networking.v1.IPAddressSpec.parentRef",
  "resource.v1.CounterSet.counters",
  "resource.v1.DeviceCounterConsumption.counters",
]);

/** The prefixes of OpenAPI component names the table leaves out of its type names. */
const PREFIXES = [
  "io.k8s.api.",
  "io.k8s.apimachinery.pkg.apis.",
  "io.k8s.apiextensions-apiserver.pkg.apis.",
  "io.k8s.kube-aggregator.pkg.apis.",
];

/** `io.k8s.api.apps.v1.Deployment` → `apps.v1.Deployment`. */
export function shortName(component: string): string {
  for (const p of PREFIXES) if (component.startsWith(p)) return component.slice(p.length);
  return component;
}

/** The GA documents: one per group-version kube serves by default. */
function documents(): Map<string, Schema> {
  const schemas = new Map<string, Schema>();
  for (const file of readdirSync(OPENAPI_DIR)) {
    if (!/^(api__v1|apis__.*__v\d+)_openapi\.json$/.test(file)) continue;
    const doc = JSON.parse(readFileSync(new URL(file, OPENAPI_DIR), "utf8")) as {
      components: { schemas: Record<string, Schema> };
    };
    for (const [name, schema] of Object.entries(doc.components.schemas)) schemas.set(name, schema);
  }
  return schemas;
}

/** What a `$ref` (or `allOf: [{$ref}]`) points at, if anything. */
function refOf(s: Schema): string | undefined {
  const ref = s.$ref ?? s.allOf?.find((a) => a.$ref !== undefined)?.$ref;
  return ref?.replace("#/components/schemas/", "");
}

/**
 * The table: each reachable type's fields, and the root type of each kind
 * (`group/version/Kind`, core `/v1/Kind`) in `kinds`.
 */
export function generateBuiltinFields(kinds: readonly string[]): {
  types: Map<string, string>;
  roots: Map<string, string>;
} {
  const schemas = documents();
  const byKind = new Map<string, string>();
  for (const [name, s] of schemas) {
    for (const gvk of s["x-kubernetes-group-version-kind"] ?? [])
      byKind.set(`${gvk.group}/${gvk.version}/${gvk.kind}`, name);
  }
  const types = new Map<string, string>();
  /** A component as a field's type: a type name, a scalar (see `scalarText`), or "*" (any JSON). */
  const typeOf = (component: string): string => {
    const s = schemas.get(component);
    if (s === undefined) throw new Error(`no schema ${component}`);
    // Go decodes a Quantity or an IntOrString from a JSON string or number.
    if (component.endsWith(".resource.Quantity")) return "%quantity";
    if (component.endsWith(".intstr.IntOrString")) return "%intstr";
    // Embedded JSON kube's field management treats as one value (its schema converter's
    // hard-coded RawExtension), where other open structs are walked field by field.
    if (component.endsWith(".runtime.RawExtension")) return "*atomic";
    if (s.type !== undefined && s.type !== "object") return scalarText(s);
    // A struct kube leaves open (FieldsV1, a CRD's JSON): arbitrary JSON.
    if (s.properties === undefined) return "*";
    const name = shortName(component);
    if (!types.has(name)) {
      types.set(name, "");
      types.set(name, fieldsOf(s, name));
    }
    return name;
  };
  /** A value's type in the table's notation (see the generated file). */
  const valueText = (s: Schema): string => {
    const ref = refOf(s);
    if (ref !== undefined) return typeOf(ref);
    if (s.type === "array") {
      const list = s["x-kubernetes-list-type"] ?? "atomic";
      let semantics = list === "atomic" ? "" : list;
      if (list === "map") {
        const item = s.items && refOf(s.items);
        const props = (item && schemas.get(item)?.properties) || {};
        const keys = (s["x-kubernetes-list-map-keys"] ?? []).map((k) => {
          const d = props[k]?.default;
          // Only defaults that say something: a key left out is "" or 0 anyway.
          return d === undefined || d === "" || d === 0 ? k : `${k}:${String(d)}`;
        });
        semantics = `map=${keys.join(",")}`;
      }
      return `[${semantics}]${s.items ? valueText(s.items) : "*"}`;
    }
    if (s.type === "object" || s.additionalProperties !== undefined) {
      if (s.additionalProperties === undefined || typeof s.additionalProperties === "boolean")
        return "*";
      const atomic = s["x-kubernetes-map-type"] === "atomic" ? "atomic" : "";
      return `{${atomic}}${valueText(s.additionalProperties)}`;
    }
    return s.type === undefined ? "*" : scalarText(s);
  };
  const fieldsOf = (s: Schema, type: string): string => {
    const required = new Set(s.required ?? []);
    const out: string[] = s["x-kubernetes-map-type"] === "atomic" ? ["@atomic"] : [];
    for (const name of Object.keys(s.properties ?? {}).sort()) {
      const p = s.properties![name]!;
      const value = valueText(p);
      const scalar = value === "" || value.startsWith("%");
      const struct = !scalar && value !== "*" && !value.startsWith("[") && !value.startsWith("{");
      let mark = "";
      if (struct && isEmptyObject(p.default)) mark = "!";
      else if (
        ((required.has(name) && !OMITTED_WHEN_EMPTY.has(`${type}.${name}`)) ||
          WRITTEN_AS_NULL.has(`${type}.${name}`)) &&
        !scalar &&
        (!struct || p.default === undefined)
      )
        mark = "~";
      let patch = "";
      const strategy = p["x-kubernetes-patch-strategy"];
      if (strategy !== undefined) {
        patch = strategy
          .split(",")
          .map((part) =>
            part === "merge" && p["x-kubernetes-patch-merge-key"] !== undefined
              ? `/merge=${p["x-kubernetes-patch-merge-key"]}`
              : `/${part}`,
          )
          .join("");
      }
      out.push(value === "" && patch === "" ? `${name}${mark}` : `${name}${mark}:${value}${patch}`);
    }
    return out.join(" ");
  };
  const roots = new Map<string, string>();
  for (const kind of [...kinds].sort()) {
    const component = byKind.get(kind);
    if (component === undefined) throw new Error(`no schema for kind ${kind}`);
    roots.set(kind, typeOf(component));
  }
  return { types: new Map([...types].sort(([a], [b]) => (a < b ? -1 : 1))), roots };
}

/**
 * A scalar's Go type, as its JSON decoding checks it: nothing for a string, `%int32`, `%int64`,
 * `%float64`, `%bool`, or `%intstr` for a field that takes a string or a number.
 */
function scalarText(s: Schema): string {
  if ((s as { "x-kubernetes-int-or-string"?: boolean })["x-kubernetes-int-or-string"])
    return "%intstr";
  switch (s.type) {
    case "integer":
      return (s as { format?: string }).format === "int32" ? "%int32" : "%int64";
    case "number":
      return "%float64";
    case "boolean":
      return "%bool";
    default:
      return "";
  }
}

function isEmptyObject(v: unknown): boolean {
  return typeof v === "object" && v !== null && Object.keys(v).length === 0;
}

/** The generated file. */
export function renderBuiltinFields(
  types: Map<string, string>,
  roots: Map<string, string>,
): string {
  return `// Generated from Kubernetes 1.36's OpenAPI documents (../shared/k8s-api) by
// test/apiserver/builtin-fields.test.ts (KONTROLLER_UPDATE_BUILTIN_FIELDS=1): do not edit.
// A data table, one entry per type.

/**
 * The fields of each type, space-separated, each \`name\` or \`name:type\`:
 * - no type: a string; \`%int32\`, \`%int64\`, \`%float64\`, \`%bool\`: a scalar of that Go type;
 *   \`%intstr\`, \`%quantity\`: a string or a number; \`*\`: arbitrary JSON; \`*atomic\`: arbitrary
 *   JSON replaced whole (a RawExtension); a type name: a struct of that type.
 * - \`[…]X\`: a list of X (nothing for scalars); between the brackets its list type: nothing for
 *   atomic, \`set\`, or \`map=k1,k2\` with its keys (\`key:default\` where a key has a default
 *   other than "" or 0; a number if it reads as one).
 * - \`{}X\` / \`{atomic}X\`: a map of X, merged key by key or replaced whole.
 * - After the type, its strategic merge patch strategy: \`/merge=key\` (a list merged by that
 *   key), \`/merge\` (a list of scalars merged as a set), \`/retainKeys\`, \`/replace\`.
 * - \`name!\`: Go always writes the field (a struct held by value) as \`{}\`; \`name~\`: as
 *   \`null\` (a list, map or pointer without \`omitempty\`).
 * A type whose entry starts with \`@atomic\` is replaced whole, never merged field by field.
 */
export const BUILTIN_TYPES: Readonly<Record<string, string>> = {
${[...types].map(([n, f]) => `  ${JSON.stringify(n)}: ${JSON.stringify(f)},`).join("\n")}
};

/** The root type of each built-in kind, by \`group/version/Kind\` (the core group's \`/v1/Kind\`). */
export const BUILTIN_ROOTS: Readonly<Record<string, string>> = {
${[...roots].map(([k, t]) => `  ${JSON.stringify(k)}: ${JSON.stringify(t)},`).join("\n")}
};
`;
}
