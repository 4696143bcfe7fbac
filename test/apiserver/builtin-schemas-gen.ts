/**
 * Builds src/apiserver/http/builtin-schemas.json — the OpenAPI component schemas of every
 * built-in kind the server serves, named and shaped as kube-apiserver 1.36's /openapi/v3
 * documents name and shape them — offline, from two kinds of sources:
 *
 * - the facts, from Kubernetes 1.36's OpenAPI v3 documents in ../shared/k8s-api/openapi-v3 (read
 *   there, never copied): which components a kind reaches, their fields, types, formats, required
 *   fields, enums, defaults, `x-kubernetes-group-version-kind`, and the list, map and patch
 *   extensions. Their descriptions are dropped;
 * - the descriptions, from the npm packages the project depends on: @kubernetes/client-node's
 *   models (the doc comments of their .d.ts; client-node documents scalar fields only), then
 *   kubernetes-types (Kubernetes 1.30: it documents the fields of struct type too, and the named
 *   types Quantity, Time, RawExtension…). A type or field neither package documents is left
 *   without a description (`missing` lists them).
 *
 * The roots are every kind of BUILTIN_RESOURCES and its list, Status and DeleteOptions; the
 * file holds them and every component they reach, one component per type, shared by every kind
 * that uses it.
 */
import { readdirSync, readFileSync } from "node:fs";
import * as clientNode from "@kubernetes/client-node";
import { BUILTIN_RESOURCES } from "kontroller/resources";
import ts from "typescript";
import { OPENAPI_DIR } from "./builtin-resources-gen.ts";

type Schema = Record<string, unknown>;
type Gvk = { group: string; version: string; kind: string };

const REF = "#/components/schemas/";
const META = "io.k8s.apimachinery.pkg.apis.meta.v1";

/**
 * kube's description of IntOrString, which neither package has as a type of its own
 * (kubernetes-types writes `number | string`; client-node puts it on IntOrString fields).
 */
const INT_OR_STRING_DOC =
  "IntOrString is a type that can hold an int32 or a string.  When used in JSON or YAML marshalling and unmarshalling, it produces or consumes the inner type.  This allows you to have, for example, a JSON field that can accept a name or number.";

// ---- the facts: kube's documents ----

/** Every component of the GA documents (one per group-version kube serves by default). */
function kubeComponents(): Map<string, Schema> {
  const out = new Map<string, Schema>();
  for (const file of readdirSync(OPENAPI_DIR).sort()) {
    if (!/^(api__v1|apis__.*__v\d+)_openapi\.json$/.test(file)) continue;
    const doc = JSON.parse(readFileSync(new URL(file, OPENAPI_DIR), "utf8")) as {
      components: { schemas: Record<string, Schema> };
    };
    for (const [name, schema] of Object.entries(doc.components.schemas)) {
      const seen = out.get(name);
      // DeleteOptions and WatchEvent name their kind in every group: keep every one.
      if (seen !== undefined) mergeGvks(seen, schema);
      else out.set(name, schema);
    }
  }
  return out;
}

function mergeGvks(into: Schema, from: Schema): void {
  const key = "x-kubernetes-group-version-kind";
  if (into[key] === undefined && from[key] === undefined) return;
  const all = [...((into[key] as Gvk[]) ?? []), ...((from[key] as Gvk[]) ?? [])];
  const unique = new Map(all.map((g) => [`${g.group}/${g.version}/${g.kind}`, g]));
  into[key] = [...unique].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, g]) => g);
}

// ---- the descriptions: the npm packages ----

interface Declaration {
  readonly doc: string;
  /** Field docs by TypeScript property name. */
  readonly props: ReadonlyMap<string, string>;
}

/** The doc comment right before `node`, as text (lines joined with "\n", `*` margins cut). */
function docOf(text: string, node: ts.Node): string {
  const last = (ts.getLeadingCommentRanges(text, node.pos) ?? []).at(-1);
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
    const props = new Map<string, string>();
    for (const m of ts.isTypeAliasDeclaration(s) ? [] : s.members) {
      if (!ts.isPropertySignature(m) && !ts.isPropertyDeclaration(m)) continue;
      if (ts.getCombinedModifierFlags(m as ts.Declaration) & ts.ModifierFlags.Static) continue;
      const name = ts.isStringLiteral(m.name) || ts.isIdentifier(m.name) ? m.name.text : "";
      props.set(name, clean(docOf(text, m)));
    }
    out.set(s.name!.text, { doc: clean(docOf(text, s)), props });
  }
  return out;
}

