import type { KubeObject } from "../core/index.ts";

/** Whether objects of a kind live in a namespace or in the cluster as a whole. */
export type ResourceScope = "Namespaced" | "Cluster";

/**
 * What a client and a server need to know about one kind at one version: where it is served
 * (group, version, plural) and how it is named. The type parameter is the object's TypeScript
 * type; it carries no runtime value and only lets typed clients infer it.
 */
export interface ResourceDefinition<T extends KubeObject = KubeObject> {
  /** API group; `""` for the core group. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** The resource name in URLs: lowercase plural (`configmaps`). */
  readonly plural: string;
  /** Lowercase singular (`configmap`). */
  readonly singular: string;
  readonly scope: ResourceScope;
  /** The list's kind: `<Kind>List` unless told otherwise. */
  readonly listKind: string;
  /** Short names kubectl accepts (`cm`). */
  readonly shortNames: readonly string[];
  /** Categories kubectl accepts (`all`). */
  readonly categories: readonly string[];
  /** Type-only marker for `T`; always undefined at run time. */
  readonly __type?: T;
}

/** The parts of a {@link ResourceDefinition} that {@link resourceDefinition} can default. */
export interface ResourceDefinitionInit {
  group: string;
  version: string;
  kind: string;
  plural: string;
  /** @default the kind, lowercased */
  singular?: string;
  /** @default "Namespaced" */
  scope?: ResourceScope;
  /** @default `${kind}List` */
  listKind?: string;
  /** @default [] */
  shortNames?: readonly string[];
  /** @default [] */
  categories?: readonly string[];
}

/** Builds a frozen {@link ResourceDefinition}, filling in the defaults. */
export function resourceDefinition<T extends KubeObject = KubeObject>(
  init: ResourceDefinitionInit,
): ResourceDefinition<T> {
  return Object.freeze({
    group: init.group,
    version: init.version,
    kind: init.kind,
    plural: init.plural,
    singular: init.singular ?? init.kind.toLowerCase(),
    scope: init.scope ?? "Namespaced",
    listKind: init.listKind ?? `${init.kind}List`,
    shortNames: Object.freeze([...(init.shortNames ?? [])]),
    categories: Object.freeze([...(init.categories ?? [])]),
  });
}

/** The `apiVersion` of a definition's objects: `v1`, `apps/v1`. */
export function apiVersionOf(def: Pick<ResourceDefinition, "group" | "version">): string {
  return def.group === "" ? def.version : `${def.group}/${def.version}`;
}

/** True if objects of this definition live in a namespace. */
export function isNamespaced(def: Pick<ResourceDefinition, "scope">): boolean {
  return def.scope === "Namespaced";
}
