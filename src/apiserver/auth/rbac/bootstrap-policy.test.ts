import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { aggregateClusterRoles } from "../../../resources/index.ts";
import type { AccessAttributes } from "../authorizer.ts";
import { ANONYMOUS_USER, MASTERS_GROUP } from "../user.ts";
import { bootstrapClusterRoleBindings, bootstrapClusterRoles } from "./bootstrap-policy.ts";
import { covers } from "./covers.ts";
import { roleBinding, serviceAccount, user } from "./fixtures.test-helper.ts";
import { MemoryRbacObjects } from "./objects.ts";
import { RbacAuthorizer } from "./rbac-authorizer.ts";
import { list, type PolicyRule } from "./types.ts";

/** The bootstrap policy after the aggregation controller has run, as on a kube cluster. */
function aggregatedPolicy() {
  const roles = bootstrapClusterRoles();
  const changed = aggregateClusterRoles(roles);
  return roles.map((r) => {
    const rules = changed.get(r.metadata?.name ?? "");
    return rules === undefined ? r : { ...r, rules };
  });
}

const roles = aggregatedPolicy();
const rulesOf = (name: string): readonly PolicyRule[] =>
  list(roles.find((r) => r.metadata?.name === name)?.rules);
const objects = new MemoryRbacObjects({
  clusterRoles: roles,
  clusterRoleBindings: bootstrapClusterRoleBindings(),
  roleBindings: [
    roleBinding("team", "viewer", "ClusterRole:view", "User:vic"),
    roleBinding("team", "editor", "ClusterRole:edit", "User:eddie"),
    roleBinding("team", "admin", "ClusterRole:admin", "User:ada"),
  ],
});
const rbac = new RbacAuthorizer({ objects });

function can(
  who: Parameters<RbacAuthorizer["authorize"]>[0],
  verb: string,
  resource: string,
  namespace = "team",
  group = "",
): boolean {
  const [res = "", sub = ""] = resource.split("/");
  const a: AccessAttributes = {
    kind: "resource",
    verb,
    group,
    version: "v1",
    resource: res,
    subresource: sub,
    name: "",
    namespace,
  };
  return rbac.authorize(who, a).allowed;
}

const get = (who: Parameters<RbacAuthorizer["authorize"]>[0], path: string) =>
  rbac.authorize(who, { kind: "non-resource", verb: "get", path }).allowed;

