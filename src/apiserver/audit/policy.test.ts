import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AccessAttributes } from "../auth/authorizer.ts";
import type { UserInfo } from "../auth/user.ts";
import { AuditPolicyChecker, ruleMatches } from "./policy.ts";
import type { AuditPolicyRule } from "./types.ts";

const alice: UserInfo = { username: "alice", groups: ["devs", "system:authenticated"] };

function res(
  verb: string,
  resource: string,
  more: Partial<Extract<AccessAttributes, { kind: "resource" }>> = {},
): AccessAttributes {
  return {
    kind: "resource",
    verb,
    namespace: "",
    group: "",
    version: "v1",
    resource,
    subresource: "",
    name: "",
    ...more,
  };
}

function path(p: string, verb = "get"): AccessAttributes {
  return { kind: "non-resource", verb, path: p };
}

/** Whether the rule (level Metadata plus `selectors`) matches; a null user: not authenticated. */
function matches(
  selectors: Omit<AuditPolicyRule, "level">,
  a: AccessAttributes,
  user: UserInfo | null = alice,
): boolean {
  return ruleMatches({ level: "Metadata", ...selectors }, user ?? undefined, a);
}

describe("audit policy rules (kube's policy checker)", () => {
  it("matches everything when a rule has no selector", () => {
    assert.equal(matches({}, res("get", "pods")), true);
    assert.equal(matches({}, path("/healthz"), null), true);
  });

  it("selects users by name and by any of their groups; an unauthenticated request has neither", () => {
    assert.equal(matches({ users: ["bob", "alice"] }, res("get", "pods")), true);
    assert.equal(matches({ users: ["bob"] }, res("get", "pods")), false);
    assert.equal(matches({ userGroups: ["ops", "devs"] }, res("get", "pods")), true);
    assert.equal(matches({ userGroups: ["ops"] }, res("get", "pods")), false);
    assert.equal(matches({ users: ["alice"] }, res("get", "pods"), null), false);
    assert.equal(matches({ userGroups: ["devs"] }, res("get", "pods"), null), false);
  });

  it("selects verbs as kube's RequestInfo names them", () => {
    assert.equal(matches({ verbs: ["watch", "list"] }, res("list", "pods")), true);
    assert.equal(matches({ verbs: ["get"] }, res("list", "pods")), false);
    assert.equal(matches({ verbs: ["post"] }, path("/api", "post")), true);
  });

  it("selects namespaces, with '' for cluster-scoped requests, on resource requests only", () => {
    assert.equal(matches({ namespaces: ["a"] }, res("get", "pods", { namespace: "a" })), true);
    assert.equal(matches({ namespaces: ["a"] }, res("get", "pods", { namespace: "b" })), false);
    assert.equal(matches({ namespaces: [""] }, res("get", "nodes")), true);
    assert.equal(matches({ namespaces: [""] }, path("/version")), false);
  });

  it("selects resources by group, resource, subresource and name, with kube's wildcards", () => {
    const log = res("get", "pods", { subresource: "log", name: "p1", namespace: "a" });
    const scale = res("update", "deployments", { group: "apps", subresource: "scale" });
    const cases: [AuditPolicyRule["resources"], AccessAttributes, boolean][] = [
      [[{ group: "", resources: ["pods"] }], res("get", "pods"), true],
      [[{ resources: ["pods"] }], res("get", "pods"), true], // group "" by default
      [[{ group: "apps", resources: ["pods"] }], res("get", "pods"), false],
      [[{ group: "*", resources: ["deployments/scale"] }], scale, true],
      [[{ group: "" }], res("get", "secrets"), true], // every resource of the group
      [[{ group: "", resources: ["pods"] }], log, false], // a subresource is not its resource
      [[{ group: "", resources: ["pods/log"] }], log, true],
      [[{ group: "", resources: ["pods/*"] }], log, true],
      [[{ group: "", resources: ["pods/*"] }], res("get", "pods"), true], // kube's: the resource too
      [[{ group: "apps", resources: ["*/scale"] }], scale, true],
      [[{ group: "", resources: ["*/scale"] }], log, false],
      [[{ group: "", resources: ["*"] }], log, true],
      [[{ group: "", resources: ["pods/log"], resourceNames: ["p1"] }], log, true],
      [[{ group: "", resources: ["pods/log"], resourceNames: ["p2"] }], log, false],
      [[{ group: "x.io" }, { group: "", resources: ["pods/log"] }], log, true], // any entry
      [[{ group: "", resources: ["pods"] }], path("/api/v1/pods"), false],
    ];
    for (const [resources, a, want] of cases) {
      assert.equal(matches({ resources }, a), want, JSON.stringify({ resources, a }));
    }
  });

  it("selects non-resource URLs exactly, by '*', or by a prefix ending '*', on other paths only", () => {
    assert.equal(matches({ nonResourceURLs: ["/healthz"] }, path("/healthz")), true);
    assert.equal(matches({ nonResourceURLs: ["/healthz"] }, path("/healthz/etcd")), false);
    assert.equal(matches({ nonResourceURLs: ["/healthz*"] }, path("/healthz/etcd")), true);
    assert.equal(matches({ nonResourceURLs: ["*"] }, path("/metrics")), true);
    assert.equal(matches({ nonResourceURLs: ["*"] }, res("get", "pods")), false);
  });

  it("needs every selector of a rule to match", () => {
    const rule = { users: ["alice"], verbs: ["delete"], resources: [{ resources: ["pods"] }] };
    assert.equal(matches(rule, res("delete", "pods")), true);
    assert.equal(matches(rule, res("get", "pods")), false);
    assert.equal(matches(rule, res("delete", "pods"), { username: "bob", groups: [] }), false);
  });
});

describe("AuditPolicyChecker", () => {
  const checker = new AuditPolicyChecker({
    omitStages: ["RequestReceived"],
    omitManagedFields: true,
    rules: [
      { level: "None", users: ["system:kube-proxy"] },
      {
        level: "RequestResponse",
        resources: [{ resources: ["configmaps"] }],
        omitStages: ["Panic"],
      },
      { level: "Request", verbs: ["create"], omitManagedFields: false },
      { level: "Metadata", namespaces: ["a"] },
    ],
  });

  it("lets the first rule that matches decide, with the policy's omitted stages added to its own", () => {
    assert.deepEqual(checker.decide(alice, res("create", "configmaps")), {
      level: "RequestResponse",
      omitStages: ["RequestReceived", "Panic"],
      omitManagedFields: true,
    });
    assert.deepEqual(checker.decide(alice, res("create", "secrets", { namespace: "a" })), {
      level: "Request",
      omitStages: ["RequestReceived"],
      omitManagedFields: false,
    });
    assert.equal(
      checker.decide(alice, res("get", "secrets", { namespace: "a" })).level,
      "Metadata",
    );
    const proxy = { username: "system:kube-proxy", groups: [] };
    assert.equal(checker.decide(proxy, res("create", "configmaps")).level, "None");
  });

  it("records nothing (level None) of a request no rule matches", () => {
    assert.deepEqual(checker.decide(alice, res("get", "secrets", { namespace: "b" })), {
      level: "None",
      omitStages: ["RequestReceived"],
      omitManagedFields: true,
    });
  });
});
