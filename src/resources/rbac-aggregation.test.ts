import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  aggregateClusterRoles,
  aggregatedRules,
  type AggregatedRole as ClusterRole,
  type AggregationRule as PolicyRule,
  sameRules,
} from "./rbac-aggregation.ts";

type LabelSelectorSpec = NonNullable<
  NonNullable<ClusterRole["aggregationRule"]>["clusterRoleSelectors"]
>[number];

/** A rule from comma-separated verbs, groups and resources. */
function rule(verbs: string, groups: string, resources: string): PolicyRule {
  return { verbs: verbs.split(","), apiGroups: groups.split(","), resources: resources.split(",") };
}

/** A rule on non-resource URLs. */
function urlRule(verbs: string, urls: string): PolicyRule {
  return { verbs: verbs.split(","), nonResourceURLs: urls.split(",") };
}

function part(name: string, labels: Record<string, string>, ...rules: PolicyRule[]): ClusterRole {
  return { metadata: { name, labels }, rules };
}

function aggregate(
  name: string,
  selectors: LabelSelectorSpec[] | null,
  labels: Record<string, string> = {},
): ClusterRole {
  return {
    metadata: { name, labels },
    aggregationRule: { clusterRoleSelectors: selectors },
    rules: null,
  };
}

describe("aggregatedRules", () => {
  it("gathers the rules of matching roles, by role name, each rule once, skipping itself", () => {
    const roles = [
      part("b", { agg: "yes" }, rule("get", "", "pods"), rule("list", "", "pods")),
      part("a", { agg: "yes" }, rule("list", "", "pods"), urlRule("get", "/x")),
      part("c", { agg: "no" }, rule("delete", "", "pods")),
    ];
    const self = aggregate("self", [{ matchLabels: { agg: "yes" } }], { agg: "yes" });
    assert.deepEqual(aggregatedRules(self, [...roles, self]), [
      rule("list", "", "pods"),
      urlRule("get", "/x"),
      rule("get", "", "pods"),
    ]);
  });

  it("takes selectors in order, and a rule already gathered by an earlier one is not repeated", () => {
    const roles = [
      part("z", { first: "1" }, rule("get", "", "a")),
      part("a", { second: "1" }, rule("get", "", "b"), rule("get", "", "a")),
    ];
    const self = aggregate("self", [
      { matchLabels: { first: "1" } },
      { matchExpressions: [{ key: "second", operator: "Exists" }] },
    ]);
    assert.deepEqual(aggregatedRules(self, roles), [rule("get", "", "a"), rule("get", "", "b")]);
  });

  it("counts rules equal when their lists are, absent and empty alike, and writes only the rule fields", () => {
    const loose = {
      verbs: ["get"],
      apiGroups: [""],
      resources: ["pods"],
      resourceNames: [],
      nonResourceURLs: null,
    };
    const extra = { ...rule("get", "", "pods"), note: "dropped" } as PolicyRule;
    const roles = [
      part("a", { x: "1" }, loose),
      part("b", { x: "1" }, extra, rule("list", "", "pods")),
    ];
    assert.deepEqual(aggregatedRules(aggregate("s", [{ matchLabels: { x: "1" } }]), roles), [
      { apiGroups: [""], resources: ["pods"], verbs: ["get"] },
      rule("list", "", "pods"),
    ]);
  });

  it("has nothing to say of a role without aggregationRule, and gives none to one without selectors", () => {
    const roles = [part("a", {}, rule("get", "", "pods"))];
    assert.equal(aggregatedRules(part("plain", {}), roles), undefined);
    assert.equal(
      aggregatedRules({ metadata: { name: "n" }, aggregationRule: null }, roles),
      undefined,
    );
    assert.deepEqual(aggregatedRules(aggregate("none", null), roles), []);
    assert.deepEqual(aggregatedRules(aggregate("none", []), roles), []);
  });

  it("lets an empty selector match every role", () => {
    const roles = [
      part("a", {}, rule("get", "", "pods")),
      part("b", { l: "v" }, rule("get", "", "nodes")),
    ];
    assert.deepEqual(aggregatedRules(aggregate("all", [{}]), roles), [
      rule("get", "", "pods"),
      rule("get", "", "nodes"),
    ]);
  });

  it("refuses a bad selector naming the role and the selector", () => {
    const bad = aggregate("broken", [{}, { matchExpressions: [{ key: "k", operator: "In" }] }]);
    assert.throws(
      () => aggregatedRules(bad, []),
      (err: unknown) =>
        err instanceof TypeError &&
        /ClusterRole "broken": aggregationRule\.clusterRoleSelectors\[1\]: .*values/.test(
          err.message,
        ),
    );
  });
});

