import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { alwaysAllow } from "../authorizer.ts";
import { MASTERS_GROUP } from "../user.ts";
import { EscalationChecks, onlyGcFieldsChange } from "./escalation.ts";
import {
  clusterRole,
  clusterRoleBinding,
  role,
  roleBinding,
  rule,
  urlRule,
  user,
} from "./fixtures.test-helper.ts";
import { MemoryRbacObjects } from "./objects.ts";
import { RbacAuthorizer } from "./rbac-authorizer.ts";
import type { ClusterRole } from "./types.ts";
import { privilegedGroups, unionAuthorizer } from "./union.ts";

const bob = user("bob");
const objects = new MemoryRbacObjects({
  roles: [
    role("ns", "pod-reader", rule("get,list", "", "pods")),
    role("ns", "secret-writer", rule("create", "", "secrets")),
  ],
  clusterRoles: [
    clusterRole("pod-reader", rule("get,list", "", "pods")),
    clusterRole(
      "rbac-manager",
      rule("create,update", "rbac.authorization.k8s.io", "roles,rolebindings,clusterroles"),
    ),
    clusterRole("escalator", rule("escalate", "rbac.authorization.k8s.io", "roles")),
    clusterRole(
      "named-escalator",
      rule("escalate", "rbac.authorization.k8s.io", "clusterroles", "mine"),
    ),
    clusterRole("binder", rule("bind", "rbac.authorization.k8s.io", "clusterroles", "admin")),
    clusterRole("all", rule("*", "*", "*"), urlRule("*", "*")),
    clusterRole("admin", rule("*", "", "secrets")),
  ],
  roleBindings: [
    roleBinding("ns", "bob-reads", "Role:pod-reader", "User:bob"),
    roleBinding("ns", "bob-manages", "ClusterRole:rbac-manager", "User:bob"),
    roleBinding("esc", "bob-escalates", "ClusterRole:escalator", "User:bob"),
    roleBinding("bind", "bob-binds", "ClusterRole:binder", "User:bob"),
  ],
  clusterRoleBindings: [
    clusterRoleBinding("root", "all", "User:root"),
    clusterRoleBinding("mine", "named-escalator", "User:carol"),
  ],
});
const authorizer = unionAuthorizer([
  privilegedGroups([MASTERS_GROUP]),
  new RbacAuthorizer({ objects }),
]);
const checks = new EscalationChecks({ authorizer, objects });

function roleWrite(
  object: ClusterRole,
  more: Partial<Parameters<EscalationChecks["checkRoleWrite"]>[0]> = {},
) {
  return checks.checkRoleWrite({
    user: bob,
    resource: "roles",
    namespace: "ns",
    requestName: "",
    object,
    ...more,
  });
}

