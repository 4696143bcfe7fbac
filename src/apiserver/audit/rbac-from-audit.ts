import { stringify } from "yaml";
import type { AccessAttributes } from "../auth/authorizer.ts";
import {
  bootstrapClusterRoleBindings,
  bootstrapClusterRoles,
  compactRules,
  type PolicyRule,
  rulesAllow,
} from "../auth/rbac/index.ts";
import { AUTHENTICATED_GROUP } from "../auth/user.ts";
import { type RecordedRequest, recordedRequests } from "./recorded-requests.ts";
import type { AuditEvent } from "./types.ts";

/*
 * "Which permissions does my controller need?": the smallest RBAC that allows exactly the
 * requests one identity made, read from their audit events. A rule per verb, group and
 * resource (a subresource as `pods/log`) or non-resource URL, then compacted: the verbs of one
 * resource joined (kube's CompactRules), and resources of one group with the same verbs joined;
 * all sorted, so the same requests always give the same text. Names are not kept: a controller
 * meets other objects in production than in its tests.
 */

const RBAC_API = "rbac.authorization.k8s.io/v1";

/** Whose requests {@link rbacFromAudit} reads. */
export type RbacSubject =
  | { readonly kind: "User"; readonly name: string }
  | { readonly kind: "ServiceAccount"; readonly namespace: string; readonly name: string };

/** Options of {@link rbacFromAudit}. */
export interface RbacFromAuditOptions {
  /**
   * The identity whose requests are read (as the request acted: an impersonated user is the
   * one impersonated). A service account is `system:serviceaccount:NS:NAME`.
   * @default the one identity of the log; an error where there are several
   */
  readonly subject?: RbacSubject;
  /**
   * Write a Role (and RoleBinding) per namespace for the requests in a namespace, as for a
   * controller that works in its own namespaces only; false: one ClusterRole holds every rule,
   * as for a controller that works in all of them.
   * @default false
   */
  readonly namespaceScoped?: boolean;
  /** The name of the roles and bindings. @default derived from the subject's name */
  readonly name?: string;
  /**
   * Keep requests that kube's bootstrap policy allows every authenticated user (discovery,
   * /version, /healthz, self access reviews), which need no rule of their own.
   * @default false
   */
  readonly includeGrantedToAll?: boolean;
}

/** A Role or ClusterRole, or its binding, as written. */
export type RbacManifest = Record<string, unknown> & { kind: string };

/** What {@link rbacFromAudit} found. */
export interface RbacFromAudit {
  readonly subject: RbacSubject;
  /** The requests the rules allow (the subject's, less those granted to everyone). */
  readonly requests: readonly RecordedRequest[];
  /** ClusterRole and ClusterRoleBinding first, then Role and RoleBinding by namespace. */
  readonly manifests: readonly RbacManifest[];
}

/** The log names no identity, or several when one was to be found. */
export class RbacFromAuditError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RbacFromAuditError";
  }
}

/** The username of a subject, as requests are authenticated. */
export function subjectUsername(subject: RbacSubject): string {
  return subject.kind === "User"
    ? subject.name
    : `system:serviceaccount:${subject.namespace}:${subject.name}`;
}

/** The subject a username is: a service account's username names it. */
export function subjectOf(username: string): RbacSubject {
  const m = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(username);
  return m === null
    ? { kind: "User", name: username }
    : { kind: "ServiceAccount", namespace: m[1]!, name: m[2]! };
}

/** The smallest RBAC that allows the requests of one identity in `events`. */
export function rbacFromAudit(
  events: Iterable<AuditEvent>,
  options: RbacFromAuditOptions = {},
): RbacFromAudit {
  const all = recordedRequests(events);
  const subject = options.subject ?? onlySubject(all);
  const username = subjectUsername(subject);
  const toAll = options.includeGrantedToAll ? [] : grantedToAuthenticated();
  const requests = all.filter(
    (r) => r.username === username && !(toAll.length > 0 && rulesAllow(r.attributes, toAll)),
  );
  const scopes = new Map<string, PolicyRule[]>(); // "" is the cluster's
  for (const r of requests) {
    const a = r.attributes;
    const scope = options.namespaceScoped && a.kind === "resource" ? a.namespace : "";
    const rules = scopes.get(scope) ?? [];
    rules.push(ruleFor(a));
    scopes.set(scope, rules);
  }
  const name = options.name ?? roleName(subject);
  const manifests: RbacManifest[] = [];
  const cluster = scopes.get("");
  if (cluster !== undefined) {
    manifests.push(
      role("ClusterRole", name, undefined, smallest(cluster)),
      binding("ClusterRoleBinding", name, undefined, subject),
    );
  }
  for (const ns of [...scopes.keys()].filter((s) => s !== "").sort()) {
    manifests.push(
      role("Role", name, ns, smallest(scopes.get(ns)!)),
      binding("RoleBinding", name, ns, subject),
    );
  }
  return { subject, requests, manifests };
}

/** The manifests as one YAML stream (`---` between documents), as `kubectl apply -f` reads it. */
export function rbacYaml(manifests: readonly RbacManifest[]): string {
  return manifests.map((m) => stringify(m, { lineWidth: 0, indentSeq: false })).join("---\n");
}

