/**
 * Builds src/apiserver/http/builtin-schemas.json — the OpenAPI v3 component schemas of the
 * built-in kinds the server serves, named and shaped as kube-apiserver's /openapi/v3 documents
 * name and shape them — from the sources in node_modules, offline:
 *
 * - @kubernetes/client-node's models (the same OpenAPI the Go types give; the field table of
 *   builtin-fields.ts comes from them too): fields, their types and formats, which are required
 *   (no `?`), and the descriptions (the doc comments of the models' .d.ts);
 * - kubernetes-types: the API package of each type (`io.k8s.api.core.v1`…), and the named
 *   types client-node flattens to strings or `any` (Quantity, JSON, FieldsV1…), with their
 *   descriptions;
 * - builtin-schema-lists.ts: the list and patch markers, kept by hand.
 *
 * One component per type, shared by every kind that uses it. Served kinds carry
 * `x-kubernetes-group-version-kind`, by which the server (and kubectl explain) finds them.
 */
import { readFileSync } from "node:fs";
import * as clientNode from "@kubernetes/client-node";
import ts from "typescript";
import { FIELD_MARKERS } from "./builtin-schema-lists.ts";

type Gvk = { group: string; version: string; kind: string };

/** The root models: every served kind, its list, and the meta kinds the operations use. */
const ROOTS: readonly [model: string, gvk: Gvk][] = [
  ...["Namespace", "ConfigMap", "Secret", "Service", "ServiceAccount", "Pod", "Node"].flatMap(
    (kind) => listed(`V1${kind}`, { group: "", version: "v1", kind }),
  ),
  ...listed("CoreV1Event", { group: "", version: "v1", kind: "Event" }),
  ...listed("EventsV1Event", { group: "events.k8s.io", version: "v1", kind: "Event" }),
  ...listed("V1Lease", { group: "coordination.k8s.io", version: "v1", kind: "Lease" }),
  ...listed("V1Deployment", { group: "apps", version: "v1", kind: "Deployment" }),
  ...listed("V1CustomResourceDefinition", {
    group: "apiextensions.k8s.io",
    version: "v1",
    kind: "CustomResourceDefinition",
  }),
  ["V1Status", { group: "", version: "v1", kind: "Status" }],
  ["V1DeleteOptions", { group: "", version: "v1", kind: "DeleteOptions" }],
];

function listed(model: string, gvk: Gvk): [string, Gvk][] {
  return [
    [model, gvk],
    [`${model}List`, { ...gvk, kind: `${gvk.kind}List` }],
  ];
}

/** kubernetes-types folders → API packages (the prefix of a component's name). */
const PACKAGES: Readonly<Record<string, string>> = {
  "meta/v1": "io.k8s.apimachinery.pkg.apis.meta.v1",
  "core/v1": "io.k8s.api.core.v1",
  "apps/v1": "io.k8s.api.apps.v1",
  "coordination/v1": "io.k8s.api.coordination.v1",
  "events/v1": "io.k8s.api.events.v1",
  "apiextensions/v1": "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1",
  "api/resource": "io.k8s.apimachinery.pkg.api.resource",
};

/** client-node's group prefixes (used where two groups have a type of one name). */
const PREFIXES: Readonly<Record<string, string>> = {
  Core: "core",
  Events: "events",
  Apps: "apps",
  Coordination: "coordination",
  Apiextensions: "apiextensions",
};

/**
 * Types that are not structs: client-node types them as strings, dates or `any`; kube names
 * them. The schema here; the description from kubernetes-types (or `description` when it has
 * none).
 */
const NAMED: Readonly<Record<string, { schema: Record<string, unknown>; description?: string }>> = {
  "io.k8s.apimachinery.pkg.apis.meta.v1.Time": {
    schema: { format: "date-time", type: "string" },
  },
  "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": {
    schema: { format: "date-time", type: "string" },
  },
  "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1": { schema: { type: "object" } },
  "io.k8s.apimachinery.pkg.api.resource.Quantity": {
    schema: { oneOf: [{ type: "string" }, { type: "number" }] },
  },
  "io.k8s.apimachinery.pkg.util.intstr.IntOrString": {
    schema: { format: "int-or-string", oneOf: [{ type: "integer" }, { type: "string" }] },
    description:
      "IntOrString is a type that can hold an int32 or a string.  When used in JSON or YAML marshalling and unmarshalling, it produces or consumes the inner type.  This allows you to have, for example, a JSON field that can accept a name or number.",
  },
  "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON": { schema: {} },
  "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray": {
    schema: {},
  },
  "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool": {
    schema: {},
  },
  "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray": {
    schema: {},
  },
  "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceSubresourceStatus": {
    schema: { type: "object" },
  },
};