/** client-node's doc comments escape a quote with one backslash, a backslash with three more. */
function unescapeDoc(doc: string): string {
  return doc.replaceAll("\\\\\\\\", "\\").replace(/\\(["'])/g, "$1");
}

interface Attribute {
  /** The TypeScript name (`x_kubernetes_list_type`); `baseName` is the JSON one. */
  name: string;
  baseName: string;
}
const models = new Map(Object.entries(clientNode as Record<string, unknown>));
const attributesOf = (model: string) =>
  (models.get(model) as { attributeTypeMap?: Attribute[] } | undefined)?.attributeTypeMap;

/** A component's API package and short name: `io.k8s.api.core.v1`, `Pod`. */
function split(component: string): { pkg: string; bare: string } {
  const dot = component.lastIndexOf(".");
  return { pkg: component.slice(0, dot), bare: component.slice(dot + 1) };
}

/** `io.k8s.api.core.v1` → core, v1; meta, apiextensions, apiregistration likewise. */
function groupVersionOf(pkg: string): { group: string; version: string } | undefined {
  const m =
    /^io\.k8s\.(?:api|apimachinery\.pkg\.apis|apiextensions-apiserver\.pkg\.apis|kube-aggregator\.pkg\.apis)\.([a-z0-9]+)\.(v\d+(?:alpha\d+|beta\d+)?)$/.exec(
      pkg,
    );
  return m === null ? undefined : { group: m[1]!, version: m[2]! };
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * The client-node model of a component, with its field docs by JSON name: `CoreV1Event` where
 * client-node prefixes the group (a name two groups share), else `V1Pod`. A model whose fields
 * are not all the component's is not it.
 */
function clientNodeDocs(component: string, kube: Schema): Declaration | undefined {
  const { pkg, bare } = split(component);
  const gv = groupVersionOf(pkg);
  if (gv === undefined) return undefined;
  const version = capital(gv.version);
  const fields = new Set(Object.keys((kube.properties as Schema | undefined) ?? {}));
  for (const model of [`${capital(gv.group)}${version}${bare}`, `${version}${bare}`]) {
    const attributes = attributesOf(model);
    if (attributes === undefined || !attributes.every((a) => fields.has(a.baseName))) continue;
    const file = new URL(`gen/models/${model}.d.ts`, import.meta.resolve("@kubernetes/client-node"))
      .pathname;
    const decl = declarations(file, unescapeDoc).get(model);
    if (decl === undefined) continue;
    const byJson = new Map(attributes.map((a) => [a.baseName, decl.props.get(a.name) ?? ""]));
    return { doc: decl.doc, props: byJson };
  }
  return undefined;
}

const typesDir = new URL("./", import.meta.resolve("kubernetes-types/package.json"));
const typesFiles = new Map<string, Map<string, Declaration> | undefined>();

/** kubernetes-types' declaration of a component (its folder from the API package). */
function kubernetesTypesDocs(component: string): Declaration | undefined {
  const { pkg, bare } = split(component);
  const gv = groupVersionOf(pkg);
  const file =
    gv !== undefined
      ? `${gv.group}/${gv.version}`
      : ({
          "io.k8s.apimachinery.pkg.api.resource": "api/resource",
          "io.k8s.apimachinery.pkg.runtime": "runtime",
        }[pkg] ?? "");
  if (!typesFiles.has(file)) {
    const path = new URL(`${file}.d.ts`, typesDir);
    let decls: Map<string, Declaration> | undefined;
    try {
      decls = file === "" ? undefined : declarations(path.pathname);
    } catch {
      decls = undefined; // a group kubernetes-types does not have (apiregistration)
    }
    typesFiles.set(file, decls);
  }
  return typesFiles.get(file)?.get(bare);
}

/**
 * The description of a kind's `metadata`: every kind's Go type has the same comment on it, which
 * client-node leaves off struct-typed fields and kubernetes-types (1.30) has for the kinds it
 * knows. Kinds newer than kubernetes-types get it from ConfigMap's.
 */
const KIND_METADATA_DOCS: Readonly<Record<string, string | undefined>> = {
  [`${META}.ObjectMeta`]: kubernetesTypesDocs("io.k8s.api.core.v1.ConfigMap")?.props.get(
    "metadata",
  ),
  [`${META}.ListMeta`]: kubernetesTypesDocs("io.k8s.api.core.v1.ConfigMapList")?.props.get(
    "metadata",
  ),
};

/**
 * What the packages say of one component: its description and its fields'. `typeDocs` are the
 * descriptions of the types that are not structs (IntOrString, MicroTime, JSON…), which
 * client-node puts on a field of such a type in place of the field's own.
 */
function describe(component: string, kube: Schema, typeDocs: ReadonlySet<string>): Declaration {
  const own = clientNodeDocs(component, kube);
  const typed = kubernetesTypesDocs(component);
  const doc =
    component === "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
      ? INT_OR_STRING_DOC
      : own?.doc || typed?.doc || "";
  const isKind = kube["x-kubernetes-group-version-kind"] !== undefined;
  const props = new Map<string, string>();
  for (const [field, p] of Object.entries((kube.properties as Record<string, Schema>) ?? {})) {
    const mine = own?.props.get(field) ?? "";
    let theirs = typed?.props.get(field) ?? "";
    if (theirs === "" && isKind && field === "metadata") {
      theirs = KIND_METADATA_DOCS[refsOf(p, new Set()).values().next().value ?? ""] ?? "";
    }
    props.set(field, mine !== "" && !typeDocs.has(mine) ? mine : theirs);
  }
  return { doc, props };
}

// ---- building ----

/** `schema` with kube's descriptions replaced by `doc` (and its fields' by `fields`). */
function redescribe(schema: Schema, doc: string, fields?: ReadonlyMap<string, string>): Schema {
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "description") continue;
    if (key === "properties" && fields !== undefined) {
      const props = value as Record<string, Schema>;
      out[key] = Object.fromEntries(
        Object.entries(props).map(([name, p]) => [name, redescribe(p, fields.get(name) ?? "")]),
      );
    } else if (key === "items" || (key === "additionalProperties" && typeof value === "object")) {
      out[key] = redescribe(value as Schema, "");
    } else {
      out[key] = value;
    }
  }
  if (doc === "") return out;
  // kube's order: keys sorted, so the description goes where kube had it.
  const entries = Object.entries(out);
  const at = entries.findIndex(([k]) => k > "description");
  entries.splice(at === -1 ? entries.length : at, 0, ["description", doc]);
  return Object.fromEntries(entries);
}

/** Every `#/components/schemas/` reference in a schema. */
function refsOf(value: unknown, out: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const v of value) refsOf(v, out);
  else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string" && v.startsWith(REF)) out.add(v.slice(REF.length));
      else refsOf(v, out);
    }
  }
  return out;
}