describe("bootstrap policy", () => {
  it("names every role once and binds only roles it has, each binding named as its role", () => {
    const names = roles.map((r) => r.metadata?.name);
    assert.equal(new Set(names).size, names.length);
    for (const b of bootstrapClusterRoleBindings()) {
      assert.ok(names.includes(b.roleRef.name), b.roleRef.name);
      assert.equal(b.metadata?.name, b.roleRef.name);
    }
  });

  it("labels and annotates every object as kube's bootstrap objects, and sorts every rule's lists", () => {
    for (const o of [...bootstrapClusterRoles(), ...bootstrapClusterRoleBindings()]) {
      assert.equal(o.metadata?.labels?.["kubernetes.io/bootstrapping"], "rbac-defaults");
      assert.deepEqual(o.metadata?.annotations, {
        "rbac.authorization.kubernetes.io/autoupdate": "true",
      });
    }
    for (const r of bootstrapClusterRoles()) {
      for (const rule of list(r.rules)) {
        for (const field of [
          rule.verbs,
          rule.apiGroups,
          rule.resources,
          rule.resourceNames,
          rule.nonResourceURLs,
        ]) {
          assert.deepEqual(list(field), [...list(field)].sort(), r.metadata?.name);
        }
      }
    }
  });

  it("leaves admin, edit and view without rules until aggregation, as kube-apiserver creates them", () => {
    for (const name of ["admin", "edit", "view"]) {
      const role = bootstrapClusterRoles().find((r) => r.metadata?.name === name);
      assert.equal(role?.rules, null);
      assert.equal(list(role?.aggregationRule?.clusterRoleSelectors).length, 1);
    }
  });

  it("aggregates view into edit into admin: each holds all of the one below", () => {
    assert.equal(covers(rulesOf("edit"), rulesOf("view")).covered, true);
    assert.equal(covers(rulesOf("admin"), rulesOf("edit")).covered, true);
    assert.equal(covers(rulesOf("view"), rulesOf("edit")).covered, false);
    assert.deepEqual(rulesOf("view"), rulesOf("system:aggregate-to-view"));
    assert.deepEqual(rulesOf("admin").slice(-2), rulesOf("system:aggregate-to-admin"));
  });

  it("lets view read but not write, nor read secrets", () => {
    const vic = user("vic");
    assert.equal(can(vic, "list", "pods"), true);
    assert.equal(can(vic, "get", "pods/log"), true);
    assert.equal(can(vic, "watch", "deployments", "team", "apps"), true);
    assert.equal(can(vic, "get", "secrets"), false);
    assert.equal(can(vic, "create", "configmaps"), false);
    assert.equal(can(vic, "list", "pods", "elsewhere"), false);
  });

  it("lets edit write workloads and read secrets, but not grant permissions", () => {
    const eddie = user("eddie");
    assert.equal(can(eddie, "get", "secrets"), true);
    assert.equal(can(eddie, "create", "pods/exec"), true);
    assert.equal(can(eddie, "patch", "deployments/scale", "team", "apps"), true);
    assert.equal(can(eddie, "update", "leases", "team", "coordination.k8s.io"), true);
    assert.equal(can(eddie, "create", "roles", "team", "rbac.authorization.k8s.io"), false);
    assert.equal(can(eddie, "update", "resourcequotas"), false);
  });

  it("lets admin manage Roles and RoleBindings of its namespace", () => {
    const ada = user("ada");
    assert.equal(can(ada, "create", "rolebindings", "team", "rbac.authorization.k8s.io"), true);
    assert.equal(
      can(ada, "create", "localsubjectaccessreviews", "team", "authorization.k8s.io"),
      true,
    );
    assert.equal(can(ada, "create", "clusterroles", "", "rbac.authorization.k8s.io"), false);
  });

  it("lets system:masters do anything through cluster-admin", () => {
    const root = user("root", MASTERS_GROUP);
    assert.equal(can(root, "delete", "nodes", "", ""), true);
    assert.equal(get(root, "/anything"), true);
    assert.match(
      rbac.authorize(root, { kind: "non-resource", verb: "get", path: "/x" }).reason,
      /ClusterRoleBinding "cluster-admin"/,
    );
  });

  it("lets every authenticated user discover APIs and review itself, and no more", () => {
    const nobody = serviceAccount("team", "default");
    assert.equal(get(nobody, "/apis/apps/v1"), true);
    assert.equal(get(nobody, "/version"), true);
    assert.equal(get(nobody, "/openid/v1/jwks"), true, "service accounts read the issuer's keys");
    assert.equal(
      can(nobody, "create", "selfsubjectaccessreviews", "", "authorization.k8s.io"),
      true,
    );
    assert.equal(can(nobody, "create", "selfsubjectreviews", "", "authentication.k8s.io"), true);
    assert.equal(can(nobody, "list", "pods"), false);
    assert.equal(get(nobody, "/metrics"), false);
    assert.deepEqual(rbac.rulesFor(nobody, "team").nonResourceRules.length > 0, true);
  });

  it("lets anonymous users read health and version, not the APIs", () => {
    assert.equal(get(ANONYMOUS_USER, "/healthz"), true);
    assert.equal(get(ANONYMOUS_USER, "/version/"), true);
    assert.equal(get(ANONYMOUS_USER, "/api"), false);
    assert.equal(get(ANONYMOUS_USER, "/healthz/etcd"), false);
  });

  it("gives the controller manager and the scheduler their leases and informers", () => {
    const kcm = { username: "system:kube-controller-manager", groups: ["system:authenticated"] };
    assert.equal(can(kcm, "watch", "widgets", "", "example.com"), true);
    assert.equal(can(kcm, "delete", "pods"), false);
    const sched = { username: "system:kube-scheduler", groups: ["system:authenticated"] };
    assert.equal(can(sched, "create", "pods/binding"), true);
    assert.equal(
      can(sched, "get", "leases", "kube-system", "coordination.k8s.io"),
      false,
      "only its own, by name",
    );
  });
});
