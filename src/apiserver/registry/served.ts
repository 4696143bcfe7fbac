import type { ResourceDefinition } from "../../resources/index.ts";
import type { Store } from "./store.ts";

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
  /** For custom resources: the CRD's printer columns and scale paths. */
  readonly custom?: CustomResourceInfo;
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
  readonly scale?: {
    specReplicasPath: string;
    statusReplicasPath: string;
    labelSelectorPath?: string;
  };
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

/** The kind a subresource's requests carry, when it is not the resource's own. */
export function subresourceKind(subresource: string): string | undefined {
  if (subresource === "binding") return "Binding";
  return undefined;
}