// ---- reading the sources ----

interface Property {
  /** The type as written (`Quantity`, `Array<JSON>`, `{ [name: string]: Quantity; }`). */
  readonly type: string;
  readonly doc: string;
  /** Declared without `?`. */
  readonly required: boolean;
}

interface Declaration {
  readonly doc: string;
  readonly props: ReadonlyMap<string, Property>;
}

/** The doc comment right before `node`, as text (lines joined with "\n", `*` margins cut). */
function docOf(text: string, node: ts.Node): string {
  const ranges = ts.getLeadingCommentRanges(text, node.pos) ?? [];
  const last = ranges.at(-1);
  if (last === undefined) return "";
  const raw = text.slice(last.pos, last.end);
  if (!raw.startsWith("/**")) return "";
  return raw
    .slice(3, -2)
    .split("\n")
    .map((l) => l.replace(/^\s*\* ?/, ""))
    .join("\n")
    .trim();
}

/** Interfaces, classes and type aliases of a .d.ts file, by name; docs pass through `clean`. */
function declarations(file: string, clean = (doc: string) => doc): Map<string, Declaration> {
  const text = readFileSync(file, "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const out = new Map<string, Declaration>();
  for (const s of source.statements) {
    if (!ts.isInterfaceDeclaration(s) && !ts.isClassDeclaration(s) && !ts.isTypeAliasDeclaration(s))
      continue;
    const props = new Map<string, Property>();
    for (const m of ts.isTypeAliasDeclaration(s) ? [] : s.members) {
      if (!ts.isPropertySignature(m) && !ts.isPropertyDeclaration(m)) continue;
      if (ts.getCombinedModifierFlags(m as ts.Declaration) & ts.ModifierFlags.Static) continue;
      const name = ts.isStringLiteral(m.name) || ts.isIdentifier(m.name) ? m.name.text : "";
      props.set(name, {
        type: m.type?.getText(source).replace(/\s+/g, " ") ?? "",
        doc: clean(docOf(text, m)),
        required: m.questionToken === undefined,
      });
    }
    out.set(s.name!.text, { doc: clean(docOf(text, s)), props });
  }
  return out;
}

/** A client-node model's .d.ts declaration (its properties by TypeScript name). */
function clientNodeModel(name: string): Declaration {
  const file = new URL(`gen/models/${name}.d.ts`, import.meta.resolve("@kubernetes/client-node"))
    .pathname;
  const decl = declarations(file, unescapeDoc).get(name);
  if (decl === undefined) throw new Error(`client-node has no model ${name}`);
  return decl;
}

/** client-node's doc comments escape a quote with one backslash, a backslash with three more. */
function unescapeDoc(doc: string): string {
  return doc.replaceAll("\\\\\\\\", "\\").replace(/\\(["'])/g, "$1");
}

const typesDir = new URL("./", import.meta.resolve("kubernetes-types/package.json"));
const kubernetesTypes = new Map(
  Object.keys(PACKAGES).map((folder) => [
    folder,
    declarations(new URL(`${folder}.d.ts`, typesDir).pathname),
  ]),
);

interface Attribute {
  /** The TypeScript name (`x_kubernetes_list_type`); `baseName` is the JSON one. */
  name: string;
  baseName: string;
  type: string;
  format: string;
}
const models = new Map(Object.entries(clientNode as Record<string, unknown>));
const attributesOf = (model: string) =>
  (models.get(model) as { attributeTypeMap?: Attribute[] } | undefined)?.attributeTypeMap;

// ---- naming ----

/** `Array<T>` and `{ [key: string]: T; }` wrappers (`[]`, `{}`), outermost first, and T. */
function unwrap(type: string): { wrappers: string; inner: string } {
  let wrappers = "";
  let inner = type.trim();
  for (;;) {
    const array = /^Array<(.*)>$/.exec(inner);
    const map = /^\{ \[(?:key|name): string\]: (.*); \}$/.exec(inner);
    if (array === null && map === null) return { wrappers, inner };
    wrappers += array ? "[]" : "{}";
    inner = (array ?? map)![1]!.trim();
  }
}

/**
 * The kubernetes-types folder of a client-node model: from its group prefix, else the one
 * folder of its version that declares the name, else (a type newer than kubernetes-types) the
 * folder of the model that uses it.
 */
function folderOf(model: string, parent: string | undefined): { folder: string; bare: string } {
  const m = /^([A-Z][a-z]+)?(V\d+(?:alpha\d+|beta\d+)?)([A-Z].*)$/.exec(model);
  if (m === null) throw new Error(`unexpected model name ${model}`);
  const [, prefix, version, bare] = m as unknown as [string, string | undefined, string, string];
  const v = version.toLowerCase();
  if (prefix !== undefined) {
    const group = PREFIXES[prefix];
    if (group === undefined) throw new Error(`no group for prefix ${prefix} of ${model}`);
    return { folder: `${group}/${v}`, bare };
  }
  const found = [...kubernetesTypes]
    .filter(([folder, decls]) => folder.endsWith(`/${v}`) && decls.has(bare))
    .map(([folder]) => folder);
  if (found.length > 1) throw new Error(`${model} is in ${found.join(" and ")}: add a prefix rule`);
  if (found.length === 1) return { folder: found[0]!, bare };
  if (parent === undefined) throw new Error(`cannot place root model ${model}`);
  return { folder: parent, bare };
}

// ---- building ----

type Schema = Record<string, unknown>;
const REF = "#/components/schemas/";

/** Keys in kube's order (sorted), for stable, comparable output. */
function sorted(o: Schema): Schema {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** A field's schema: `inner` (a scalar schema or a ref) behind list/map wrappers. */
function wrap(wrappers: string, inner: Schema, description: string, markers: Schema): Schema {
  const desc = description === "" ? {} : { description };
  if (wrappers === "") {
    if (!("$ref" in inner)) return sorted({ ...inner, ...desc, ...markers });
    const bare = description === "" && Object.keys(markers).length === 0;
    return bare ? inner : sorted({ allOf: [inner], ...desc, ...markers });
  }
  const nested = wrap(wrappers.slice(2), inner, "", {});
  return sorted(
    wrappers.startsWith("[]")
      ? { ...desc, items: nested, type: "array", ...markers }
      : { ...desc, additionalProperties: nested, type: "object", ...markers },
  );
}

/** client-node's scalar types and formats as OpenAPI. */
function scalar(type: string, format: string): Schema | string {
  switch (type) {
    case "string":
      return format === "" ? { type: "string" } : { format, type: "string" };
    case "boolean":
      return { type: "boolean" };
    case "number":
      return format === "double" || format === ""
        ? { format: "double", type: "number" }
        : {
            format,
            type: "integer",
          };
    case "Date":
      return "io.k8s.apimachinery.pkg.apis.meta.v1.Time";
    case "V1MicroTime":
      return "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime";
    case "IntOrString":
      return "io.k8s.apimachinery.pkg.util.intstr.IntOrString";
    case "any":
      return { "x-kubernetes-preserve-unknown-fields": true };
    default:
      throw new Error(`unexpected client-node type ${type} (${format})`);
  }
}

/** A named (non-struct) type kubernetes-types gives a field, if it is one of {@link NAMED}. */
function namedOf(folder: string, typeText: string | undefined): string | undefined {
  if (typeText === undefined) return undefined;
  const { inner } = unwrap(typeText);
  const candidates = [
    `${PACKAGES[folder]}.${inner}`,
    ...Object.values(PACKAGES).map((p) => `${p}.${inner}`),
  ];
  return candidates.find((c) => NAMED[c] !== undefined);
}

/** A named type's description. */
function namedDoc(name: string): string | undefined {
  const dot = name.lastIndexOf(".");
  const folder = Object.keys(PACKAGES).find((f) => PACKAGES[f] === name.slice(0, dot));
  return (
    NAMED[name]?.description ?? kubernetesTypes.get(folder ?? "")?.get(name.slice(dot + 1))?.doc
  );
}

const namedDocs = new Set(Object.keys(NAMED).map(namedDoc));

/**
 * A field's description: client-node's, except where its generator put the description of the
 * field's type instead (IntOrString and MicroTime fields) or none: then kubernetes-types'.
 */
function fieldDoc(own: string | undefined, typed: string | undefined): string {
  if (own === undefined || own === "" || namedDocs.has(own)) return typed || own || "";
  return own;
}

/** Every component schema reachable from the roots, by name, sorted. */
export function generateBuiltinSchemas(): Map<string, Schema> {
  const out = new Map<string, Schema>();
  const names = new Map<string, string>();
  const gvks = new Map(ROOTS);
  const used = new Set<string>();

  const visit = (model: string, parent: string | undefined): string => {
    const known = names.get(model);
    if (known !== undefined) return known;
    const { folder, bare } = folderOf(model, parent);
    const name = `${PACKAGES[folder]}.${bare}`;
    if ([...names.values()].includes(name)) throw new Error(`two models named ${name}`);
    names.set(model, name);
    const decl = clientNodeModel(model);
    const types = kubernetesTypes.get(folder)?.get(bare);
    const markers = FIELD_MARKERS[name] ?? {};
    const properties: Schema = {};
    const required: string[] = [];
    for (const a of attributesOf(model)!) {
      const { wrappers, inner } = unwrap(a.type);
      const own = decl.props.get(a.name);
      const typed = types?.props.get(a.baseName);
      let target: Schema;
      if (attributesOf(inner) !== undefined) {
        target = { $ref: REF + visit(inner, folder) };
      } else {
        const named = namedOf(folder, typed?.type);
        const s = named ?? scalar(inner, a.format);
        if (typeof s === "string") used.add(s);
        target = typeof s === "string" ? { $ref: REF + s } : s;
      }
      const fieldMarkers = markers[a.baseName] ?? {};
      if (Object.keys(fieldMarkers).length > 0) {
        const list =
          "x-kubernetes-list-type" in fieldMarkers ||
          "x-kubernetes-patch-merge-key" in fieldMarkers;
        if (list !== wrappers.startsWith("[]")) {
          throw new Error(`${name}.${a.baseName}: list markers on a field that is not a list`);
        }
      }
      properties[a.baseName] = wrap(wrappers, target, fieldDoc(own?.doc, typed?.doc), fieldMarkers);
      if (own?.required) required.push(a.baseName);
    }
    for (const field of Object.keys(markers)) {
      if (!(field in properties))
        throw new Error(`${name} has no field ${field} (builtin-schema-lists.ts)`);
    }
    const gvk = gvks.get(model);
    out.set(
      name,
      sorted({
        ...(decl.doc === "" ? {} : { description: decl.doc }),
        properties: sorted(properties),
        ...(required.length > 0 ? { required: required.sort() } : {}),
        type: "object",
        ...(gvk ? { "x-kubernetes-group-version-kind": [sorted(gvk)] } : {}),
      }),
    );
    return name;
  };
  for (const [model] of ROOTS) visit(model, undefined);

  for (const [name, { schema }] of Object.entries(NAMED)) {
    if (!used.has(name)) continue;
    const doc = namedDoc(name);
    out.set(name, sorted({ ...schema, ...(doc ? { description: doc } : {}) }));
  }
  for (const name of Object.keys(FIELD_MARKERS)) {
    if (!out.has(name))
      throw new Error(`builtin-schema-lists.ts names ${name}, which no kind uses`);
  }
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The file's text: one component per line, so a change shows as the lines of its types. */
export function renderBuiltinSchemas(schemas: Map<string, Schema>): string {
  const lines = [...schemas].map(([n, s]) => `${JSON.stringify(n)}:${JSON.stringify(s)}`);
  return `{\n${lines.join(",\n")}\n}\n`;
}
