/**
 * Builds src/resources/protobuf-table.ts — the wire facts of every Kubernetes protobuf message
 * the built-in kinds reach — offline, from two sources:
 *
 * - the messages, from ../shared/k8s-api/proto-fields-v1.36.json (read there, never copied): each
 *   field's number, proto type, and whether it repeats or is a map;
 * - the Go side of each field, from a k8s.io source tree of the same release (the directory that
 *   holds `api/` and `apimachinery/`, named by KONTROLLER_K8S_SOURCE): its JSON name (or
 *   `inline`), and whether Go holds it behind a pointer — which decides whether the encoder
 *   writes it when it is empty and whether a decoded zero is kept. Named slices (`type
 *   ExtraValue []string`) are marked: their message is a JSON array.
 *
 * The roots are every kind of BUILTIN_RESOURCES, its list and its subresources' kinds, and the
 * meta kinds a response or watch carries; the table holds them and every message they reach.
 */
import { readdirSync, readFileSync } from "node:fs";
import { BUILTIN_RESOURCES } from "kontroller/resources";
import { OPENAPI_DIR } from "../apiserver/builtin-resources-gen.ts";

export const PROTO_FIELDS = new URL(
  "../../../shared/k8s-api/proto-fields-v1.36.json",
  import.meta.url,
);

interface ProtoField {
  name: string;
  id: number;
  type: string;
  repeated?: boolean;
  keyType?: string;
}

interface GoField {
  json: string;
  pointer: boolean;
  /** Go's JSON writes it even when zero: held by value, no `omitempty` or `omitzero`. */
  written: boolean;
}

interface GoPackage {
  fields: Map<string, Map<number, GoField>>;
  namedSlices: Set<string>;
}

/** The meta kinds a response, an error or a watch stream carries, besides the resources'. */
const META_ROOTS = [
  "k8s.io.apimachinery.pkg.apis.meta.v1.Status",
  "k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent",
  "k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions",
  "k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadata",
  "k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadataList",
  "k8s.io.apimachinery.pkg.runtime.Unknown",
];

/**
 * Messages Go marshals by hand (their Go type is not the message: Time is a time.Time, Quantity
 * a string form, RawExtension raw bytes): the codec converts them as kube does, by name.
 */
export const SPECIAL_MESSAGES = new Set([
  "k8s.io.apimachinery.pkg.apis.meta.v1.Time",
  "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime",
  "k8s.io.apimachinery.pkg.apis.meta.v1.Duration",
  "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1",
  "k8s.io.apimachinery.pkg.api.resource.Quantity",
  "k8s.io.apimachinery.pkg.util.intstr.IntOrString",
  "k8s.io.apimachinery.pkg.runtime.RawExtension",
]);

/** The hand-marshalled messages whose zero Go's JSON writes as a value (null, "0s", "0", 0). */
const ZERO_WRITTEN_SPECIALS = new Set([
  "k8s.io.apimachinery.pkg.apis.meta.v1.Time",
  "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime",
  "k8s.io.apimachinery.pkg.apis.meta.v1.Duration",
  "k8s.io.apimachinery.pkg.api.resource.Quantity",
  "k8s.io.apimachinery.pkg.util.intstr.IntOrString",
]);

/** Kinds no OpenAPI document names: the metadata-only forms a client asks for with `as=`. */
const META_KINDS: Readonly<Record<string, string>> = {
  "meta.k8s.io/v1/PartialObjectMetadata":
    "k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadata",
  "meta.k8s.io/v1/PartialObjectMetadataList":
    "k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadataList",
  "meta.k8s.io/v1beta1/PartialObjectMetadata":
    "k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadata",
  "meta.k8s.io/v1beta1/PartialObjectMetadataList":
    "k8s.io.apimachinery.pkg.apis.meta.v1beta1.PartialObjectMetadataList",
  // Discovery: /api names no apiVersion, /api/v1 neither; /apis and a group's documents "v1".
  "//APIVersions": "k8s.io.apimachinery.pkg.apis.meta.v1.APIVersions",
  "//APIResourceList": "k8s.io.apimachinery.pkg.apis.meta.v1.APIResourceList",
  "/v1/APIGroupList": "k8s.io.apimachinery.pkg.apis.meta.v1.APIGroupList",
  "/v1/APIGroup": "k8s.io.apimachinery.pkg.apis.meta.v1.APIGroup",
  "/v1/APIResourceList": "k8s.io.apimachinery.pkg.apis.meta.v1.APIResourceList",
  // Aggregated discovery; kube-apiserver serves its v2beta1 form in JSON only.
  "apidiscovery.k8s.io/v2/APIGroupDiscoveryList":
    "k8s.io.api.apidiscovery.v2.APIGroupDiscoveryList",
};

