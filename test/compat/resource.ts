/** What the compatibility suite knows of one resource: where it lives and a small valid object. */

/** One resource of the scenario table. */
export interface CompatResource {
  /** The API group, "" for the core group. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
  /**
   * The object's fields besides apiVersion, kind and metadata's name and namespace, for an object
   * named `name` in namespace `namespace` ("" for a cluster-scoped resource).
   */
  sample(name: string, namespace: string): Record<string, unknown>;
  /** The two names the scenario creates. @default ["compat-a", "compat-b"] */
  readonly names?: readonly [string, string];
  /**
   * The strategic merge patch the scenario sends, exercising the kind's merge keys where it has
   * lists. @default a label
   */
  readonly strategicPatch?: Record<string, unknown>;
  /** A custom resource: kube-apiserver answers a strategic merge patch with 415. @default false */
  readonly custom?: boolean;
  /** The resource has a `scale` subresource, which the scenario reads and writes. @default false */
  readonly scale?: boolean;
}

/** A table entry. */
export function resource(
  group: string,
  version: string,
  kind: string,
  plural: string,
  namespaced: boolean,
  sample: CompatResource["sample"],
  more: Partial<CompatResource> = {},
): CompatResource {
  return { group, version, kind, plural, namespaced, sample, ...more };
}

/** `group/version`, or `version` for the core group. */
export function apiVersionOf(r: CompatResource): string {
  return r.group === "" ? r.version : `${r.group}/${r.version}`;
}

/** The collection's path, in `namespace` for a namespaced resource. */
export function collectionPath(r: CompatResource, namespace: string): string {
  const root = r.group === "" ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  return r.namespaced ? `${root}/namespaces/${namespace}/${r.plural}` : `${root}/${r.plural}`;
}

/** A one-container pod spec. */
export function podSpec(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { containers: [{ name: "main", image: "busybox" }], ...extra };
}

/** A pod template labelled `app: compat`, with a selector for it (workloads). */
export function workload(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    spec: {
      selector: { matchLabels: { app: "compat" } },
      template: { metadata: { labels: { app: "compat" } }, spec: podSpec() },
      ...extra,
    },
  };
}

/** A strategic merge patch adding an environment variable to the `main` container of a template. */
export const templateEnvPatch = {
  spec: {
    template: { spec: { containers: [{ name: "main", env: [{ name: "COMPAT", value: "1" }] }] } },
  },
};
