import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError } from "../../core/index.ts";
import type { AccessAttributes } from "./authorizer.ts";
import { alwaysAllow } from "./authorizer.ts";
import { Impersonation, type ImpersonationHeaders } from "./impersonation.ts";
import { clusterRole, clusterRoleBinding, rule, urlRule } from "./rbac/fixtures.test-helper.ts";
import {
  MemoryRbacObjects,
  privilegedGroups,
  RbacAuthorizer,
  unionAuthorizer,
} from "./rbac/index.ts";
import type { UserInfo } from "./user.ts";

/*
 * The answers here are those a kube-apiserver 1.36 (RBAC, constrained impersonation on by
 * default) gave to the same requests, word for word.
 */

const user = (username: string, ...groups: string[]): UserInfo => ({
  username,
  groups: [...groups, "system:authenticated"],
});
const ADMIN = user("admin", "system:masters");
const ALICE = user("alice");
const IMP = user("imp");
const EG = user("eg");

/** RBAC as kube-apiserver runs it: system:masters first, then the roles below. */
function rbac() {
  const objects = new MemoryRbacObjects({
    clusterRoles: [
      clusterRole(
        "legacy-imp",
        rule("impersonate", "", "users", "jane"),
        rule("impersonate", "", "groups", "devs"),
        rule("list", "", "pods"),
      ),
      clusterRole(
        "con-imp",
        rule("impersonate-on:user-info:list,list", "", "pods"),
        rule(
          "impersonate:user-info",
          "authentication.k8s.io",
          "users,groups,uids,userextras/scopes",
        ),
        urlRule("get", "/healthz"),
      ),
    ],
    clusterRoleBindings: [
      clusterRoleBinding("legacy-imp", "legacy-imp", "User:imp"),
      clusterRoleBinding("con-imp", "con-imp", "User:eg"),
    ],
  });
  return unionAuthorizer([privilegedGroups(["system:masters"]), new RbacAuthorizer({ objects })]);
}

const listPods = (namespace = ""): AccessAttributes & { kind: "resource" } => ({
  kind: "resource",
  verb: "list",
  namespace,
  group: "",
  version: "v1",
  resource: "pods",
  subresource: "",
  name: "",
});
const createReview: AccessAttributes = {
  kind: "resource",
  verb: "create",
  namespace: "",
  group: "authentication.k8s.io",
  version: "v1",
  resource: "selfsubjectreviews",
  subresource: "",
  name: "",
};

/** `imp.impersonate` of a request that does `request`. */
function impersonate(
  imp: Impersonation,
  requestor: UserInfo,
  asked: ImpersonationHeaders,
  request: AccessAttributes,
): UserInfo {
  return imp.impersonate(requestor, asked, () => request);
}

/** Headers as Node gives them (`headersDistinct`) from name/value pairs. */
function headers(...pairs: [string, string][]): ImpersonationHeaders {
  const out: Record<string, string[]> = {};
  for (const [name, value] of pairs) {
    const key = name.toLowerCase();
    out[key] = [...(out[key] ?? []), value];
  }
  return out;
}

/** The Status message (and code) of what `fn` throws. */
function refusal(fn: () => unknown): { code: number; message: string } {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApiError, String(err));
    return { code: err.status.code ?? 0, message: err.status.message ?? "" };
  }
  return assert.fail("impersonation was allowed");
}