/** The Go package directory of a proto package (`k8s.io.api.apps.v1` → `api/apps/v1`). */
function goDir(pkg: string): string {
  return pkg.replace(/^k8s\.io\./, "").replaceAll(".", "/");
}

const STRUCT = /^type (\w+) struct \{$/;
const NAMED_SLICE = /^type (\w+) \[\]\w+$/;
const FIELD = /^\t(?:(\w+)\s+)?(\S+)\s+`([^`]*)`/;

/** The Go facts of one package: each struct's fields by protobuf number. */
function readGoPackage(dir: string): GoPackage {
  const fields = new Map<string, Map<number, GoField>>();
  const namedSlices = new Set<string>();
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith(".go") || file.endsWith("_test.go") || file.startsWith("zz_")) continue;
    if (file === "generated.pb.go") continue;
    let current: Map<number, GoField> | undefined;
    for (const line of readFileSync(`${dir}/${file}`, "utf8").split("\n")) {
      const s = STRUCT.exec(line);
      if (s) {
        // A type declared twice is behind build tags (fieldsv1_byte.go, fieldsv1_string.go):
        // the first file, the default build's, is the one read.
        current = fields.has(s[1]!) ? undefined : new Map();
        if (current) fields.set(s[1]!, current);
        continue;
      }
      const slice = NAMED_SLICE.exec(line);
      if (slice) namedSlices.add(slice[1]!);
      if (line === "}") current = undefined;
      const f = current && FIELD.exec(line);
      if (!current || !f) continue;
      const tag = f[3]!;
      const proto = /protobuf:"[^,]+,(\d+),/.exec(tag);
      if (!proto) continue;
      const json = /json:"([^",]*)((?:,\w+)*)"/.exec(tag);
      const inline = json !== null && (json[2] ?? "").includes(",inline");
      // No JSON name (no tag, or `json:"-"`): the proto name stands for it.
      const named = json?.[1] && json[1] !== "-" ? json[1] : /name=(\w+)/.exec(tag)?.[1];
      const pointer = f[2]!.startsWith("*");
      const options = json?.[2] ?? "";
      // omitempty leaves out a zero scalar, never a struct (a Time, a Quantity): only omitzero
      // leaves out those.
      const struct = /^(metav1\.|v1\.)?(Time|MicroTime|Duration)$|Quantity$|IntOrString$/.test(
        f[2]!,
      );
      const omitted = struct ? /,omitzero\b/ : /,omit(empty|zero)\b/;
      current.set(Number(proto[1]), {
        json: inline ? "" : (named ?? ""),
        pointer,
        written: !pointer && !inline && !omitted.test(options),
      });
    }
  }
  return { fields, namedSlices };
}

/** Every kind's message name, by `group/version/kind`, from the OpenAPI documents' GVKs. */
function kindsFromOpenApi(messages: Record<string, ProtoField[]>): Map<string, string> {
  const out = new Map<string, string>();
  for (const file of readdirSync(OPENAPI_DIR).sort()) {
    if (!file.endsWith("_openapi.json")) continue;
    const doc = JSON.parse(readFileSync(new URL(file, OPENAPI_DIR), "utf8")) as {
      components?: { schemas?: Record<string, Record<string, unknown>> };
    };
    for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
      const message = name.replace(/^io\.k8s\./, "k8s.io.");
      if (messages[message] === undefined) continue;
      type Gvk = { group: string; version: string; kind: string };
      for (const g of (schema["x-kubernetes-group-version-kind"] as Gvk[] | undefined) ?? []) {
        out.set(`${g.group}/${g.version}/${g.kind}`, message);
      }
    }
  }
  return out;
}

/**
 * A field's entry: `[number, json name ("" when inline), type, flags]`; flags `r` (repeated), `m`
 * (map), `p` (pointer), `w` (a zero Go's JSON writes).
 */
export type FieldEntry = [number, string, string, string];

export interface ProtobufTable {
  messages: Map<string, FieldEntry[]>;
  /** Messages whose Go type is a named slice (`type ExtraValue []string`): JSON arrays. */
  lists: string[];
  kinds: Map<string, string>;
}

export function generateProtobufTable(k8sSource: string): ProtobufTable {
  const { messages } = JSON.parse(readFileSync(PROTO_FIELDS, "utf8")) as {
    messages: Record<string, ProtoField[]>;
  };
  const allKinds = kindsFromOpenApi(messages);
  const roots = new Set(META_ROOTS);
  const kinds = new Map<string, string>();
  const addKind = (group: string, version: string, kind: string) => {
    const message = allKinds.get(`${group}/${version}/${kind}`);
    if (message === undefined) return;
    kinds.set(`${group}/${version}/${kind}`, message);
    roots.add(message);
  };
  for (const r of BUILTIN_RESOURCES) {
    addKind(r.group, r.version, r.kind);
    addKind(r.group, r.version, `${r.kind}List`);
    for (const sub of r.subresources) {
      addKind(sub.group || r.group, sub.version || r.version, sub.kind);
    }
  }
  for (const [gvk, message] of allKinds) if (META_ROOTS.includes(message)) kinds.set(gvk, message);
  for (const [gvk, message] of Object.entries(META_KINDS)) {
    kinds.set(gvk, message);
    roots.add(message);
  }

  const packages = new Map<string, GoPackage>();
  const goPackage = (pkg: string) => {
    let p = packages.get(pkg);
    if (p === undefined) {
      p = readGoPackage(`${k8sSource}/${goDir(pkg)}`);
      packages.set(pkg, p);
    }
    return p;
  };
  const out = new Map<string, FieldEntry[]>();
  const lists: string[] = [];
  const pending = [...roots];
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (out.has(name)) continue;
    const fields = messages[name];
    if (fields === undefined) throw new Error(`proto-fields lacks ${name}`);
    const dot = name.lastIndexOf(".");
    const pkg = goPackage(name.slice(0, dot));
    const short = name.slice(dot + 1);
    if (pkg.namedSlices.has(short)) lists.push(name);
    const go = SPECIAL_MESSAGES.has(name) ? undefined : pkg.fields.get(short);
    const entries: FieldEntry[] = [];
    for (const f of [...fields].sort((a, b) => a.id - b.id)) {
      const g = go?.get(f.id);
      if (go !== undefined && g === undefined && !pkg.namedSlices.has(short)) {
        throw new Error(`${name}.${f.name} (${f.id}) has no Go field with that protobuf number`);
      }
      // `w` where Go's JSON writes a zero the wire cannot tell from absent: a single scalar, a
      // time, duration, quantity or int-or-string, or a list or map (null: Go decodes an absent
      // one to nil). A struct is always written; bytes are null or "" as Go held them.
      const zeroWritten =
        g?.written === true &&
        (f.repeated || f.keyType
          ? !pkg.namedSlices.has(short)
          : f.type !== "bytes" && (!f.type.includes(".") || ZERO_WRITTEN_SPECIALS.has(f.type)));
      const flags = `${f.repeated ? "r" : ""}${f.keyType ? "m" : ""}${g?.pointer ? "p" : ""}${zeroWritten ? "w" : ""}`;
      entries.push([f.id, g === undefined ? f.name : g.json, f.type, flags]);
      if (f.type.includes(".")) pending.push(f.type);
    }
    out.set(name, entries);
  }
  return {
    messages: new Map([...out].sort(([a], [b]) => (a < b ? -1 : 1))),
    lists: lists.sort(),
    kinds: new Map([...kinds].sort(([a], [b]) => (a < b ? -1 : 1))),
  };
}

/** The module's text: one message and one kind per line. */
export function renderProtobufTable(table: ProtobufTable): string {
  const messages = [...table.messages].map(
    ([n, fs]) => `  ${JSON.stringify(n)}: ${JSON.stringify(fs)},`,
  );
  const kinds = [...table.kinds].map(([k, m]) => `  ${JSON.stringify(k)}: ${JSON.stringify(m)},`);
  return `/*
 * Generated by test/resources/protobuf-table-gen.ts from the protobuf field table of Kubernetes
 * 1.36 (../shared/k8s-api/proto-fields-v1.36.json) and the Go types of k8s.io/api and
 * k8s.io/apimachinery v0.36.2; test/resources/protobuf-table.test.ts checks it. Do not edit:
 * KONTROLLER_UPDATE_PROTOBUF_TABLE=1 rewrites it.
 */

/** Every message the built-in kinds reach: its fields by number, \`[number, json, type, flags]\`. */
export const PROTO_MESSAGES: Readonly<
  Record<string, readonly (readonly [number, string, string, string])[]>
> = {
${messages.join("\n")}
};

/** Messages whose Go type is a named slice: their one repeated field is the JSON array. */
export const PROTO_LIST_MESSAGES: readonly string[] = ${JSON.stringify(table.lists)};

/** The message of every kind, by \`group/version/kind\`. */
export const PROTO_KINDS: Readonly<Record<string, string>> = {
${kinds.join("\n")}
};
`;
}