describe("EscalationChecks: roles", () => {
  it("lets a user create a Role with rules it holds in the namespace", () => {
    assert.equal(roleWrite(role("ns", "r", rule("get", "", "pods"))), undefined);
  });

  it("refuses rules the user does not hold, listing them as kube does", () => {
    const err = roleWrite(
      role("ns", "r", rule("get,list,watch", "", "pods,secrets"), urlRule("get", "/metrics")),
    );
    assert.equal(err?.code, 403);
    assert.equal(err?.reason, "Forbidden");
    assert.deepEqual(err?.details, {
      name: "r",
      group: "rbac.authorization.k8s.io",
      kind: "roles",
    });
    assert.equal(
      err?.status.message,
      'roles.rbac.authorization.k8s.io "r" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["pods"], Verbs:["watch"]}\n' +
        '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list" "watch"]}\n' +
        '{NonResourceURLs:["/metrics"], Verbs:["get"]}',
    );
  });

  it("counts only the rules held in the request's namespace", () => {
    assert.notEqual(
      roleWrite(role("other", "r", rule("get", "", "pods")), { namespace: "other" }),
      undefined,
    );
  });

  it("lets a user who may escalate roles write any Role", () => {
    assert.equal(roleWrite(role("esc", "r", rule("*", "*", "*")), { namespace: "esc" }), undefined);
  });

  it("asks escalate with the request's name: a rule limited to names does not allow a create by POST", () => {
    const carol = user("carol");
    const wide = { ...clusterRole("mine", rule("*", "", "pods")) };
    const write = { user: carol, resource: "clusterroles" as const, namespace: "", object: wide };
    assert.equal(checks.checkRoleWrite({ ...write, requestName: "mine" }), undefined);
    assert.equal(checks.checkRoleWrite({ ...write, requestName: "" })?.code, 403);
  });

  it("lets system:masters write anything, and everyone under an authorizer that allows escalate", () => {
    const all = role("x", "r", rule("*", "*", "*"));
    assert.equal(roleWrite(all, { user: user("m", MASTERS_GROUP), namespace: "x" }), undefined);
    const open = new EscalationChecks({ authorizer: alwaysAllow, objects });
    assert.equal(
      open.checkRoleWrite({
        user: bob,
        resource: "roles",
        namespace: "x",
        requestName: "",
        object: all,
      }),
      undefined,
    );
  });

  it("requires every permission to set, keep or drop an aggregationRule", () => {
    const aggregated: ClusterRole = {
      ...clusterRole("agg"),
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: "b" } }] },
    };
    const carol = user("carol");
    const write = {
      user: carol,
      resource: "clusterroles" as const,
      namespace: "",
      requestName: "mine",
    };
    const refused = checks.checkRoleWrite({ ...write, requestName: "", object: aggregated });
    assert.equal(
      refused?.status.message,
      'clusterroles.rbac.authorization.k8s.io "agg" is forbidden: must have cluster-admin privileges to use the aggregationRule',
    );
    const dropping = checks.checkRoleWrite({
      ...write,
      requestName: "",
      object: clusterRole("agg"),
      oldObject: { ...aggregated, rules: [rule("get", "", "x")] },
    });
    assert.equal(dropping?.code, 403);
    const root = user("root");
    assert.equal(
      checks.checkRoleWrite({ ...write, user: root, requestName: "", object: aggregated }),
      undefined,
    );
    const empty: ClusterRole = {
      ...clusterRole("agg"),
      aggregationRule: { clusterRoleSelectors: [] },
    };
    assert.equal(checks.checkRoleWrite({ ...write, requestName: "", object: empty }), undefined);
  });

  it("lets an update through that changes only what the garbage collector writes", () => {
    const old = role("ns", "r", rule("*", "*", "*"));
    const next = { ...old, metadata: { ...old.metadata, finalizers: ["x"], ownerReferences: [] } };
    assert.equal(roleWrite(next, { oldObject: old, requestName: "r" }), undefined);
    assert.equal(roleWrite(next)?.code, 403, "a create is always checked");
  });

  it("adds the errors met reading the user's rules, worded as the resource being written", () => {
    // kube reads the roles through the registry in the write's context: a missing Role or
    // ClusterRole is named as the request's resource, and two of the same name are one error.
    const o = new MemoryRbacObjects({
      roleBindings: [
        roleBinding("ns", "a", "Role:gone", "User:bob"),
        roleBinding("ns", "b", "ClusterRole:gone", "User:bob"),
        roleBinding("ns", "c", "ClusterRole:lost", "User:bob"),
      ],
    });
    const c = new EscalationChecks({ authorizer: new RbacAuthorizer({ objects: o }), objects: o });
    const err = c.checkRoleWrite({
      user: bob,
      resource: "roles",
      namespace: "ns",
      requestName: "",
      object: role("ns", "", rule("get", "", "pods")),
    });
    assert.equal(
      err?.status.message,
      'roles.rbac.authorization.k8s.io is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["pods"], Verbs:["get"]}; resolution errors: [[roles.rbac.authorization.k8s.io "gone" not found, roles.rbac.authorization.k8s.io "lost" not found]]',
    );
    const binding = c.checkBindingWrite({
      user: bob,
      resource: "rolebindings",
      namespace: "ns",
      object: roleBinding("ns", "x", "ClusterRole:gone", "User:eve"),
    });
    assert.equal(
      binding?.status.message,
      'rolebindings.rbac.authorization.k8s.io "gone" not found',
    );
  });
});

