/**
 * The scenarios: the same steps for every resource of the table (create, read, list, update,
 * every patch type, apply with a conflict, errors, pagination, a table, a watch, delete), and one
 * scenario of discovery requests. A step's request may read this backend's earlier replies in the
 * same scenario (the object to PUT back, a continue token, the resourceVersion to watch from).
 */
import type { CompatRequest } from "./http.ts";
import { GENERATE_NAME } from "./normalize.ts";
import { apiVersionOf, type CompatResource, collectionPath } from "./resource.ts";
import { coreResources } from "./scenarios-core.ts";
import { CUSTOM_GROUP, moreResources } from "./scenarios-more.ts";

/** One backend's earlier replies in a scenario, by the key a step saved them under. */
export type Saved = ReadonlyMap<string, unknown>;

/** What a step compares: the whole reply, its status code only, or the body's keys only. */
export type Compare = "body" | "status" | "keys";

/** One request of a scenario. */
export interface Step {
  /** What the request does, the same for every resource: "create", "merge patch", … */
  readonly name: string;
  request(saved: Saved): CompatRequest;
  /** @default "body" */
  readonly compare?: Compare;
  /** Keep the reply's body for later steps under this key. */
  readonly save?: string;
}

/** An ordered list of steps, run against each backend in one namespace of its own. */
export interface Scenario {
  /** The resource's plural (and group), or "discovery". */
  readonly name: string;
  readonly resource?: CompatResource;
  readonly steps: readonly Step[];
}

/** Every resource the suite covers. */
export const resources: readonly CompatResource[] = [...coreResources, ...moreResources];

/** The namespace a scenario's objects live in; each scenario has its own. */
export function namespaceOf(r: CompatResource): string {
  return `compat-${r.plural}${r.group === "events.k8s.io" ? "-events-k8s-io" : ""}`;
}

/** A scenario's name: the plural, with the group where two groups share a plural. */
export function scenarioName(r: CompatResource): string {
  return r.group === "" || r.plural !== "events" ? r.plural : `${r.plural}.${r.group}`;
}

/** The value at `path` of a loosely read JSON value, if it is a string. */
export function stringAt(value: unknown, ...path: string[]): string | undefined {
  let at = value;
  for (const key of path) {
    if (typeof at !== "object" || at === null) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return typeof at === "string" ? at : undefined;
}

const PAGE_LABEL = "compat-page";
const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";

/** The steps of one resource's scenario. */
export function resourceScenario(r: CompatResource): Scenario {
  const ns = namespaceOf(r);
  const [name, other] = r.names ?? ["compat-a", "compat-b"];
  const collection = collectionPath(r, ns);
  const item = `${collection}/${name}`;
  const object = (n: string, labels?: Record<string, string>) => ({
    apiVersion: apiVersionOf(r),
    kind: r.kind,
    metadata: {
      name: n,
      ...(r.namespaced ? { namespace: ns } : {}),
      ...(labels === undefined ? {} : { labels }),
    },
    ...r.sample(n, ns),
  });
  // A cluster-scoped list or watch would see every other scenario's objects: select ours by name.
  const byName = r.namespaced ? "" : `fieldSelector=${encodeURIComponent(`metadata.name=${name}`)}`;
  const query = (...parts: string[]) => {
    const all = parts.filter((p) => p !== "");
    return all.length === 0 ? "" : `?${all.join("&")}`;
  };
  const get = (path: string, accept?: string): CompatRequest =>
    accept === undefined ? { method: "GET", path } : { method: "GET", path, accept };
  const apply = (manager: string) => (): CompatRequest => ({
    method: "PATCH",
    path: `${item}?fieldManager=${manager}`,
    contentType: "application/apply-patch+yaml",
    body: JSON.stringify({
      apiVersion: apiVersionOf(r),
      kind: r.kind,
      metadata: { name, ...(r.namespaced ? { namespace: ns } : {}), labels: { applied: manager } },
    }),
  });
  // The two objects a label selector and the pages find (not the generated one).
  const paged = { [PAGE_LABEL]: "yes" };
  const steps: Step[] = [];
  if (r.namespaced) {
    steps.push({
      name: "create namespace",
      request: () => ({
        method: "POST",
        path: "/api/v1/namespaces",
        body: { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } },
      }),
    });
  }
  steps.push(
    { name: "create", save: "created", request: () => post(collection, object(name, paged)) },
    { name: "create a duplicate", request: () => post(collection, object(name, paged)) },
    {
      name: "create with a wrong kind",
      request: () => post(collection, { ...object("compat-wrong"), kind: "NotAKind" }),
    },
    {
      name: "create a malformed body",
      request: () => ({ method: "POST", path: collection, body: '{"apiVersion": "v1", "kind": ' }),
    },
    {
      name: "create an invalid object",
      request: () => post(collection, object("Not_A_Valid_Name", { "not a valid key": "x" })),
    },
    {
      name: "create with generateName",
      request: () => {
        const { metadata, ...rest } = object("compat-gen");
        const { name: _, ...meta } = metadata;
        // An empty labels map too, which a server leaves out of its reply or keeps.
        const generated = { ...meta, generateName: GENERATE_NAME, labels: {} };
        return post(collection, { ...rest, metadata: generated });
      },
    },
    { name: "get", save: "read", request: () => get(item) },
    { name: "get a missing name", request: () => get(`${collection}/compat-missing`) },
    { name: "list", request: () => get(collection + query(byName)) },
    {
      name: "create another",
      request: () => post(collection, object(other, paged)),
    },
    {
      name: "list with a label selector",
      request: () => get(`${collection}?labelSelector=${PAGE_LABEL}%3Dyes`),
    },
    {
      name: "list a first page",
      save: "page",
      request: () => get(`${collection}?limit=1&labelSelector=${PAGE_LABEL}`),
    },
    {
      name: "list the next page",
      request: (saved) => {
        const token = stringAt(saved.get("page"), "metadata", "continue") ?? "";
        return get(
          `${collection}?limit=1&labelSelector=${PAGE_LABEL}&continue=${encodeURIComponent(token)}`,
        );
      },
    },
    { name: "get as a table", request: () => get(item, TABLE) },
    { name: "list as a table", request: () => get(collection + query(byName), TABLE) },
    {
      name: "update",
      request: (saved) => ({ method: "PUT", path: item, body: relabelled(saved.get("read")) }),
    },
    {
      name: "merge patch",
      request: () =>
        patch(item, "application/merge-patch+json", { metadata: { labels: { merged: "yes" } } }),
    },
    {
      name: "JSON patch",
      request: () =>
        patch(item, "application/json-patch+json", [
          { op: "add", path: "/metadata/annotations", value: { "compat/json-patch": "yes" } },
        ]),
    },
    {
      name: "strategic merge patch",
      request: () =>
        patch(
          item,
          "application/strategic-merge-patch+json",
          r.strategicPatch ?? { metadata: { labels: { strategic: "yes" } } },
        ),
    },
    { name: "server-side apply", request: apply("compat-first") },
    { name: "server-side apply by another manager (conflict)", request: apply("compat-second") },
    ...(r.scale ? scaleSteps(r, item, ns) : []),
    { name: "delete", request: () => ({ method: "DELETE", path: item }) },
    { name: "get after delete", request: () => get(item) },
    {
      name: "watch from the create",
      request: (saved) => {
        const rv = stringAt(saved.get("created"), "metadata", "resourceVersion") ?? "";
        return {
          method: "GET",
          path: collection + query("watch=1", `resourceVersion=${rv}`, "timeoutSeconds=1", byName),
          watch: true,
        };
      },
    },
  );
  return { name: scenarioName(r), resource: r, steps };
}

