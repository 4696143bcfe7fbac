/**
 * Builds src/resources/builtin-resources.ts — the table of every resource kube-apiserver 1.36
 * serves by default: group, version, kind, plural, scope, verbs and subresources — from the
 * OpenAPI v3 documents of Kubernetes 1.36 in ../shared/k8s-api/openapi-v3 (read there, never
 * copied), whose paths carry those facts (`x-kubernetes-action`, `x-kubernetes-group-version-kind`).
 *
 * kube-apiserver serves the GA versions of every group by default (v1, and autoscaling's v2 as
 * well), none of the alpha or beta ones: the table holds exactly those. What the documents do not
 * carry — short names, categories — is kept by hand below, as kube's registry declares it
 * (checked against a real kube-apiserver's discovery by the compatibility suite).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Where the reference data is: ../shared/k8s-api, beside the repository. */
export const OPENAPI_DIR = new URL("../../../shared/k8s-api/openapi-v3/", import.meta.url);

/** A subresource as discovery lists it. */
export interface SubresourceFacts {
  name: string;
  /** The kind it reads and writes: the parent's, or another (`autoscaling/v1` Scale). */
  group: string;
  version: string;
  kind: string;
  verbs: string[];
}

export interface ResourceFacts {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  verbs: string[];
  shortNames: string[];
  categories: string[];
  subresources: SubresourceFacts[];
}

/** kube's registry: short names by `group/plural` (core: `plural`). */
const SHORT_NAMES: Record<string, string[]> = {
  componentstatuses: ["cs"],
  configmaps: ["cm"],
  endpoints: ["ep"],
  events: ["ev"],
  limitranges: ["limits"],
  namespaces: ["ns"],
  nodes: ["no"],
  persistentvolumeclaims: ["pvc"],
  persistentvolumes: ["pv"],
  pods: ["po"],
  replicationcontrollers: ["rc"],
  resourcequotas: ["quota"],
  serviceaccounts: ["sa"],
  services: ["svc"],
  "apiextensions.k8s.io/customresourcedefinitions": ["crd", "crds"],
  "apps/daemonsets": ["ds"],
  "apps/deployments": ["deploy"],
  "apps/replicasets": ["rs"],
  "apps/statefulsets": ["sts"],
  "autoscaling/horizontalpodautoscalers": ["hpa"],
  "batch/cronjobs": ["cj"],
  "certificates.k8s.io/certificatesigningrequests": ["csr"],
  "events.k8s.io/events": ["ev"],
  "networking.k8s.io/ingresses": ["ing"],
  "networking.k8s.io/ipaddresses": ["ip"],
  "networking.k8s.io/networkpolicies": ["netpol"],
  "policy/poddisruptionbudgets": ["pdb"],
  "scheduling.k8s.io/priorityclasses": ["pc"],
  "storage.k8s.io/storageclasses": ["sc"],
  "storage.k8s.io/volumeattributesclasses": ["vac"],
};

/** kube's registry: the `all` category (what `kubectl get all` lists) and `api-extensions`. */
const CATEGORIES: Record<string, string[]> = {
  pods: ["all"],
  replicationcontrollers: ["all"],
  services: ["all"],
  "apps/daemonsets": ["all"],
  "apps/deployments": ["all"],
  "apps/replicasets": ["all"],
  "apps/statefulsets": ["all"],
  "autoscaling/horizontalpodautoscalers": ["all"],
  "batch/cronjobs": ["all"],
  "batch/jobs": ["all"],
  "admissionregistration.k8s.io/*": ["api-extensions"],
  "apiextensions.k8s.io/*": ["api-extensions"],
  "apiregistration.k8s.io/*": ["api-extensions"],
};

/** Discovery's verb for an OpenAPI operation's `x-kubernetes-action`. */
const VERB: Record<string, string> = {
  get: "get",
  list: "list",
  watchlist: "watch",
  post: "create",
  put: "update",
  patch: "patch",
  delete: "delete",
  deletecollection: "deletecollection",
};

/** Discovery's order of verbs. */
const VERB_ORDER = [
  "create",
  "delete",
  "deletecollection",
  "get",
  "list",
  "patch",
  "update",
  "watch",
];

/** Verbs of a `connect` subresource by HTTP method, as discovery lists them. */
const CONNECT_VERB: Record<string, string> = {
  get: "get",
  post: "create",
  put: "update",
  patch: "patch",
  delete: "delete",
};

interface Operation {
  "x-kubernetes-action"?: string;
  "x-kubernetes-group-version-kind"?: { group: string; version: string; kind: string };
}

/** `api__v1_openapi.json` → ["", "v1"]; `apis__apps__v1_openapi.json` → ["apps", "v1"]. */
function groupVersionOf(file: string): [string, string] | undefined {
  const core = /^api__(v\d+)_openapi\.json$/.exec(file);
  if (core) return ["", core[1]!];
  const named = /^apis__(.+)__(v\d+(?:(?:alpha|beta)\d+)?)_openapi\.json$/.exec(file);
  return named ? [named[1]!, named[2]!] : undefined;
}

