import type { OpenApiSchema } from "../../resources/index.ts";
import { objectMetaType } from "./builtin-schema.ts";
import { DEDUCED, type ListType, mapType, SCALAR, type TypeNode, UNTYPED } from "./schema.ts";

/**
 * The server-side apply schema of a custom resource, from its version's structural schema, as
 * kube's CRD type converter builds it: `properties` are named fields, `additionalProperties` the
 * entries of a map, `x-kubernetes-preserve-unknown-fields` lets other fields in (deduced);
 * lists are atomic unless `x-kubernetes-list-type` is `set` or `map` (keyed by
 * `x-kubernetes-list-map-keys`, a key's `default` standing in when an item leaves it out);
 * objects are granular unless `x-kubernetes-map-type: atomic`; int-or-string values are leaves.
 * At the root, `apiVersion` and `kind` are scalars and `metadata` is ObjectMeta.
 */
export function crdType(schema: OpenApiSchema | undefined): TypeNode {
  const root =
    schema === undefined
      ? { type: "object" as const, "x-kubernetes-preserve-unknown-fields": true }
      : schema;
  const inner = node(root);
  const rootFields = new Map<string, TypeNode>([
    ["apiVersion", SCALAR],
    ["kind", SCALAR],
    ["metadata", objectMetaType()],
  ]);
  if (inner.kind !== "map") return mapType(rootFields);
  return mapType((name) => rootFields.get(name) ?? inner.field(name), {
    ...(inner.elements ? { elements: inner.elements } : {}),
  });
}

function node(s: OpenApiSchema): TypeNode {
  if (s["x-kubernetes-int-or-string"]) return UNTYPED;
  const preserve = s["x-kubernetes-preserve-unknown-fields"] === true;
  const type = s.type ?? (s.properties || s.additionalProperties ? "object" : undefined);
  if (type === "object") {
    const props = new Map<string, TypeNode>();
    for (const [name, child] of Object.entries(s.properties ?? {})) props.set(name, node(child));
    if (s["x-kubernetes-embedded-resource"]) {
      if (!props.has("apiVersion")) props.set("apiVersion", SCALAR);
      if (!props.has("kind")) props.set("kind", SCALAR);
      props.set("metadata", objectMetaType());
    }
    const additional = s.additionalProperties;
    const elements =
      typeof additional === "object"
        ? node(additional)
        : preserve || additional === true
          ? DEDUCED
          : undefined;
    return mapType(props, {
      atomic: s["x-kubernetes-map-type"] === "atomic",
      ...(elements ? { elements } : {}),
    });
  }
  if (type === "array") return listNode(s);
  if (type === undefined) return preserve ? DEDUCED : UNTYPED;
  return SCALAR;
}

function listNode(s: OpenApiSchema): ListType {
  const element = s.items === undefined ? UNTYPED : node(s.items);
  const listType = s["x-kubernetes-list-type"] ?? "atomic";
  if (listType === "set") return { kind: "list", element, listType: "set", keys: [] };
  if (listType !== "map") return { kind: "list", element, listType: "atomic", keys: [] };
  const keys = s["x-kubernetes-list-map-keys"] ?? [];
  const defaults: Record<string, unknown> = {};
  for (const k of keys) {
    const d = s.items?.properties?.[k]?.default;
    if (d !== undefined) defaults[k] = d;
  }
  return {
    kind: "list",
    element,
    listType: "map",
    keys,
    ...(Object.keys(defaults).length > 0 ? { keyDefaults: defaults } : {}),
  };
}
