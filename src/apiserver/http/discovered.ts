import type { ResourceDefinition } from "../../resources/index.ts";
import {
  type CustomResourceInfo,
  discoverySubresources,
  type Registry,
  subresourceKind,
  subresourceVerbs,
} from "../registry/registry.ts";
import { handledSubresources, UNSTORED_RESOURCES } from "./unstored.ts";

/** A subresource as discovery lists it. */
export interface DiscoveredSubresource {
  readonly name: string;
  /** The group and version of its kind where they are not the resource's; "" otherwise. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly verbs: readonly string[];
}

/** A resource as discovery lists it: stored (a served resource) or answered without storage. */
export interface DiscoveredResource {
  readonly def: ResourceDefinition;
  readonly verbs: readonly string[];
  /** False for a resource that is not stored: discovery gives it no storageVersionHash. */
  readonly stored: boolean;
  /** For custom resources: what their CRD says. */
  readonly custom?: CustomResourceInfo;
  /** In the order discovery lists them (a built-in kind's by name, a CRD's as it has them). */
  readonly subresources: readonly DiscoveredSubresource[];
}

/**
 * Every resource discovery lists: the registry's, with the subresources the HTTP layer handles
 * besides theirs (`pods/log`, `serviceaccounts/token`…), and the resources answered without
 * storage (the reviews, `bindings`, `componentstatuses`).
 */
export function discoveredResources(registry: Pick<Registry, "all">): DiscoveredResource[] {
  const out: DiscoveredResource[] = [];
  for (const s of registry.all()) {
    const own = discoverySubresources(s).map(
      (name): DiscoveredSubresource =>
        name === "scale"
          ? {
              name,
              group: "autoscaling",
              version: "v1",
              kind: "Scale",
              verbs: subresourceVerbs(name),
            }
          : {
              name,
              group: "",
              version: "",
              kind: subresourceKind(name) ?? s.def.kind,
              verbs: subresourceVerbs(name),
            },
    );
    const extra = s.custom === undefined ? handledSubresources(s.def) : [];
    const subresources = [...own, ...extra];
    if (s.custom === undefined) subresources.sort((a, b) => (a.name < b.name ? -1 : 1));
    out.push({
      def: s.def,
      verbs: s.verbs,
      stored: true,
      ...(s.custom ? { custom: s.custom } : {}),
      subresources,
    });
  }
  for (const u of UNSTORED_RESOURCES) {
    out.push({ def: u.def, verbs: u.verbs, stored: false, subresources: [] });
  }
  return out;
}