/**
 * The `scale` subresource: read, patched, replaced with a stale resourceVersion and with a
 * negative count, applied against the patch's owner, and the object read back with the
 * ownership the writes recorded.
 */
function scaleSteps(r: CompatResource, item: string, namespace: string): Step[] {
  const scale = `${item}/scale`;
  const name = item.slice(item.lastIndexOf("/") + 1);
  const body = (replicas: number, resourceVersion?: string) => ({
    apiVersion: "autoscaling/v1",
    kind: "Scale",
    metadata: {
      name,
      ...(r.namespaced ? { namespace } : {}),
      ...(resourceVersion === undefined ? {} : { resourceVersion }),
    },
    spec: { replicas },
  });
  return [
    { name: "get the scale", request: () => ({ method: "GET", path: scale }) },
    {
      name: "merge patch the scale",
      request: () =>
        patch(`${scale}?fieldManager=compat-scaler`, "application/merge-patch+json", {
          spec: { replicas: 2 },
        }),
    },
    {
      name: "update the scale with a stale resourceVersion",
      request: (saved) => ({
        method: "PUT",
        path: scale,
        body: body(3, stringAt(saved.get("created"), "metadata", "resourceVersion")),
      }),
    },
    {
      name: "update the scale to a negative count",
      request: () => ({ method: "PUT", path: scale, body: body(-1) }),
    },
    {
      name: "server-side apply of the scale (conflict)",
      request: () => ({
        method: "PATCH",
        path: `${scale}?fieldManager=compat-autoscaler`,
        contentType: "application/apply-patch+yaml",
        body: JSON.stringify(body(4)),
      }),
    },
    {
      name: "server-side apply of the scale, forced",
      request: () => ({
        method: "PATCH",
        path: `${scale}?fieldManager=compat-autoscaler&force=true`,
        contentType: "application/apply-patch+yaml",
        body: JSON.stringify(body(4)),
      }),
    },
    { name: "get after scaling", request: () => ({ method: "GET", path: item }) },
  ];
}

function post(path: string, body: unknown): CompatRequest {
  return { method: "POST", path, body };
}

function patch(path: string, contentType: string, body: unknown): CompatRequest {
  return { method: "PATCH", path, contentType, body };
}

/** The object read back, with one more label: what an update sends. */
function relabelled(read: unknown): unknown {
  if (typeof read !== "object" || read === null) return read;
  const object = read as { metadata?: { labels?: Record<string, string> } };
  const metadata = object.metadata ?? {};
  return { ...object, metadata: { ...metadata, labels: { ...metadata.labels, updated: "yes" } } };
}

/** Discovery: the group lists, every group-version of the table, the version, OpenAPI. */
export function discoveryScenario(): Scenario {
  const groupVersions = [
    ...new Set(resources.filter((r) => r.group !== "").map((r) => apiVersionOf(r))),
  ].sort();
  const get = (path: string, compare: Compare = "body", name = `discovery ${path}`): Step => ({
    name,
    compare,
    request: () => ({ method: "GET", path }),
  });
  return {
    name: "discovery",
    steps: [
      get("/api"),
      get("/apis"),
      get("/api/v1"),
      ...groupVersions.map((gv) => get(`/apis/${gv}`, "body", "discovery of a group version")),
      get(`/apis/${CUSTOM_GROUP}`),
      // The build facts (version, commit, date) are each server's own: compare the fields only.
      get("/version", "keys"),
      get("/openapi/v2", "status"),
      get("/openapi/v3", "status"),
    ],
  };
}

/** Every scenario, discovery first. */
export function allScenarios(): Scenario[] {
  return [discoveryScenario(), ...resources.map(resourceScenario)];
}