describe("aggregateClusterRoles", () => {
  it("settles a chain whatever the order of the roles (view into edit into admin)", () => {
    const roles = [
      aggregate("admin", [{ matchLabels: { "to-admin": "true" } }]),
      aggregate("edit", [{ matchLabels: { "to-edit": "true" } }], { "to-admin": "true" }),
      aggregate("view", [{ matchLabels: { "to-view": "true" } }], { "to-edit": "true" }),
      part("p-admin", { "to-admin": "true" }, rule("*", "rbac.authorization.k8s.io", "roles")),
      part("p-edit", { "to-edit": "true" }, rule("create", "", "pods")),
      part("p-view", { "to-view": "true" }, rule("get", "", "pods")),
    ];
    for (const order of [roles, [...roles].reverse()]) {
      const changed = aggregateClusterRoles(order);
      assert.deepEqual([...changed.keys()].sort(), ["admin", "edit", "view"]);
      assert.deepEqual(changed.get("view"), [rule("get", "", "pods")]);
      assert.deepEqual(changed.get("edit"), [rule("create", "", "pods"), rule("get", "", "pods")]);
      assert.deepEqual(changed.get("admin"), [
        rule("create", "", "pods"),
        rule("get", "", "pods"),
        rule("*", "rbac.authorization.k8s.io", "roles"),
      ]);
    }
  });

  it("returns nothing when every aggregated role already has its rules", () => {
    const roles = [
      { ...aggregate("v", [{ matchLabels: { p: "1" } }]), rules: [rule("get", "", "pods")] },
      part("p", { p: "1" }, rule("get", "", "pods")),
    ];
    assert.equal(aggregateClusterRoles(roles).size, 0);
    assert.equal(aggregateClusterRoles([]).size, 0);
  });

  it("clears the rules of a role whose selectors match nothing any more", () => {
    const stale = {
      ...aggregate("v", [{ matchLabels: { p: "1" } }]),
      rules: [rule("get", "", "pods")],
    };
    assert.deepEqual(aggregateClusterRoles([stale]).get("v"), []);
  });

  it("settles a cycle of aggregations", () => {
    const roles = [
      {
        ...aggregate("a", [{ matchLabels: { to: "a" } }], { to: "b" }),
        rules: [rule("get", "", "x")],
      },
      {
        ...aggregate("b", [{ matchLabels: { to: "b" } }], { to: "a" }),
        rules: [rule("get", "", "y")],
      },
    ];
    const changed = aggregateClusterRoles(roles);
    assert.ok(sameRules(changed.get("a") ?? roles[0]!.rules, changed.get("b") ?? roles[1]!.rules));
  });
});

describe("sameRules", () => {
  it("compares lists in order, null and [] alike", () => {
    assert.equal(sameRules(null, []), true);
    assert.equal(
      sameRules([rule("get", "", "a")], [{ ...rule("get", "", "a"), resourceNames: null }]),
      true,
    );
    assert.equal(
      sameRules(
        [rule("get", "", "a"), rule("get", "", "b")],
        [rule("get", "", "b"), rule("get", "", "a")],
      ),
      false,
    );
  });
});
