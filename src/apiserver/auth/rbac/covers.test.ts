import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { AccessAttributes } from "../authorizer.ts";
import { compactRules, compactString, covers } from "./covers.ts";
import { rule, urlRule } from "./fixtures.test-helper.ts";
import { rulesAllow } from "./rule-matching.ts";
import type { PolicyRule } from "./types.ts";

describe("covers", () => {
  it("covers a rule by an equal or wider one", () => {
    assert.equal(covers([rule("get,list", "", "pods")], [rule("get", "", "pods")]).covered, true);
    assert.equal(
      covers([rule("*", "*", "*")], [rule("get", "apps", "deployments/scale", "x")]).covered,
      true,
    );
    assert.equal(
      covers([rule("get", "", "pods,services")], [rule("get", "", "services,pods")]).covered,
      true,
    );
  });

  it("lists what is missing, broken down to one verb, group, resource and name each", () => {
    assert.deepEqual(
      covers([rule("get", "", "pods")], [rule("get,list", "", "pods,secrets", "a")]).missing,
      [
        { apiGroups: [""], resources: ["pods"], verbs: ["get"], resourceNames: ["a"] },
        { apiGroups: [""], resources: ["pods"], verbs: ["list"], resourceNames: ["a"] },
        { apiGroups: [""], resources: ["secrets"], verbs: ["get"], resourceNames: ["a"] },
        { apiGroups: [""], resources: ["secrets"], verbs: ["list"], resourceNames: ["a"] },
      ].filter((r) => !(r.resources[0] === "pods" && r.verbs[0] === "get")),
    );
  });

  it("does not cover a subresource by its resource, but by */<subresource>", () => {
    assert.equal(covers([rule("get", "", "pods")], [rule("get", "", "pods/log")]).covered, false);
    assert.equal(covers([rule("get", "", "*/log")], [rule("get", "", "pods/log")]).covered, true);
    assert.equal(covers([rule("get", "", "pods/*")], [rule("get", "", "pods/log")]).covered, false);
  });

  it("covers named rules by an owner without names or with all of them, never the reverse", () => {
    assert.equal(covers([rule("get", "", "cm")], [rule("get", "", "cm", "a")]).covered, true);
    assert.equal(
      covers([rule("get", "", "cm", "a,b")], [rule("get", "", "cm", "b")]).covered,
      true,
    );
    assert.equal(covers([rule("get", "", "cm", "a")], [rule("get", "", "cm", "b")]).covered, false);
    assert.equal(covers([rule("get", "", "cm", "a")], [rule("get", "", "cm")]).covered, false);
  });

  it("covers paths exactly or by a prefix ending in *, and never by a resource rule", () => {
    assert.equal(
      covers([urlRule("get", "/healthz/*")], [urlRule("get", "/healthz/etcd")]).covered,
      true,
    );
    assert.equal(covers([urlRule("*", "*")], [urlRule("get,post", "/x")]).covered, true);
    assert.equal(covers([rule("*", "*", "*")], [urlRule("get", "/x")]).covered, false);
    assert.equal(covers([urlRule("*", "*")], [rule("get", "", "pods")]).covered, false);
  });

  it("compares texts, not requests: a '*' the owner lacks is missing even if it names all", () => {
    assert.equal(covers([rule("get", "", "pods")], [rule("*", "", "pods")]).covered, false);
  });

  it("lets rules that cover allow every request the covered rules allow", () => {
    const w = fc.constantFrom(
      "get",
      "list",
      "*",
      "",
      "apps",
      "pods",
      "pods/log",
      "*/log",
      "a",
      "/x*",
      "/x/y",
    );
    // Valid rules only: a rule mixing resources and URLs does not even cover itself in kube.
    const ruleArb: fc.Arbitrary<PolicyRule> = fc.oneof(
      fc.record({
        verbs: fc.array(w, { minLength: 1, maxLength: 2 }),
        apiGroups: fc.array(w, { minLength: 1, maxLength: 2 }),
        resources: fc.array(w, { minLength: 1, maxLength: 2 }),
        resourceNames: fc.array(w, { maxLength: 1 }),
      }),
      fc.record({
        verbs: fc.array(w, { minLength: 1, maxLength: 2 }),
        nonResourceURLs: fc.array(w, { minLength: 1, maxLength: 2 }),
      }),
    );
    const attrs: fc.Arbitrary<AccessAttributes> = fc.oneof(
      fc
        .record({
          verb: w,
          group: w,
          resource: w,
          subresource: fc.constantFrom("", "log"),
          name: w,
        })
        .map((a) => ({ kind: "resource" as const, version: "v1", namespace: "", ...a })),
      fc.record({ verb: w, path: w }).map((a) => ({ kind: "non-resource" as const, ...a })),
    );
    fc.assert(
      fc.property(
        fc.array(ruleArb, { maxLength: 3 }),
        fc.array(ruleArb, { maxLength: 3 }),
        attrs,
        (owner, servant, a) => {
          if (covers(owner, servant).covered && rulesAllow(a, servant))
            assert.equal(rulesAllow(a, owner), true);
          assert.equal(
            covers([...owner, ...servant], servant).covered,
            true,
            "rules cover themselves",
          );
        },
      ),
    );
  });
});

describe("compactRules and compactString", () => {
  it("joins missing rules that differ only by verb", () => {
    const { missing } = covers(
      [],
      [rule("get,list", "", "pods"), rule("watch", "", "pods"), urlRule("get", "/x")],
    );
    assert.deepEqual(compactRules(missing).map(compactString), [
      '{NonResourceURLs:["/x"], Verbs:["get"]}',
      '{APIGroups:[""], Resources:["pods"], Verbs:["get" "list" "watch"]}',
    ]);
  });

  it("keeps apart rules on different names, and leaves rules with several of anything as they are", () => {
    const rules = [
      rule("get", "", "cm", "a"),
      rule("list", "", "cm", "b"),
      rule("get", "", "cm", "a,b"),
      rule("get", "", "cm", "a"),
    ];
    assert.deepEqual(compactRules(rules).map(compactString), [
      '{APIGroups:[""], Resources:["cm"], ResourceNames:["a" "b"], Verbs:["get"]}',
      '{APIGroups:[""], Resources:["cm"], ResourceNames:["a"], Verbs:["get" "get"]}',
      '{APIGroups:[""], Resources:["cm"], ResourceNames:["b"], Verbs:["list"]}',
    ]);
  });

  it("leaves a rule with a field RBAC does not know as it is", () => {
    const odd = { ...rule("get", "", "pods"), extra: true } as PolicyRule;
    assert.deepEqual(compactRules([odd, rule("list", "", "pods")]), [
      odd,
      rule("list", "", "pods"),
    ]);
  });

  it("words a rule with kube's field names, leaving out empty fields", () => {
    assert.equal(compactString({ verbs: [], apiGroups: null }), "{}");
    assert.equal(
      compactString({
        apiGroups: ["apps"],
        resources: ["deployments"],
        resourceNames: ["web"],
        verbs: ["*"],
      }),
      '{APIGroups:["apps"], Resources:["deployments"], ResourceNames:["web"], Verbs:["*"]}',
    );
  });
});
