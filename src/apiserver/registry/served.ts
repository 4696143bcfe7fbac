import type { KubeObject } from "../../core/index.ts";
import type { ResourceDefinition } from "../../resources/index.ts";
import type { Store } from "./store.ts";

export { subresourceKind } from "./subresource-kind.ts";

/*
 * What the registry serves, as the layers above (CRDs, HTTP) see it: a resource version with
 * its store, subresources, verbs and, for custom resources, what its CRD says.
 */

/** A resource as the HTTP layer serves it. */
export interface ServedResource {
  readonly def: ResourceDefinition;
  readonly store: Store;
  /** Subresources besides the resource itself: `status`, `scale`, `finalize`. */
  readonly subresources: readonly string[];
  /** The verbs discovery lists. */
  readonly verbs: readonly string[];
  /** Patch types accepted (custom resources refuse strategic merge patch). */
  readonly strategicMerge: boolean;
  /** Where the `scale` subresource reads and writes, if the resource has one. */
  readonly scale?: ScaleSubresource;
  /** For custom resources: what their CRD says. */
  readonly custom?: CustomResourceInfo;
}

/**
 * Where a resource keeps what its `/scale` subresource shows (kube's ScaleREST of a Deployment,
 * or a CRD's `subresources.scale`): the desired and observed replica counts, and the selector
 * of the pods it scales, as a string. See `scale.ts`.
 */
export interface ScaleSubresource {
  /** The desired count (`spec.replicas`), which a write to `/scale` sets. */
  readonly specReplicasPath: readonly string[];
  readonly statusReplicasPath: readonly string[];
  /** `status.selector` of the Scale, if the object has one. */
  selector(object: KubeObject): string | undefined;
}

/** A CRD version's `additionalPrinterColumns` entry. */
export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

/** What the HTTP layer needs to know about a custom resource beyond its store. */
export interface CustomResourceInfo {
  readonly printerColumns: readonly PrinterColumn[];
  /** The version's schema (for OpenAPI). */
  readonly schema?: unknown;
  /** The CRD's storage version (discovery's storageVersionHash is computed from it). */
  readonly storageVersion: string;
  /**
   * The CRD is being deleted: creates are refused (405) and discovery lists only the verbs
   * that read or delete, while its custom resources are removed.
   */
  readonly terminating?: boolean;
  /** Set for a deprecated version: the text of the warning every request to it gets. */
  readonly deprecationWarning?: string;
}

/** Verbs of a resource with every operation. */
export const ALL_VERBS = [
  "create",
  "delete",
  "deletecollection",
  "get",
  "list",
  "patch",
  "update",
  "watch",
];

/**
 * The verbs of a subresource, as discovery lists them and the HTTP layer allows them:
 * `finalize` is only replaced, `binding` only created (POST), the others (`status`, `scale`)
 * read, patched and replaced.
 */
export function subresourceVerbs(subresource: string): readonly string[] {
  if (subresource === "finalize") return ["update"];
  if (subresource === "binding") return ["create"];
  return ["get", "patch", "update"];
}

/**
 * A resource's subresources in the order discovery lists them: a built-in kind's sorted by name,
 * as kube-apiserver lists them; a custom resource's as its CRD has them (`status`, `scale`).
 */
export function discoverySubresources(served: ServedResource): readonly string[] {
  return served.custom === undefined ? [...served.subresources].sort() : served.subresources;
}
