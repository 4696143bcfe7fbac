/**
 * What the control plane knows of the served resources, from discovery: which ones the garbage
 * collector watches, and how an owner reference's `apiVersion` and `kind` map to a resource
 * (kube's REST mapper). Pure; the resources controller feeds it.
 */
import type { DiscoveredResource, Discovery } from "../client/index.ts";
import { parseApiVersion } from "../core/index.ts";

/** A group and a resource (plural): `{ group: "", resource: "events" }`. */
export interface GroupResourceName {
  readonly group: string;
  readonly resource: string;
}

/**
 * Resources the garbage collector does not watch, as kube-controller-manager's defaults:
 * events (both groups), which are many, short-lived and never owners.
 */
export const DEFAULT_IGNORED_RESOURCES: readonly GroupResourceName[] = Object.freeze([
  { group: "", resource: "events" },
  { group: "events.k8s.io", resource: "events" },
]);

const has = (r: DiscoveredResource, ...verbs: string[]) => verbs.every((v) => r.verbs.includes(v));

/** The group version (`v1`, `apps/v1`) of a resource. */
export function groupVersionOf(r: Pick<DiscoveredResource, "group" | "version">): string {
  return r.group === "" ? r.version : `${r.group}/${r.version}`;
}

/**
 * Preferred resources that can be listed, watched and deleted, less the ignored ones: what the
 * garbage collector watches (kube's `GetDeletableResources`).
 */
export function deletableResources(
  discovery: Discovery,
  ignored: readonly GroupResourceName[] = DEFAULT_IGNORED_RESOURCES,
): DiscoveredResource[] {
  return discovery.preferred.filter(
    (r) =>
      has(r, "list", "watch", "delete") &&
      !ignored.some((i) => i.group === r.group && i.resource === r.plural),
  );
}

/**
 * Preferred namespaced resources that can be listed and deleted: what the namespace controller
 * empties a namespace of.
 */
export function namespacedDeletableResources(discovery: Discovery): DiscoveredResource[] {
  return discovery.preferred.filter((r) => r.scope === "Namespaced" && has(r, "list", "delete"));
}

interface KindEntry {
  readonly versions: Map<string, DiscoveredResource>;
  preferred: DiscoveredResource | undefined;
}

/**
 * Maps `apiVersion` + `kind` to a served resource. The exact version wins; failing that, the
 * preferred version of the same group and kind (every version serves the same objects, so an
 * owner named at an old version is still found). Invariants: after {@link update}, a group
 * version that failed discovery keeps what the last successful discovery said of it; a kind is
 * in `#gone` only while it is not served.
 */
export class ResourceMapper {
  #kinds = new Map<string, KindEntry>();
  /** `group/kind` of kinds a discovery listed and a later one, which did not fail, no longer did. */
  readonly #gone = new Set<string>();
  #updated = false;

  /** True once {@link update} ran. */
  get ready(): boolean {
    return this.#updated;
  }

  /** Replaces what is known by `discovery`, keeping group versions that failed. */
  update(discovery: Discovery): void {
    const kinds = new Map<string, KindEntry>();
    const add = (r: DiscoveredResource, preferred: boolean) => {
      const key = `${r.group}/${r.kind}`;
      const entry = kinds.get(key) ?? { versions: new Map(), preferred: undefined };
      kinds.set(key, entry);
      if (!entry.versions.has(r.version)) entry.versions.set(r.version, r);
      if (preferred || entry.preferred === undefined) entry.preferred = r;
    };
    const preferred = new Set(discovery.preferred);
    for (const r of discovery.resources) add(r, preferred.has(r));
    for (const old of this.#kinds.values()) {
      for (const r of old.versions.values()) {
        if (discovery.failed.has(groupVersionOf(r))) add(r, old.preferred === r);
      }
    }
    for (const key of this.#kinds.keys()) if (!kinds.has(key)) this.#gone.add(key);
    for (const key of kinds.keys()) this.#gone.delete(key);
    this.#kinds = kinds;
    this.#updated = true;
  }

  /**
   * True if `kind` of `apiVersion`'s group was served and no longer is (its CRD was deleted):
   * no object of it can exist. False for kinds never seen, which may yet be served.
   */
  isGone(apiVersion: string, kind: string): boolean {
    try {
      return this.#gone.has(`${parseApiVersion(apiVersion).group}/${kind}`);
    } catch {
      return false;
    }
  }

  /** The resource serving `kind` at `apiVersion`, or undefined if none does. */
  lookup(apiVersion: string, kind: string): DiscoveredResource | undefined {
    let gv: { group: string; version: string };
    try {
      gv = parseApiVersion(apiVersion);
    } catch {
      return undefined;
    }
    const entry = this.#kinds.get(`${gv.group}/${kind}`);
    return entry?.versions.get(gv.version) ?? entry?.preferred;
  }
}
