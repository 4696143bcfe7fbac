import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AccessAttributes } from "../authorizer.ts";
import {
  clusterRole,
  clusterRoleBinding,
  role,
  roleBinding,
  rule,
  serviceAccount,
  urlRule,
  user,
} from "./fixtures.test-helper.ts";
import { MemoryRbacObjects, type RbacObjects } from "./objects.ts";
import { RbacAuthorizer } from "./rbac-authorizer.ts";

function get(
  resource: string,
  namespace = "",
  more: { name?: string; group?: string; verb?: string } = {},
): AccessAttributes {
  return {
    kind: "resource",
    verb: more.verb ?? "get",
    group: more.group ?? "",
    version: "v1",
    resource,
    subresource: "",
    name: more.name ?? "",
    namespace,
  };
}

const alice = user("alice", "devs");

const objects = new MemoryRbacObjects({
  roles: [role("ns1", "pod-reader", rule("get,list", "", "pods"))],
  clusterRoles: [
    clusterRole("secret-reader", rule("get", "", "secrets")),
    clusterRole("node-reader", rule("get", "", "nodes"), urlRule("get", "/healthz")),
  ],
  roleBindings: [
    roleBinding("ns1", "read-pods", "Role:pod-reader", "User:alice"),
    roleBinding("ns1", "read-secrets", "ClusterRole:secret-reader", "Group:devs"),
    roleBinding("ns1", "robot", "Role:pod-reader", "ServiceAccount:robot"),
  ],
  clusterRoleBindings: [
    clusterRoleBinding(
      "nodes",
      "node-reader",
      "ServiceAccount:kube-system:node-watcher",
      "Group:devs",
    ),
  ],
});
const rbac = new RbacAuthorizer({ objects });

