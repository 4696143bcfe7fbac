import { isNamespaced } from "../../resources/index.ts";
import type { ServedResource } from "../registry/registry.ts";
import { type BuiltinSchemas, COMPONENT_REF, type JsonSchema } from "./builtin-schemas.ts";
import { KUBE_VERSION } from "./discovery.ts";

/** `api/v1`, `apis/apps/v1`: a group-version's path under /openapi/v3 (and the API root). */
export function gvPath(group: string, version: string): string {
  return group === "" ? `api/${version}` : `apis/${group}/${version}`;
}

/**
 * A resource the documents describe: a stored one (built-in or custom), or one answered without
 * storage (the reviews, bindings, componentstatuses), which has no `custom`.
 */
export type PublishedResource = Pick<ServedResource, "def" | "verbs" | "custom">;

/** A group-version's document, as {@link groupVersionDocument} builds it. */
export interface OpenApiV3Document {
  readonly openapi: string;
  readonly info: { readonly title: string; readonly version: string };
  readonly paths: Readonly<Record<string, unknown>>;
  readonly components: { readonly schemas: Readonly<Record<string, JsonSchema>> };
}

/** A custom resource's component name, as kube names it: `com.example.v1.Widget`. */
function customSchemaName(s: PublishedResource, kind: string): string {
  return `${s.def.group.split(".").reverse().join(".")}.${s.def.version}.${kind}`;
}

const PATCH_TYPES = [
  "application/json-patch+json",
  "application/merge-patch+json",
  "application/apply-patch+yaml",
];

/** The component every built-in kind's `apiVersion`, `kind` and `metadata` fields are read from. */
const TYPE_META_SOURCE = "io.k8s.api.core.v1.ConfigMap";
const OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
const LIST_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta";
const STATUS = "io.k8s.apimachinery.pkg.apis.meta.v1.Status";
const DELETE_OPTIONS = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions";

const ref = (name: string) => ({ $ref: COMPONENT_REF + name });

/**
 * The OpenAPI v3 document of one group-version, shaped as kube-apiserver's: a component schema
 * per kind and per list kind, each marked with `x-kubernetes-group-version-kind` (how `kubectl
 * explain` finds it), plus every component they refer to (ObjectMeta, PodSpec, Quantity…), and
 * the paths with their operations.
 *
 * Built-in kinds get the generated schemas of {@link BuiltinSchemas}. A custom resource gets its
 * CRD's structural schema, with `apiVersion`, `kind` and `metadata` (a reference to ObjectMeta)
 * set as kube-apiserver sets them.
 *
 * Every PATCH operation carries `x-kubernetes-group-version-kind` and the `fieldValidation`
 * parameter, which `kubectl apply`/`create` look for before using server-side field validation.
 * PATCH operations do not list strategic merge patch, so kubectl computes those patches from its
 * own compiled-in types.
 */
export function groupVersionDocument(
  served: readonly PublishedResource[],
  group: string,
  version: string,
  builtins: BuiltinSchemas,
): OpenApiV3Document {
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, JsonSchema> = {};
  const needed = new Set([STATUS, DELETE_OPTIONS]);
  const base = `/${gvPath(group, version)}`;
  for (const s of served) {
    let kindName = s.custom ? undefined : builtins.nameOf(group, version, s.def.kind);
    let listName = s.custom ? undefined : builtins.nameOf(group, version, `${s.def.kind}List`);
    if (kindName !== undefined) {
      needed.add(kindName);
      if (listName !== undefined) needed.add(listName);
    } else {
      kindName = customSchemaName(s, s.def.kind);
      listName = customSchemaName(s, `${s.def.kind}List`);
      schemas[kindName] = customResourceSchema(s, builtins);
      schemas[listName] = customListSchema(s, kindName, builtins);
      needed.add(OBJECT_META);
      needed.add(LIST_META);
    }
    Object.assign(paths, resourcePaths(s, base, kindName, listName ?? kindName));
  }
  for (const [name, schema] of Object.entries(builtins.closure(needed))) {
    schemas[name] ??= schema;
  }
  return {
    openapi: "3.0.0",
    info: { title: "Kubernetes", version: KUBE_VERSION.gitVersion },
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => (a < b ? -1 : 1))),
    },
  };
}

/**
 * The operations of a resource, one per verb it answers, at kube's paths: `list`,
 * `deletecollection` and `create` on the collection, `get`, `update`, `patch` and `delete` on an
 * object (a review is `create` only; componentstatuses `get` and `list`).
 */