describe("Impersonation", () => {
  it("acts as the requester when no user is asked for", () => {
    const imp = new Impersonation(rbac());
    assert.equal(impersonate(imp, ALICE, headers(), listPods()), ALICE);
    assert.equal(impersonate(imp, ALICE, headers(["Impersonate-User", ""]), listPods()), ALICE);
  });

  it("answers 400 for groups, a uid or extras without a user, printing what was asked as kube", () => {
    const imp = new Impersonation(alwaysAllow);
    assert.deepEqual(
      refusal(() => impersonate(imp, ALICE, headers(["Impersonate-Group", "devs"]), listPods())),
      {
        code: 400,
        message:
          'requested &user.DefaultInfo{Name:"", UID:"", Groups:[]string{"devs"}, Extra:map[string][]string(nil)} without impersonating a user name',
      },
    );
    const extras = headers(
      ["Impersonate-Extra-Foo", "bar"],
      ["Impersonate-Extra-foo", "baz"],
      ["Impersonate-Uid", "u1"],
    );
    assert.equal(
      refusal(() => impersonate(imp, ALICE, extras, listPods())).message,
      'requested &user.DefaultInfo{Name:"", UID:"u1", Groups:[]string(nil), Extra:map[string][]string{"foo":[]string{"bar", "baz"}}} without impersonating a user name',
    );
    const odd = headers(
      ["Impersonate-Uid", "1"],
      ["Impersonate-Group", "x\\y"],
      ["Impersonate-Extra-%C3%A9", Buffer.from("ü").toString("latin1")],
      ["Impersonate-Extra-%zz", "v"],
    );
    assert.equal(
      refusal(() => impersonate(imp, ALICE, odd, listPods())).message,
      'requested &user.DefaultInfo{Name:"", UID:"1", Groups:[]string{"x\\\\y"}, Extra:map[string][]string{"%zz":[]string{"v"}, "é":[]string{"ü"}}} without impersonating a user name',
    );
  });

  it("lets anyone impersonate anything under AlwaysAllow, falling back to the legacy mode", () => {
    const imp = new Impersonation(alwaysAllow);
    const asked = headers(
      ["Impersonate-User", "jane"],
      ["Impersonate-Group", "devs"],
      ["Impersonate-Group", "system:masters"],
      ["Impersonate-Uid", "u1"],
      ["Impersonate-Extra-Scopes", "a"],
      ["Impersonate-Extra-Scopes", "b"],
      ["Impersonate-Extra-a%2Fb", "c"],
    );
    assert.deepEqual(impersonate(imp, ALICE, asked, createReview), {
      username: "jane",
      uid: "u1",
      groups: ["devs", "system:masters", "system:authenticated"],
      extra: { scopes: ["a", "b"], "a/b": ["c"] },
    });
  });

  it("gives service accounts their groups unless groups are asked for, anonymous its own", () => {
    const imp = new Impersonation(rbac());
    const as = (...pairs: [string, string][]) =>
      impersonate(imp, ADMIN, headers(...pairs), createReview).groups;
    assert.deepEqual(as(["Impersonate-User", "system:serviceaccount:x:y"]), [
      "system:serviceaccounts",
      "system:serviceaccounts:x",
      "system:authenticated",
    ]);
    assert.deepEqual(
      as(["Impersonate-User", "system:serviceaccount:x:y"], ["Impersonate-Group", "g"]),
      ["g", "system:authenticated"],
    );
    assert.deepEqual(as(["Impersonate-User", "system:anonymous"]), ["system:unauthenticated"]);
    assert.deepEqual(
      as(["Impersonate-User", "x"], ["Impersonate-Group", "system:unauthenticated"]),
      ["system:unauthenticated"],
    );
  });

  it("says which mode allowed it, as kube's audit names it", () => {
    const imp = new Impersonation(rbac());
    const as = (name: string) =>
      imp.impersonation(IMP, headers(["Impersonate-User", name]), () => listPods())?.constraint;
    assert.equal(as("jane"), "");
    assert.equal(
      imp.impersonation(IMP, headers(), () => listPods()),
      undefined,
    );
    const eg = new Impersonation(rbac());
    const asked = headers(["Impersonate-User", "x"]);
    assert.equal(
      eg.impersonation(EG, asked, () => listPods())?.constraint,
      "impersonate:user-info",
    );
  });

  it("makes a node system:nodes in the node mode, and not once the legacy mode was last used", () => {
    const node = headers(["Impersonate-User", "system:node:n1"]);
    const fresh = new Impersonation(rbac());
    assert.deepEqual(impersonate(fresh, ADMIN, node, createReview).groups, [
      "system:nodes",
      "system:authenticated",
    ]);
    const used = new Impersonation(rbac());
    impersonate(
      used,
      ADMIN,
      headers(["Impersonate-User", "j"], ["Impersonate-Group", "system:masters"]),
      createReview,
    );
    assert.deepEqual(impersonate(used, ADMIN, node, createReview).groups, ["system:authenticated"]);
  });

  it("refuses a requester without rights with the first mode's refusal, as kube words it", () => {
    const imp = new Impersonation(rbac());
    const as = (name: string, request: AccessAttributes, ...more: [string, string][]) =>
      refusal(() => impersonate(imp, ALICE, headers(["Impersonate-User", name], ...more), request));
    assert.deepEqual(as("jane", listPods("x")), {
      code: 403,
      message:
        'pods is forbidden: User "alice" cannot impersonate-on:user-info:list resource "pods" in API group "" in the namespace "x"',
    });
    assert.equal(
      as("jane", createReview).message,
      'selfsubjectreviews.authentication.k8s.io is forbidden: User "alice" cannot impersonate-on:user-info:create resource "selfsubjectreviews" in API group "authentication.k8s.io" at the cluster scope',
    );
    assert.match(
      as("system:serviceaccount:x:y", listPods("x")).message,
      /cannot impersonate-on:serviceaccount:list resource "pods"/,
    );
    assert.match(
      as("system:node:n1", listPods("x")).message,
      /cannot impersonate-on:arbitrary-node:list resource "pods"/,
    );
    // Not valid as a node or a service account: an ordinary user.
    assert.match(as("system:node:N_1", listPods()).message, /impersonate-on:user-info:list/);
    assert.match(
      as("system:serviceaccount:a:b:c", listPods()).message,
      /impersonate-on:user-info:list/,
    );
    // A service account or node with groups is for the legacy mode only.
    assert.equal(
      as("system:serviceaccount:x:y", listPods("x"), ["Impersonate-Group", "g"]).message,
      'serviceaccounts "y" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "x"',
    );
    assert.equal(
      as("system:node:n1", listPods("x"), ["Impersonate-Group", "g"]).message,
      'users "system:node:n1" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
    const healthz: AccessAttributes = { kind: "non-resource", verb: "get", path: "/healthz" };
    assert.equal(
      as("jane", healthz).message,
      'forbidden: User "alice" cannot impersonate-on:user-info:get path "/healthz"',
    );
  });

  it("checks the legacy verb on users, groups, uids and extras, its refusals first once it succeeded", () => {
    const imp = new Impersonation(rbac());
    const as = (...pairs: [string, string][]) =>
      impersonate(imp, IMP, headers(...pairs), listPods());
    const fails = (...pairs: [string, string][]) => refusal(() => as(...pairs)).message;
    assert.match(fails(["Impersonate-User", "bob"]), /cannot impersonate-on:user-info:list/);
    assert.deepEqual(as(["Impersonate-User", "jane"], ["Impersonate-Group", "devs"]), {
      username: "jane",
      groups: ["devs", "system:authenticated"],
    });
    assert.equal(
      fails(["Impersonate-User", "bob"]),
      'users "bob" is forbidden: User "imp" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
    assert.equal(
      fails(["Impersonate-User", "jane"], ["Impersonate-Group", "ops"]),
      'groups "ops" is forbidden: User "imp" cannot impersonate resource "groups" in API group "" at the cluster scope',
    );
    assert.equal(
      fails(["Impersonate-User", "jane"], ["Impersonate-Uid", "7"]),
      'uids.authentication.k8s.io "7" is forbidden: User "imp" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope',
    );
    assert.equal(
      fails(["Impersonate-User", "jane"], ["Impersonate-Extra-Scopes", "s1"]),
      'userextras.authentication.k8s.io "s1" is forbidden: User "imp" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope',
    );
  });

  it("refuses in the user-info mode what kube refuses before asking: system:masters, empty groups, bad extras", () => {
    const imp = new Impersonation(rbac());
    const fails = (...more: [string, string][]) =>
      refusal(() => impersonate(imp, EG, headers(["Impersonate-User", "x"], ...more), listPods()))
        .message;
    const prefix =
      'User "eg" cannot impersonate:user-info resource "userextras" in API group "authentication.k8s.io" at the cluster scope';
    assert.equal(
      fails(["Impersonate-Group", "system:masters"]),
      'groups.authentication.k8s.io "system:masters" is forbidden: User "eg" cannot impersonate:user-info resource "groups" in API group "authentication.k8s.io" at the cluster scope: impersonating the system:masters group is not allowed',
    );
    assert.equal(
      fails(["Impersonate-Group", ""]),
      'groups.authentication.k8s.io is forbidden: User "eg" cannot impersonate:user-info resource "groups" in API group "authentication.k8s.io" at the cluster scope: impersonating the empty string group is not allowed',
    );
    const extra = (key: string, value = "v") => fails([`Impersonate-Extra-${key}`, value]);
    const regex = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
    const subdomain = `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '${regex}')`;
    const path = "Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')";
    const table: [string, string, string][] = [
      ["", "v", "impersonating the empty string key in extra is not allowed"],
      [
        "%41",
        "v",
        'impersonating an invalid key in extra is not allowed: extra.key: Invalid value: "A": must be a domain-prefixed path (such as "acme.io/foo")',
      ],
      ["a.io%2Fscopes", "", "impersonating the empty string value in extra is not allowed"],
      [
        "A_b%2Fscopes",
        "v",
        `impersonating an invalid key in extra is not allowed: extra.key: Invalid value: "a_b": ${subdomain}`,
      ],
      [
        "a.io%2Fsc%20opes",
        "v",
        `impersonating an invalid key in extra is not allowed: extra.key: Invalid value: "sc opes": ${path}`,
      ],
      ["a.io%2F%41", "v", 'impersonating a non-lowercase key in extra is not allowed: "a.io/A"'],
      [
        "a..b%2F%5B",
        "v",
        `impersonating an invalid key in extra is not allowed: [extra.key: Invalid value: "a..b": ${subdomain}, extra.key: Invalid value: "[": ${path}]`,
      ],
    ];
    for (const [key, value, why] of table) {
      assert.equal(
        extra(key, value),
        `userextras.authentication.k8s.io is forbidden: ${prefix}: ${why}`,
        key,
      );
    }
    assert.deepEqual(
      impersonate(
        imp,
        EG,
        headers(["Impersonate-User", "x"], ["Impersonate-Group", "a"], ["Impersonate-Uid", "1"]),
        listPods(),
      ),
      { username: "x", uid: "1", groups: ["a", "system:authenticated"] },
    );
    assert.equal(
      extra("a.io%2Fz"),
      'userextras.authentication.k8s.io "v" is forbidden: User "eg" cannot impersonate:user-info resource "userextras/a.io/z" in API group "authentication.k8s.io" at the cluster scope',
    );
    assert.equal(
      refusal(() =>
        impersonate(imp, EG, headers(["Impersonate-User", "x"]), {
          ...listPods("default"),
          verb: "get",
          resource: "namespaces",
          name: "default",
        }),
      ).message,
      'namespaces "default" is forbidden: User "eg" cannot impersonate-on:user-info:get resource "namespaces" in API group "" in the namespace "default"',
    );
  });
});
