import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { AccessAttributes } from "../authorizer.ts";
import { resourceRequest } from "./fixtures.test-helper.ts";
import { ruleAllows, rulesAllow, trimStars } from "./rule-matching.ts";
import type { PolicyRule } from "./types.ts";

const path = (verb: string, p: string): AccessAttributes => ({
  kind: "non-resource",
  verb,
  path: p,
});

const word = fc.stringMatching(/^[a-z*/.-]{0,8}$/);
const attributes: fc.Arbitrary<AccessAttributes> = fc.oneof(
  fc
    .record({
      verb: word,
      group: word,
      resource: word,
      subresource: word,
      name: word,
      namespace: word,
    })
    .map((a) => ({ kind: "resource" as const, version: "v1", ...a })),
  fc
    .record({ verb: word, path: fc.string() })
    .map((a) => ({ kind: "non-resource" as const, ...a })),
);
const rule: fc.Arbitrary<PolicyRule> = fc.record(
  {
    verbs: fc.array(word, { maxLength: 3 }),
    apiGroups: fc.array(word, { maxLength: 3 }),
    resources: fc.array(word, { maxLength: 3 }),
    resourceNames: fc.array(word, { maxLength: 2 }),
    nonResourceURLs: fc.array(word, { maxLength: 2 }),
  },
  { requiredKeys: [] },
);

describe("ruleAllows", () => {
  it("allows a request matching the verb, group and resource of a rule", () => {
    const r = { verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] };
    assert.equal(ruleAllows(resourceRequest("list", "", "pods", { namespace: "ns" }), r), true);
    assert.equal(ruleAllows(resourceRequest("watch", "", "pods"), r), false);
    assert.equal(ruleAllows(resourceRequest("list", "apps", "pods"), r), false);
    assert.equal(ruleAllows(resourceRequest("list", "", "services"), r), false);
  });

  it("reads absent and null lists as empty: a rule without verbs allows nothing", () => {
    assert.equal(
      ruleAllows(resourceRequest("get", "", "pods"), { apiGroups: [""], resources: ["pods"] }),
      false,
    );
    assert.equal(
      ruleAllows(resourceRequest("get", "", "pods"), {
        verbs: ["get"],
        apiGroups: null,
        resources: ["pods"],
      }),
      false,
    );
  });

  it("matches a subresource only by its full name, */<subresource> or *", () => {
    const log = resourceRequest("get", "", "pods", { subresource: "log" });
    const on = (resources: string[]) =>
      ruleAllows(log, { verbs: ["get"], apiGroups: [""], resources });
    assert.equal(on(["pods"]), false, "a rule on pods does not reach pods/log");
    assert.equal(on(["pods/log"]), true);
    assert.equal(on(["*/log"]), true);
    assert.equal(on(["*"]), true);
    assert.equal(on(["pods/*"]), false, "kube has no pods/* wildcard");
    assert.equal(on(["*/logs"]), false);
    assert.equal(on(["x/log"]), false);
  });

  it("does not let */<subresource> match the resource itself", () => {
    const r = { verbs: ["get"], apiGroups: ["apps"], resources: ["*/scale"] };
    assert.equal(
      ruleAllows(resourceRequest("get", "apps", "deployments", { subresource: "scale" }), r),
      true,
    );
    assert.equal(ruleAllows(resourceRequest("get", "apps", "deployments"), r), false);
  });

  it("limits a rule with resourceNames to those names, and so never allows a nameless request", () => {
    const r = {
      verbs: ["get", "list"],
      apiGroups: [""],
      resources: ["configmaps"],
      resourceNames: ["a"],
    };
    assert.equal(ruleAllows(resourceRequest("get", "", "configmaps", { name: "a" }), r), true);
    assert.equal(ruleAllows(resourceRequest("get", "", "configmaps", { name: "b" }), r), false);
    assert.equal(ruleAllows(resourceRequest("list", "", "configmaps"), r), false);
  });

  it("matches non-resource paths exactly, by *, or by a prefix ending in *", () => {
    const on = (urls: string[], p: string) =>
      ruleAllows(path("get", p), { verbs: ["get"], nonResourceURLs: urls });
    assert.equal(on(["/healthz"], "/healthz"), true);
    assert.equal(on(["/healthz"], "/healthz/etcd"), false);
    assert.equal(on(["/healthz/*"], "/healthz/etcd"), true);
    assert.equal(on(["/healthz/*"], "/healthz/"), true);
    assert.equal(on(["/healthz/*"], "/healthz"), false);
    assert.equal(
      on(["/api*"], "/apis/apps"),
      true,
      "the star is a plain prefix, not a path segment",
    );
    assert.equal(on(["/api**"], "/apis"), true, "every trailing star is trimmed");
    assert.equal(on(["*"], "/anything"), true);
  });

  it("never lets a resource rule allow a path, nor a path rule a resource", () => {
    const everything = { verbs: ["*"], apiGroups: ["*"], resources: ["*"] };
    assert.equal(ruleAllows(path("get", "/metrics"), everything), false);
    assert.equal(
      ruleAllows(resourceRequest("get", "", "pods"), { verbs: ["*"], nonResourceURLs: ["*"] }),
      false,
    );
  });

  it("trims every trailing star as Go's TrimRight does", () => {
    assert.equal(trimStars("/a**"), "/a");
    assert.equal(trimStars("***"), "");
    assert.equal(trimStars("/a*b"), "/a*b");
  });

  it("allows every request when a rule has * everywhere", () => {
    const star = [
      { verbs: ["*"], apiGroups: ["*"], resources: ["*"] },
      { verbs: ["*"], nonResourceURLs: ["*"] },
    ];
    fc.assert(
      fc.property(attributes, (a) => {
        // resourceNames are unset: every name.
        assert.equal(rulesAllow(a, star), true);
      }),
    );
  });

  it("keeps allowing what rules allow when more rules are added", () => {
    fc.assert(
      fc.property(attributes, fc.array(rule), fc.array(rule), (a, some, more) => {
        if (rulesAllow(a, some)) assert.equal(rulesAllow(a, [...some, ...more]), true);
        if (!rulesAllow(a, [...more, ...some])) assert.equal(rulesAllow(a, some), false);
      }),
    );
  });

  it("allows a request exactly when its own verb, group, resource and name are listed", () => {
    fc.assert(
      fc.property(attributes, (a) => {
        if (a.kind !== "resource") return;
        const combined = a.subresource === "" ? a.resource : `${a.resource}/${a.subresource}`;
        const exact = {
          verbs: [a.verb],
          apiGroups: [a.group],
          resources: [combined],
          ...(a.name === "" ? {} : { resourceNames: [a.name] }),
        };
        assert.equal(ruleAllows(a, exact), true);
        assert.equal(ruleAllows({ ...a, verb: `${a.verb}x` }, exact), exact.verbs.includes("*"));
      }),
    );
  });
});