function resourcePaths(
  s: PublishedResource,
  base: string,
  kindName: string,
  listName: string,
): Record<string, unknown> {
  const gvk = { group: s.def.group, version: s.def.version, kind: s.def.kind };
  const params = [
    { name: "dryRun", in: "query", schema: { type: "string", uniqueItems: true } },
    { name: "fieldManager", in: "query", schema: { type: "string", uniqueItems: true } },
    { name: "fieldValidation", in: "query", schema: { type: "string", uniqueItems: true } },
  ];
  const body = (name: string) => ({ content: { "application/json": { schema: ref(name) } } });
  const op = (action: string, returns: string, extra: object = {}) => ({
    operationId: `${action}${s.def.kind}`,
    "x-kubernetes-action": action,
    "x-kubernetes-group-version-kind": gvk,
    responses: { "200": { description: "OK", ...body(returns) } },
    ...extra,
  });
  const verbs = new Set(s.verbs);
  const collection = isNamespaced(s.def)
    ? `${base}/namespaces/{namespace}/${s.def.plural}`
    : `${base}/${s.def.plural}`;
  const onCollection: Record<string, unknown> = {};
  if (verbs.has("list")) onCollection.get = op("list", listName);
  if (verbs.has("create")) {
    onCollection.post = op("post", kindName, { parameters: params, requestBody: body(kindName) });
  }
  if (verbs.has("deletecollection")) {
    onCollection.delete = op("deletecollection", STATUS, { requestBody: body(DELETE_OPTIONS) });
  }
  const onObject: Record<string, unknown> = {};
  if (verbs.has("get")) onObject.get = op("get", kindName);
  if (verbs.has("update")) {
    onObject.put = op("put", kindName, { parameters: params, requestBody: body(kindName) });
  }
  if (verbs.has("patch")) {
    onObject.patch = op("patch", kindName, {
      parameters: [
        ...params,
        { name: "force", in: "query", schema: { type: "boolean", uniqueItems: true } },
      ],
      requestBody: {
        content: Object.fromEntries(PATCH_TYPES.map((t) => [t, { schema: { type: "object" } }])),
      },
    });
  }
  if (verbs.has("delete"))
    onObject.delete = op("delete", STATUS, { requestBody: body(DELETE_OPTIONS) });
  return {
    ...(Object.keys(onCollection).length > 0 ? { [collection]: onCollection } : {}),
    ...(Object.keys(onObject).length > 0 ? { [`${collection}/{name}`]: onObject } : {}),
  };
}

/** `apiVersion`, `kind` and `metadata` of an object, as every built-in kind has them. */
function typeMeta(builtins: BuiltinSchemas): Record<string, unknown> {
  const props = (builtins.get(TYPE_META_SOURCE)?.properties ?? {}) as Record<string, unknown>;
  const { apiVersion, kind, metadata } = props;
  return { apiVersion, kind, metadata };
}

/**
 * A custom resource's schema: its CRD's (an open object when the version has none), with the
 * object's `apiVersion`, `kind` and `metadata` fields replaced by the standard ones, as
 * kube-apiserver publishes them.
 */
function customResourceSchema(s: PublishedResource, builtins: BuiltinSchemas): JsonSchema {
  const crd = (s.custom?.schema as Record<string, unknown> | undefined) ?? {
    type: "object",
    "x-kubernetes-preserve-unknown-fields": true,
  };
  const properties = (crd.properties ?? {}) as Record<string, unknown>;
  return {
    ...crd,
    properties: { ...properties, ...typeMeta(builtins) },
    "x-kubernetes-group-version-kind": [
      { group: s.def.group, version: s.def.version, kind: s.def.kind },
    ],
  };
}

/** The list kind of a custom resource: `items` of the kind, and ListMeta. */
function customListSchema(
  s: PublishedResource,
  kindName: string,
  builtins: BuiltinSchemas,
): JsonSchema {
  const { apiVersion, kind } = typeMeta(builtins);
  return {
    description: `${s.def.kind}List is a list of ${s.def.kind}`,
    properties: {
      apiVersion,
      items: {
        description: `List of ${s.def.plural}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md`,
        items: ref(kindName),
        type: "array",
      },
      kind,
      metadata: {
        allOf: [ref(LIST_META)],
        description:
          "Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds",
      },
    },
    required: ["items"],
    type: "object",
    "x-kubernetes-group-version-kind": [
      { group: s.def.group, version: s.def.version, kind: `${s.def.kind}List` },
    ],
  };
}