/** Every resource of the GA group-versions, in discovery's order within a group-version. */
export function generateBuiltinResources(dir: URL = OPENAPI_DIR): ResourceFacts[] {
  const out: ResourceFacts[] = [];
  const files = readdirSync(dir).sort();
  for (const file of files) {
    const gv = groupVersionOf(file);
    if (gv === undefined || !/^v\d+$/.test(gv[1])) continue;
    const [group, version] = gv;
    const doc = JSON.parse(readFileSync(join(dir.pathname, file), "utf8")) as {
      paths: Record<string, Record<string, Operation>>;
    };
    out.push(...resourcesOf(group, version, doc.paths));
  }
  return out;
}

function resourcesOf(
  group: string,
  version: string,
  paths: Record<string, Record<string, Operation>>,
): ResourceFacts[] {
  const root = group === "" ? `/api/${version}/` : `/apis/${group}/${version}/`;
  const byPlural = new Map<string, ResourceFacts>();
  const resource = (plural: string, namespaced: boolean, kind: string) => {
    let r = byPlural.get(plural);
    if (r === undefined) {
      const key = group === "" ? plural : `${group}/${plural}`;
      r = {
        group,
        version,
        kind,
        plural,
        namespaced,
        verbs: [],
        shortNames: SHORT_NAMES[key] ?? [],
        categories: CATEGORIES[key] ?? CATEGORIES[`${group}/*`] ?? [],
        subresources: [],
      };
      byPlural.set(plural, r);
    }
    r.namespaced ||= namespaced;
    return r;
  };
  for (const [path, ops] of Object.entries(paths)) {
    if (!path.startsWith(root)) continue;
    let rest = path.slice(root.length);
    const watch = rest.startsWith("watch/");
    if (watch) rest = rest.slice("watch/".length);
    const namespaced = rest.startsWith("namespaces/{namespace}/");
    if (namespaced) rest = rest.slice("namespaces/{namespace}/".length);
    const parts = rest.split("/");
    const plural = parts[0]!;
    if (plural === "" || (plural === "namespaces" && parts.length === 1 && namespaced)) continue;
    for (const [method, op] of Object.entries(ops)) {
      const action = op["x-kubernetes-action"];
      const gvk = op["x-kubernetes-group-version-kind"];
      if (action === undefined || gvk === undefined) continue;
      if (parts.length <= 2) {
        // The collection, or one object (`{name}`): the resource's own verbs.
        const r = resource(plural, namespaced, gvk.kind);
        if (parts.length === 1 || gvk.kind === r.kind) addVerb(r.verbs, VERB[action]);
        continue;
      }
      if (parts[1] !== "{name}" || parts.length !== 3 || watch) continue;
      const r = resource(plural, namespaced, "");
      let sub = r.subresources.find((s) => s.name === parts[2]);
      if (sub === undefined) {
        sub = {
          name: parts[2]!,
          group: gvk.group === group && gvk.version === version ? "" : gvk.group,
          version: gvk.group === group && gvk.version === version ? "" : gvk.version,
          kind: gvk.kind,
          verbs: [],
        };
        r.subresources.push(sub);
      }
      addVerb(sub.verbs, action === "connect" ? CONNECT_VERB[method] : VERB[action]);
    }
  }
  const list = [...byPlural.values()].filter((r) => r.kind !== "" && r.verbs.length > 0);
  for (const r of list) {
    r.verbs.sort((a, b) => VERB_ORDER.indexOf(a) - VERB_ORDER.indexOf(b));
    r.subresources.sort((a, b) => a.name.localeCompare(b.name));
    for (const s of r.subresources) {
      s.verbs.sort((a, b) => VERB_ORDER.indexOf(a) - VERB_ORDER.indexOf(b));
      // A subresource that reads the parent's kind names no group or version, as discovery.
    }
  }
  return list.sort((a, b) => a.plural.localeCompare(b.plural));
}

function addVerb(verbs: string[], verb: string | undefined): void {
  if (verb !== undefined && !verbs.includes(verb)) verbs.push(verb);
}

/** The generated module's text. */
export function renderBuiltinResources(resources: readonly ResourceFacts[]): string {
  const lines = resources.map((r) => `  ${JSON.stringify(r)},`);
  return [
    "/*",
    " * Generated by test/apiserver/builtin-resources-gen.ts from the OpenAPI v3 documents of",
    " * Kubernetes 1.36 (../shared/k8s-api/openapi-v3); test/apiserver/builtin-resources.test.ts",
    " * checks it. Do not edit: KONTROLLER_UPDATE_BUILTIN_RESOURCES=1 rewrites it.",
    " */",
    'import type { BuiltinResourceFacts } from "./builtin-resource-facts.ts";',
    "",
    "/** Every resource kube-apiserver 1.36 serves by default, by group-version, then plural. */",
    "export const BUILTIN_RESOURCES: readonly BuiltinResourceFacts[] = [",
    ...lines,
    "];",
    "",
  ].join("\n");
}