describe("EscalationChecks: bindings", () => {
  const bindingWrite = (
    object: ReturnType<typeof roleBinding>,
    more: Partial<Parameters<EscalationChecks["checkBindingWrite"]>[0]> = {},
  ) =>
    checks.checkBindingWrite({
      user: bob,
      resource: "rolebindings",
      namespace: "ns",
      object,
      ...more,
    });

  it("lets a user bind a role whose rules it holds", () => {
    assert.equal(bindingWrite(roleBinding("ns", "b", "Role:pod-reader", "User:eve")), undefined);
    assert.equal(
      bindingWrite(roleBinding("ns", "b", "ClusterRole:pod-reader", "User:eve")),
      undefined,
    );
  });

  it("refuses to bind a role with rules the user does not hold", () => {
    const err = bindingWrite(roleBinding("ns", "b", "Role:secret-writer", "User:eve"));
    assert.equal(err?.code, 403);
    assert.deepEqual(err?.details, {
      name: "b",
      group: "rbac.authorization.k8s.io",
      kind: "rolebindings",
    });
    assert.equal(
      err?.status.message,
      'rolebindings.rbac.authorization.k8s.io "b" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["secrets"], Verbs:["create"]}',
    );
  });

  it("lets a user who may bind the role bind it, in the namespace where bind is granted", () => {
    const admin = roleBinding("bind", "b", "ClusterRole:admin", "User:eve");
    assert.equal(bindingWrite(admin, { namespace: "bind" }), undefined);
    assert.equal(bindingWrite({ ...admin, metadata: { namespace: "ns", name: "b" } })?.code, 403);
  });

  it("checks a ClusterRoleBinding against the user's cluster-wide rules", () => {
    const crb = clusterRoleBinding("c", "pod-reader", "User:eve");
    assert.equal(
      checks.checkBindingWrite({
        user: bob,
        resource: "clusterrolebindings",
        namespace: "",
        object: crb,
      })?.code,
      403,
    );
    assert.equal(
      checks.checkBindingWrite({
        user: user("root"),
        resource: "clusterrolebindings",
        namespace: "",
        object: crb,
      }),
      undefined,
    );
  });

  it("answers a binding to a missing role with a 404 naming the binding's resource, as kube does", () => {
    const err = bindingWrite(roleBinding("ns", "b", "Role:gone", "User:eve"));
    assert.equal(err?.code, 404);
    assert.equal(err?.reason, "NotFound");
    assert.equal(err?.status.message, 'rolebindings.rbac.authorization.k8s.io "gone" not found');
    assert.deepEqual(err?.details, {
      name: "gone",
      group: "rbac.authorization.k8s.io",
      kind: "rolebindings",
    });
    const crb = checks.checkBindingWrite({
      user: bob,
      resource: "clusterrolebindings",
      namespace: "",
      object: clusterRoleBinding("c", "gone", "User:eve"),
    });
    assert.equal(
      crb?.status.message,
      'clusterrolebindings.rbac.authorization.k8s.io "gone" not found',
    );
  });

  it("answers a roleRef of an unknown kind with a 500 without reason, as kube's storage does before validation", () => {
    const err = bindingWrite(roleBinding("ns", "b", "Thing:x", "User:eve"));
    assert.equal(err?.code, 500);
    assert.equal(bindingWrite(roleBinding("ns", "b", "toString:x", "User:eve"))?.code, 500);
    assert.equal(err?.status.reason, undefined);
    assert.equal(err?.status.message, 'unsupported role reference kind: "Thing"');
  });

  it("lets system:masters bind anything, and an update that changes only GC fields through", () => {
    const b = roleBinding("ns", "b", "Role:gone", "User:eve");
    assert.equal(bindingWrite(b, { user: user("m", MASTERS_GROUP) }), undefined);
    const next = {
      ...b,
      metadata: { ...b.metadata, finalizers: ["f"], managedFields: [{ manager: "x" }] },
    };
    assert.equal(bindingWrite(next, { oldObject: b }), undefined);
    assert.equal(bindingWrite({ ...next, subjects: [] }, { oldObject: b })?.code, 404);
  });
});

describe("onlyGcFieldsChange", () => {
  const base = { metadata: { name: "r", labels: { a: "b" } }, rules: [{ verbs: ["get"] }] };

  it("ignores finalizers, ownerReferences, selfLink and managedFields", () => {
    const next = {
      ...base,
      metadata: {
        ...base.metadata,
        finalizers: ["f"],
        ownerReferences: [{}],
        selfLink: "/x",
        managedFields: [{}],
      },
    };
    assert.equal(onlyGcFieldsChange(next, base), true);
  });

  it("sees any other change, and counts absent, null, '' and empty lists and maps equal", () => {
    assert.equal(onlyGcFieldsChange({ ...base, rules: [] }, base), false);
    assert.equal(
      onlyGcFieldsChange({ ...base, metadata: { ...base.metadata, labels: { a: "c" } } }, base),
      false,
    );
    assert.equal(
      onlyGcFieldsChange({ ...base, rules: [{ verbs: ["get"], apiGroups: null }] }, base),
      true,
    );
    assert.equal(
      onlyGcFieldsChange(
        { ...base, metadata: { ...base.metadata, namespace: "", annotations: {} } },
        base,
      ),
      true,
    );
    assert.equal(onlyGcFieldsChange({ ...base, rules: { 0: { verbs: ["get"] } } }, base), false);
  });
});
