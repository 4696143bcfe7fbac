import { isNamespaced } from "../../resources/index.ts";
import type { DiscoveredResource } from "./discovered.ts";
import { type DiscoverySource, groupsOf } from "./discovery.ts";
import type { DiscoveryVersion } from "./negotiate.ts";

/** `{group, version, kind}` of what a resource or subresource's requests answer with. */
interface ResponseKind {
  group: string;
  version: string;
  kind: string;
}

/** The Content-Type of an aggregated discovery answer; clients decide from it alone. */
export function discoveryContentType(version: DiscoveryVersion, protobuf = false): string {
  const type = protobuf ? "application/vnd.kubernetes.protobuf" : "application/json";
  return `${type};g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
}

/**
 * A resource's or subresource's response kind. kube names the group and version of a built-in
 * kind's only where they are not the resource's (a Scale is autoscaling/v1, a TokenRequest
 * authentication.k8s.io/v1), and leaves them empty otherwise; a custom resource's it names in
 * full.
 */
function responseKind(s: DiscoveredResource, kind: string, group = "", version = ""): ResponseKind {
  if (group !== "") return { group, version, kind };
  return s.custom === undefined
    ? { group: "", version: "", kind }
    : { group: s.def.group, version: s.def.version, kind };
}

function resourceDiscovery(s: DiscoveredResource): unknown {
  const d = s.def;
  return {
    resource: d.plural,
    responseKind: responseKind(s, d.kind),
    scope: isNamespaced(d) ? "Namespaced" : "Cluster",
    singularResource: d.singular,
    verbs: [...s.verbs],
    ...(d.shortNames.length > 0 ? { shortNames: [...d.shortNames] } : {}),
    ...(d.categories.length > 0 ? { categories: [...d.categories] } : {}),
    // kube leaves the list out when there is none.
    ...(s.subresources.length > 0
      ? {
          subresources: s.subresources.map((sub) => ({
            subresource: sub.name,
            responseKind: responseKind(s, sub.kind, sub.group, sub.version),
            verbs: [...sub.verbs],
          })),
        }
      : {}),
  };
}

/**
 * `GET /api` (`core`: the core group alone, named `""`) or `GET /apis` (every other group) as
 * an `APIGroupDiscoveryList` of `apidiscovery.k8s.io/{version}`. Built from the same grouping
 * as the legacy documents ({@link groupsOf}), so the two always agree: groups in the same
 * order, versions in preference order (the preferred one first), resources by name. Every
 * version is `Current` — this server serves everything itself, nothing is aggregated from
 * elsewhere and so nothing goes stale.
 */
export function aggregatedDiscovery(
  registry: DiscoverySource,
  core: boolean,
  version: DiscoveryVersion,
): unknown {
  const items = [...groupsOf(registry)]
    .filter(([g]) => (g === "") === core)
    .map(([name, versions]) => ({
      // The core group has no name, and ObjectMeta leaves an empty one out.
      metadata: name === "" ? {} : { name },
      versions: [...versions].map(([v, served]) => ({
        version: v,
        resources: [...served]
          .sort((a, b) => (a.def.plural < b.def.plural ? -1 : 1))
          .map(resourceDiscovery),
        freshness: "Current",
      })),
    }));
  return {
    kind: "APIGroupDiscoveryList",
    apiVersion: `apidiscovery.k8s.io/${version}`,
    metadata: {},
    items,
  };
}