/** The root components: every served kind and its list, Status and DeleteOptions. */
function roots(kube: ReadonlyMap<string, Schema>): string[] {
  const byGvk = new Map<string, string>();
  for (const [name, s] of kube) {
    for (const g of (s["x-kubernetes-group-version-kind"] as Gvk[] | undefined) ?? []) {
      byGvk.set(`${g.group}/${g.version}/${g.kind}`, name);
    }
  }
  const out = [`${META}.Status`, `${META}.DeleteOptions`];
  for (const r of BUILTIN_RESOURCES) {
    const kind = byGvk.get(`${r.group}/${r.version}/${r.kind}`);
    if (kind === undefined) throw new Error(`kube's documents have no ${r.kind} in ${r.group}`);
    out.push(kind);
    const list = byGvk.get(`${r.group}/${r.version}/${r.kind}List`);
    if (list !== undefined) out.push(list);
  }
  return out;
}

/**
 * Every component schema the served kinds reach, by name, sorted; and `missing`: the components
 * and fields kube describes that the packages do not (left without a description).
 */
export function generateBuiltinSchemas(): { schemas: Map<string, Schema>; missing: string[] } {
  const kube = kubeComponents();
  const typeDocs = new Set([INT_OR_STRING_DOC]);
  for (const [name, s] of kube) {
    const doc = s.properties === undefined ? kubernetesTypesDocs(name)?.doc : undefined;
    if (doc) typeDocs.add(doc);
  }
  const out = new Map<string, Schema>();
  const missing: string[] = [];
  const pending = roots(kube);
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (out.has(name)) continue;
    const schema = kube.get(name);
    if (schema === undefined) throw new Error(`kube's documents refer to ${name} but lack it`);
    const { doc, props } = describe(name, schema, typeDocs);
    out.set(name, redescribe(schema, doc, props));
    if (doc === "" && schema.description !== undefined) missing.push(name);
    for (const [field, p] of Object.entries((schema.properties as Record<string, Schema>) ?? {})) {
      if (props.get(field) === "" && p.description !== undefined) missing.push(`${name}.${field}`);
    }
    pending.push(...refsOf(schema, new Set()));
  }
  return {
    schemas: new Map([...out].sort(([a], [b]) => (a < b ? -1 : 1))),
    missing: missing.sort(),
  };
}

/** The file's text: one component per line, so a change shows as the lines of its types. */
export function renderBuiltinSchemas(schemas: Map<string, Schema>): string {
  const lines = [...schemas].map(([n, s]) => `${JSON.stringify(n)}:${JSON.stringify(s)}`);
  return `{\n${lines.join(",\n")}\n}\n`;
}
