import { createHash } from "node:crypto";
import { isNamespaced, type ResourceDefinition } from "../../resources/index.ts";
import type { DiscoveredResource } from "./discovered.ts";

/** What discovery documents are built from: every resource listed (see `discovered.ts`). */
export interface DiscoverySource {
  all(): readonly DiscoveredResource[];
}

/** The Kubernetes version whose API this server serves (its OpenAPI and field tables are 1.36's). */
export const KUBE_VERSION = { major: "1", minor: "36", gitVersion: "v1.36.0" };

/**
 * `GET /version`, with kube 1.36's keys: it emulates its own version, and is compatible with
 * one minor back.
 */
export function versionInfo(): Record<string, string> {
  return {
    major: KUBE_VERSION.major,
    minor: KUBE_VERSION.minor,
    emulationMajor: KUBE_VERSION.major,
    emulationMinor: KUBE_VERSION.minor,
    minCompatibilityMajor: KUBE_VERSION.major,
    minCompatibilityMinor: String(Number(KUBE_VERSION.minor) - 1),
    gitVersion: KUBE_VERSION.gitVersion,
    gitCommit: "kontroller",
    gitTreeState: "clean",
    buildDate: "2026-01-01T00:00:00Z",
    goVersion: "go1.26.0",
    compiler: "gc",
    platform: `${process.platform}/${process.arch === "x64" ? "amd64" : process.arch}`,
  };
}

/** base64 of the first 8 bytes of SHA-256 of `group/version/kind` (kube's storageVersionHash). */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash("sha256")
    .update(`${group}/${version}/${kind}`)
    .digest()
    .subarray(0, 8)
    .toString("base64");
}

/**
 * Where kube-apiserver 1.36 stores a built-in resource at another version than the one served:
 * `group/plural` to the stored `group/version`. Events of events.k8s.io live with core's; CRDs
 * and the mutating admission policies just promoted to v1 are still written at v1beta1.
 */
const STORED_AT: ReadonlyMap<string, readonly [group: string, version: string]> = new Map([
  ["events.k8s.io/events", ["", "v1"]],
  ["apiextensions.k8s.io/customresourcedefinitions", ["apiextensions.k8s.io", "v1beta1"]],
  [
    "admissionregistration.k8s.io/mutatingadmissionpolicies",
    ["admissionregistration.k8s.io", "v1beta1"],
  ],
  [
    "admissionregistration.k8s.io/mutatingadmissionpolicybindings",
    ["admissionregistration.k8s.io", "v1beta1"],
  ],
]);

/** A stored resource's storageVersionHash: a CRD's storage version, or where kube stores it. */
function hashOfStored(s: DiscoveredResource): string {
  const d = s.def;
  if (s.custom !== undefined) return storageVersionHash(d.group, s.custom.storageVersion, d.kind);
  const [group, version] = STORED_AT.get(`${d.group}/${d.plural}`) ?? [d.group, d.version];
  return storageVersionHash(group, version, d.kind);
}

/** Orders versions as kube does: GA > beta > alpha, higher numbers first, others last by name. */
export function compareKubeAwareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (m === null) return { rank: 3, major: 0, minor: 0, v };
    return {
      rank: m[2] === undefined ? 0 : m[2] === "beta" ? 1 : 2,
      major: Number(m[1]),
      minor: Number(m[3] ?? 0),
      v,
    };
  };
  const x = parse(a);
  const y = parse(b);
  if (x.rank !== y.rank) return x.rank - y.rank;
  if (x.rank === 3) return x.v < y.v ? -1 : x.v > y.v ? 1 : 0;
  if (x.major !== y.major) return y.major - x.major;
  return y.minor - x.minor;
}

/** Resources grouped by API group, versions in preference order. */
export function groupsOf<T extends { readonly def: ResourceDefinition }>(source: {
  all(): readonly T[];
}): Map<string, Map<string, T[]>> {
  const groups = new Map<string, Map<string, T[]>>();
  for (const s of source.all()) {
    let versions = groups.get(s.def.group);
    if (versions === undefined) {
      versions = new Map();
      groups.set(s.def.group, versions);
    }
    let list = versions.get(s.def.version);
    if (list === undefined) {
      list = [];
      versions.set(s.def.version, list);
    }
    list.push(s);
  }
  for (const [g, versions] of groups) {
    groups.set(g, new Map([...versions].sort(([a], [b]) => compareKubeAwareVersions(a, b))));
  }
  return groups;
}

/** `GET /api`. */
export function legacyVersions(host: string): unknown {
  return {
    kind: "APIVersions",
    versions: ["v1"],
    serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: host }],
  };
}

function apiGroup(name: string, versions: Iterable<string>): unknown {
  const list = [...versions].map((version) => ({ groupVersion: `${name}/${version}`, version }));
  return { name, versions: list, preferredVersion: list[0] };
}

/** `GET /apis`: every group but the core one. */
export function groupList(registry: DiscoverySource): unknown {
  const groups = [...groupsOf(registry)]
    .filter(([g]) => g !== "")
    .map(([g, versions]) => apiGroup(g, versions.keys()));
  return { kind: "APIGroupList", apiVersion: "v1", groups };
}

/** `GET /apis/{group}`, or undefined when the group is not served. */
export function groupInfo(registry: DiscoverySource, group: string): unknown {
  const versions = groupsOf(registry).get(group);
  if (versions === undefined || group === "") return undefined;
  return { kind: "APIGroup", apiVersion: "v1", ...(apiGroup(group, versions.keys()) as object) };
}

/** `GET /api/v1` or `/apis/{group}/{version}`, or undefined when not served. */
export function resourceList(registry: DiscoverySource, group: string, version: string): unknown {
  const served = groupsOf(registry).get(group)?.get(version);
  if (served === undefined) return undefined;
  const resources: unknown[] = [];
  for (const s of [...served].sort((a, b) => (a.def.plural < b.def.plural ? -1 : 1))) {
    const d = s.def;
    resources.push({
      name: d.plural,
      singularName: d.singular,
      namespaced: isNamespaced(d),
      kind: d.kind,
      verbs: [...s.verbs],
      ...(d.shortNames.length > 0 ? { shortNames: [...d.shortNames] } : {}),
      ...(d.categories.length > 0 ? { categories: [...d.categories] } : {}),
      // From the version objects are stored at, as kube hashes it; none for a resource that is
      // not stored.
      ...(s.stored ? { storageVersionHash: hashOfStored(s) } : {}),
    });
    for (const sub of s.subresources) {
      resources.push({
        name: `${d.plural}/${sub.name}`,
        singularName: "",
        namespaced: isNamespaced(d),
        ...(sub.group === "" ? {} : { group: sub.group, version: sub.version }),
        kind: sub.kind,
        verbs: [...sub.verbs],
      });
    }
  }
  // kube-apiserver's core list (/api/v1) is written without an apiVersion; a group's with one.
  return {
    kind: "APIResourceList",
    ...(group === "" ? {} : { apiVersion: "v1" }),
    groupVersion: group === "" ? version : `${group}/${version}`,
    resources,
  };
}