describe("RbacAuthorizer", () => {
  it("allows what a Role bound in the namespace allows, with kube's reason", () => {
    assert.deepEqual(rbac.authorize(alice, get("pods", "ns1")), {
      allowed: true,
      denied: false,
      reason: 'RBAC: allowed by RoleBinding "read-pods/ns1" of Role "pod-reader" to User "alice"',
    });
  });

  it("has no opinion, and no reason, when no rule allows", () => {
    assert.deepEqual(rbac.authorize(alice, get("pods", "ns2")), {
      allowed: false,
      denied: false,
      reason: "",
    });
    assert.deepEqual(rbac.authorize(alice, get("pods", "ns1", { verb: "delete" })).allowed, false);
  });

  it("lets a RoleBinding grant a ClusterRole's rules in its namespace only", () => {
    assert.equal(rbac.authorize(alice, get("secrets", "ns1")).allowed, true);
    assert.equal(rbac.authorize(alice, get("secrets", "ns2")).allowed, false);
    assert.equal(rbac.authorize(alice, get("secrets")).allowed, false, "nor cluster-wide");
  });

  it("lets a ClusterRoleBinding grant everywhere, paths included", () => {
    const reason =
      'RBAC: allowed by ClusterRoleBinding "nodes" of ClusterRole "node-reader" to Group "devs"';
    assert.deepEqual(rbac.authorize(alice, get("nodes")), { allowed: true, denied: false, reason });
    assert.equal(rbac.authorize(alice, get("nodes", "any")).allowed, true);
    assert.deepEqual(
      rbac.authorize(alice, { kind: "non-resource", verb: "get", path: "/healthz" }),
      {
        allowed: true,
        denied: false,
        reason,
      },
    );
  });

  it("matches a ServiceAccount subject to its user, defaulting its namespace to the RoleBinding's", () => {
    assert.equal(rbac.authorize(serviceAccount("ns1", "robot"), get("pods", "ns1")).allowed, true);
    assert.equal(rbac.authorize(serviceAccount("ns2", "robot"), get("pods", "ns1")).allowed, false);
    assert.equal(
      rbac.authorize(serviceAccount("kube-system", "node-watcher"), get("nodes")).reason,
      'RBAC: allowed by ClusterRoleBinding "nodes" of ClusterRole "node-reader" to ServiceAccount "node-watcher/kube-system"',
    );
    assert.equal(
      rbac.authorize(serviceAccount("ns1", "robot"), get("pods", "ns1")).reason,
      'RBAC: allowed by RoleBinding "robot/ns1" of Role "pod-reader" to ServiceAccount "robot/ns1"',
    );
  });

  it("does not match a ServiceAccount subject without a namespace in a ClusterRoleBinding", () => {
    const o = new MemoryRbacObjects({
      clusterRoles: [clusterRole("all", rule("*", "*", "*"))],
      clusterRoleBindings: [clusterRoleBinding("b", "all", "ServiceAccount:robot")],
    });
    assert.equal(
      new RbacAuthorizer({ objects: o }).authorize(serviceAccount("", "robot"), get("pods"))
        .allowed,
      false,
    );
  });

  it("matches no subject of an unknown kind, and a group only by membership", () => {
    const o = new MemoryRbacObjects({
      clusterRoles: [clusterRole("all", rule("*", "*", "*"))],
      clusterRoleBindings: [clusterRoleBinding("b", "all", "Robot:alice", "Group:alice")],
    });
    assert.equal(new RbacAuthorizer({ objects: o }).authorize(alice, get("pods")).allowed, false);
  });

  it("names the first subject of a binding that applies, and the first binding by name", () => {
    const o = new MemoryRbacObjects({
      clusterRoles: [clusterRole("all", rule("*", "*", "*"))],
      clusterRoleBindings: [
        clusterRoleBinding("z", "all", "User:alice"),
        clusterRoleBinding("a", "all", "Group:nobody", "Group:devs", "User:alice"),
      ],
    });
    assert.equal(
      new RbacAuthorizer({ objects: o }).authorize(alice, get("pods")).reason,
      'RBAC: allowed by ClusterRoleBinding "a" of ClusterRole "all" to Group "devs"',
    );
  });

  it("reports the roles it could not read as its reason, and still allows by the others", () => {
    const o = new MemoryRbacObjects({
      roles: [role("ns", "ok", rule("get", "", "pods"))],
      roleBindings: [
        roleBinding("ns", "a", "Role:gone", "User:alice"),
        roleBinding("ns", "b", "ClusterRole:gone", "User:alice"),
        roleBinding("ns", "c", "Thing:x", "User:alice"),
        roleBinding("ns", "d", "Role:ok", "User:alice"),
        roleBinding("ns", "e", "Role:unrelated-gone", "User:bob"),
      ],
    });
    const a = new RbacAuthorizer({ objects: o });
    assert.equal(a.authorize(alice, get("pods", "ns")).allowed, true);
    assert.deepEqual(a.authorize(alice, get("secrets", "ns")), {
      allowed: false,
      denied: false,
      reason:
        'RBAC: [role.rbac.authorization.k8s.io "gone" not found, clusterrole.rbac.authorization.k8s.io "gone" not found, unsupported role reference kind: "Thing"]',
    });
  });

  it("reports one unreadable role without brackets", () => {
    const o = new MemoryRbacObjects({
      clusterRoleBindings: [clusterRoleBinding("b", "gone", "User:alice")],
    });
    assert.equal(
      new RbacAuthorizer({ objects: o }).authorize(alice, get("pods")).reason,
      'RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found',
    );
  });

  it("reports objects it cannot read at all, and decides on the rest", () => {
    const failing: RbacObjects = {
      getRole: () => undefined,
      getClusterRole: (name) =>
        name === "all" ? clusterRole("all", rule("*", "*", "*")) : undefined,
      listClusterRoles: () => [],
      clusterRoleBindingsFor: () => {
        throw new Error("clusterrolebindings not yet synced");
      },
      roleBindingsFor: () => [roleBinding("ns", "b", "ClusterRole:all", "User:alice")],
    };
    const a = new RbacAuthorizer({ objects: failing });
    assert.equal(a.authorize(alice, get("pods", "ns")).allowed, true);
    assert.equal(
      a.authorize(alice, get("pods")).reason,
      "RBAC: clusterrolebindings not yet synced",
    );
    assert.deepEqual(a.rulesFor(alice, "ns").evaluationError, "clusterrolebindings not yet synced");
  });

  it("lists the rules of a user in a namespace: cluster-wide first, then the namespace's", () => {
    assert.deepEqual(rbac.rulesFor(alice, "ns1"), {
      resourceRules: [
        { verbs: ["get"], apiGroups: [""], resources: ["nodes"] },
        { verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] },
        { verbs: ["get"], apiGroups: [""], resources: ["secrets"] },
      ],
      nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/healthz"] }],
      incomplete: false,
    });
  });

  it("lists resourceNames only when a rule has them", () => {
    const o = new MemoryRbacObjects({
      clusterRoles: [
        clusterRole("r", rule("get", "", "configmaps", "a,b"), {
          verbs: ["get"],
          apiGroups: [""],
          resources: ["pods"],
          resourceNames: [],
        }),
      ],
      clusterRoleBindings: [clusterRoleBinding("b", "r", "User:alice")],
    });
    assert.deepEqual(new RbacAuthorizer({ objects: o }).rulesFor(alice, "x").resourceRules, [
      { verbs: ["get"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["a", "b"] },
      { verbs: ["get"], apiGroups: [""], resources: ["pods"] },
    ]);
  });

  it("lists a rule with both resources and paths in both lists, and one with neither in none", () => {
    const o = new MemoryRbacObjects({
      clusterRoles: [
        clusterRole(
          "r",
          { verbs: ["get"], apiGroups: [""], resources: ["pods"], nonResourceURLs: ["/x"] },
          { verbs: ["get"] },
        ),
      ],
      clusterRoleBindings: [clusterRoleBinding("b", "r", "User:alice")],
    });
    const rules = new RbacAuthorizer({ objects: o }).rulesFor(alice, "");
    assert.equal(rules.resourceRules.length, 1);
    assert.equal(rules.nonResourceRules.length, 1);
  });

  it("lists only cluster-wide rules outside a namespace, and says which roles were missing, not incomplete", () => {
    const o = new MemoryRbacObjects({
      roleBindings: [roleBinding("ns", "b", "Role:gone", "User:alice")],
      clusterRoleBindings: [clusterRoleBinding("c", "gone", "User:alice")],
    });
    const a = new RbacAuthorizer({ objects: o });
    assert.deepEqual(a.rulesFor(alice, ""), {
      resourceRules: [],
      nonResourceRules: [],
      incomplete: false,
      evaluationError: 'clusterrole.rbac.authorization.k8s.io "gone" not found',
    });
    assert.equal(
      a.rulesFor(alice, "ns").evaluationError,
      '[clusterrole.rbac.authorization.k8s.io "gone" not found, role.rbac.authorization.k8s.io "gone" not found]',
    );
  });
});
