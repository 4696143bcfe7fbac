import { createHash } from "node:crypto";
import { isNamespaced } from "../../resources/index.ts";
import type { Registry, ServedResource } from "../registry/registry.ts";
import { groupsOf, KUBE_VERSION } from "./discovery.ts";

function gvPath(group: string, version: string): string {
  return group === "" ? `api/${version}` : `apis/${group}/${version}`;
}

function schemaName(s: ServedResource): string {
  const g = s.def.group === "" ? "io.k8s.api.core" : s.def.group.split(".").reverse().join(".");
  return `${g}.${s.def.version}.${s.def.kind}`;
}

const PATCH_TYPES = [
  "application/json-patch+json",
  "application/merge-patch+json",
  "application/apply-patch+yaml",
];

/**
 * The OpenAPI v3 document of one group-version: a schema per kind (a CRD's structural schema,
 * or an open object for built-ins) and the paths with their operations. Every PATCH operation
 * carries `x-kubernetes-group-version-kind` and the `fieldValidation` parameter, which is what
 * `kubectl apply`/`create` look for before using server-side field validation. Built-in PATCH
 * operations do not list strategic merge patch, so kubectl computes those patches from its own
 * compiled-in types.
 */
export function groupVersionDocument(registry: Registry, group: string, version: string): unknown {
  const served = groupsOf(registry).get(group)?.get(version);
  if (served === undefined) return undefined;
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  const base = `/${gvPath(group, version)}`;
  for (const s of served) {
    const gvk = { group, version, kind: s.def.kind };
    const ref = { $ref: `#/components/schemas/${schemaName(s)}` };
    const crdSchema = s.custom?.schema as Record<string, unknown> | undefined;
    schemas[schemaName(s)] = {
      ...(crdSchema ?? { type: "object", "x-kubernetes-preserve-unknown-fields": true }),
      "x-kubernetes-group-version-kind": [gvk],
    };
    const params = [
      { name: "dryRun", in: "query", schema: { type: "string", uniqueItems: true } },
      { name: "fieldManager", in: "query", schema: { type: "string", uniqueItems: true } },
      { name: "fieldValidation", in: "query", schema: { type: "string", uniqueItems: true } },
    ];
    const op = (action: string, extra: object = {}) => ({
      operationId: `${action}${s.def.kind}`,
      "x-kubernetes-action": action,
      "x-kubernetes-group-version-kind": gvk,
      responses: { "200": { description: "OK", content: { "application/json": { schema: ref } } } },
      ...extra,
    });
    const collection = isNamespaced(s.def)
      ? `${base}/namespaces/{namespace}/${s.def.plural}`
      : `${base}/${s.def.plural}`;
    paths[collection] = {
      get: op("list"),
      post: op("post", {
        parameters: params,
        requestBody: { content: { "application/json": { schema: ref } } },
      }),
    };
    paths[`${collection}/{name}`] = {
      get: op("get"),
      put: op("put", {
        parameters: params,
        requestBody: { content: { "application/json": { schema: ref } } },
      }),
      patch: op("patch", {
        parameters: [
          ...params,
          { name: "force", in: "query", schema: { type: "boolean", uniqueItems: true } },
        ],
        requestBody: {
          content: Object.fromEntries(PATCH_TYPES.map((t) => [t, { schema: { type: "object" } }])),
        },
      }),
      delete: op("delete"),
    };
  }
  return {
    openapi: "3.0.0",
    info: { title: "Kubernetes", version: KUBE_VERSION.gitVersion },
    paths,
    components: { schemas },
  };
}

/** `GET /openapi/v3`: one entry per group-version, each with a content hash. */
export function openApiIndex(registry: Registry): unknown {
  const paths: Record<string, unknown> = {};
  for (const [group, versions] of groupsOf(registry)) {
    for (const version of versions.keys()) {
      const doc = JSON.stringify(groupVersionDocument(registry, group, version));
      const hash = createHash("sha256").update(doc).digest("hex").toUpperCase();
      paths[gvPath(group, version)] = {
        serverRelativeURL: `/openapi/v3/${gvPath(group, version)}?hash=${hash}`,
      };
    }
  }
  return { paths };
}