function onlySubject(requests: readonly RecordedRequest[]): RbacSubject {
  const counts = new Map<string, number>();
  for (const r of requests) counts.set(r.username, (counts.get(r.username) ?? 0) + 1);
  if (counts.size === 1) return subjectOf([...counts.keys()][0]!);
  if (counts.size === 0) {
    throw new RbacFromAuditError("the audit log records no authenticated request");
  }
  const listed = [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([u, n]) => `${u} (${n})`)
    .join(", ");
  throw new RbacFromAuditError(
    `the audit log records requests of ${counts.size} users: ${listed}; say whose rules to write (a user or a service account)`,
  );
}

/** The rules kube's bootstrap policy grants every authenticated user. */
function grantedToAuthenticated(): PolicyRule[] {
  const roles = new Map(bootstrapClusterRoles().map((r) => [r.metadata?.name, r]));
  return bootstrapClusterRoleBindings()
    .filter((b) =>
      (b.subjects ?? []).some((s) => s.kind === "Group" && s.name === AUTHENTICATED_GROUP),
    )
    .flatMap((b) => roles.get(b.roleRef.name)?.rules ?? []);
}

function ruleFor(a: AccessAttributes): PolicyRule {
  if (a.kind === "non-resource") return { nonResourceURLs: [a.path], verbs: [a.verb] };
  const resource = a.subresource === "" ? a.resource : `${a.resource}/${a.subresource}`;
  return { apiGroups: [a.group], resources: [resource], verbs: [a.verb] };
}

/**
 * One rule per resource with all its verbs (kube's CompactRules), then one rule per group and
 * set of verbs with all its resources (and per set of verbs with all its URLs); sorted.
 */
function smallest(rules: readonly PolicyRule[]): PolicyRule[] {
  const unique = [...new Map(rules.map((r) => [JSON.stringify(r), r])).values()];
  const urlVerbs = new Map<string, string[]>();
  for (const r of unique) {
    for (const url of r.nonResourceURLs ?? []) {
      urlVerbs.set(url, [...(urlVerbs.get(url) ?? []), ...(r.verbs ?? [])]);
    }
  }
  const perResource = [
    ...compactRules(unique.filter((r) => r.nonResourceURLs === undefined)),
    ...[...urlVerbs].map(([url, verbs]): PolicyRule => ({ nonResourceURLs: [url], verbs })),
  ].map((r) => ({ ...r, verbs: sorted(r.verbs) }));
  const joined = new Map<string, { group?: string; verbs: string[]; items: string[] }>();
  for (const r of perResource) {
    const urls = r.nonResourceURLs ?? [];
    const group = urls.length > 0 ? undefined : (r.apiGroups ?? [])[0]!;
    const key = JSON.stringify([group ?? null, r.verbs]);
    let entry = joined.get(key);
    if (entry === undefined) {
      entry = { ...(group === undefined ? {} : { group }), verbs: r.verbs, items: [] };
      joined.set(key, entry);
    }
    entry.items.push(...(group === undefined ? urls : (r.resources ?? [])));
  }
  const out = [...joined.values()].map(
    (e): PolicyRule =>
      e.group === undefined
        ? { nonResourceURLs: sorted(e.items), verbs: e.verbs }
        : { apiGroups: [e.group], resources: sorted(e.items), verbs: e.verbs },
  );
  return out.sort(compareRules);
}

function sorted(values: readonly string[] | null | undefined): string[] {
  return [...new Set(values ?? [])].sort();
}

/** Resource rules first (by group, then first resource), then non-resource rules by URL. */
function compareRules(a: PolicyRule, b: PolicyRule): number {
  const key = (r: PolicyRule) =>
    r.nonResourceURLs
      ? ["1", "", r.nonResourceURLs[0]!, r.verbs!.join(",")]
      : ["0", r.apiGroups![0]!, r.resources![0]!, r.verbs!.join(",")];
  const ka = key(a);
  const kb = key(b);
  for (let i = 0; i < ka.length; i++) {
    if (ka[i] !== kb[i]) return ka[i]! < kb[i]! ? -1 : 1;
  }
  return 0;
}

/** A name for the subject's roles: its name, in the characters object names allow. */
function roleName(subject: RbacSubject): string {
  const name = subject.name
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, "-")
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, "");
  return name === "" ? "recorded" : name;
}

function role(
  kind: "Role" | "ClusterRole",
  name: string,
  namespace: string | undefined,
  rules: PolicyRule[],
): RbacManifest {
  return {
    apiVersion: RBAC_API,
    kind,
    metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
    rules: rules.map((r) => ({ ...r })),
  };
}

function binding(
  kind: "RoleBinding" | "ClusterRoleBinding",
  name: string,
  namespace: string | undefined,
  subject: RbacSubject,
): RbacManifest {
  return {
    apiVersion: RBAC_API,
    kind,
    metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
    roleRef: {
      apiGroup: "rbac.authorization.k8s.io",
      kind: kind === "RoleBinding" ? "Role" : "ClusterRole",
      name,
    },
    subjects: [
      subject.kind === "User"
        ? { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: subject.name }
        : { kind: "ServiceAccount", name: subject.name, namespace: subject.namespace },
    ],
  };
}
