import type { AccessAttributes } from "../authorizer.ts";
import type { UserInfo } from "../user.ts";
import type { ClusterRole, PolicyRule, Role, RoleBinding, Subject } from "./types.ts";

/*
 * Small builders of RBAC objects for the tests of this folder. A subject is written
 * `User:bob`, `Group:devs`, `ServiceAccount:name` (namespace defaulted) or
 * `ServiceAccount:ns:name`.
 */

/** A rule from comma-separated verbs, groups and resources (a resource rule). */
export function rule(verbs: string, groups: string, resources: string, names?: string): PolicyRule {
  return {
    verbs: verbs.split(","),
    apiGroups: groups.split(","),
    resources: resources.split(","),
    ...(names === undefined ? {} : { resourceNames: names.split(",") }),
  };
}

/** A rule on non-resource URLs. */
export function urlRule(verbs: string, urls: string): PolicyRule {
  return { verbs: verbs.split(","), nonResourceURLs: urls.split(",") };
}

export function role(namespace: string, name: string, ...rules: PolicyRule[]): Role {
  return { metadata: { namespace, name }, rules };
}

export function clusterRole(name: string, ...rules: PolicyRule[]): ClusterRole {
  return { metadata: { name }, rules };
}

export function subject(text: string): Subject {
  const [kind = "", ...rest] = text.split(":");
  if (kind === "ServiceAccount" && rest.length === 2) {
    return { kind, namespace: rest[0]!, name: rest[1]! };
  }
  return {
    kind,
    name: rest.join(":"),
    ...(kind === "ServiceAccount" ? {} : { apiGroup: "rbac.authorization.k8s.io" }),
  };
}

/** A RoleBinding `namespace/name` of `Role:x` or `ClusterRole:x` to subjects. */
export function roleBinding(
  namespace: string,
  name: string,
  ref: string,
  ...subjects: string[]
): RoleBinding {
  const [kind = "", roleName = ""] = ref.split(":");
  return {
    metadata: { namespace, name },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind, name: roleName },
    subjects: subjects.map(subject),
  };
}

/** A ClusterRoleBinding of the ClusterRole `roleName` to subjects. */
export function clusterRoleBinding(
  name: string,
  roleName: string,
  ...subjects: string[]
): RoleBinding {
  return {
    metadata: { name },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: roleName },
    subjects: subjects.map(subject),
  };
}

/** An authenticated user. */
export function user(username: string, ...groups: string[]): UserInfo {
  return { username, groups: [...groups, "system:authenticated"] };
}

/** A service account's user, with the groups kube gives it. */
export function serviceAccount(namespace: string, name: string): UserInfo {
  return {
    username: `system:serviceaccount:${namespace}:${name}`,
    groups: [
      "system:serviceaccounts",
      `system:serviceaccounts:${namespace}`,
      "system:authenticated",
    ],
  };
}

/** What a request on `resource` of `group` does (version v1; the rest empty unless given). */
export function resourceRequest(
  verb: string,
  group: string,
  resource: string,
  more: Partial<{ subresource: string; name: string; namespace: string }> = {},
): AccessAttributes {
  return {
    kind: "resource",
    verb,
    group,
    version: "v1",
    resource,
    subresource: more.subresource ?? "",
    name: more.name ?? "",
    namespace: more.namespace ?? "",
  };
}
