import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type AccessAttributes, type Authorizer, alwaysAllow } from "../authorizer.ts";
import { MASTERS_GROUP } from "../user.ts";
import { user } from "./fixtures.test-helper.ts";
import { privilegedGroups, unionAuthorizer } from "./union.ts";

const attrs: AccessAttributes = { kind: "non-resource", verb: "get", path: "/x" };

function fixed(
  decision: { allowed?: boolean; denied?: boolean; reason?: string },
  error?: string,
): Authorizer {
  return {
    authorize: () => ({ allowed: false, denied: false, reason: "", ...decision }),
    rulesFor: () => ({
      resourceRules: [{ verbs: ["get"], apiGroups: [""], resources: [decision.reason ?? "r"] }],
      nonResourceRules: [],
      incomplete: decision.denied ?? false,
      ...(error === undefined ? {} : { evaluationError: error }),
    }),
  };
}

describe("unionAuthorizer", () => {
  it("answers with the first authorizer that allows or denies", () => {
    const u = unionAuthorizer([
      fixed({ reason: "meh" }),
      fixed({ denied: true, reason: "no" }),
      alwaysAllow,
    ]);
    assert.deepEqual(u.authorize(user("a"), attrs), { allowed: false, denied: true, reason: "no" });
    const v = unionAuthorizer([fixed({}), fixed({ allowed: true, reason: "yes" })]);
    assert.deepEqual(v.authorize(user("a"), attrs), {
      allowed: true,
      denied: false,
      reason: "yes",
    });
  });

  it("has no opinion when none has, with every reason one a line", () => {
    const u = unionAuthorizer([fixed({ reason: "one" }), fixed({}), fixed({ reason: "two" })]);
    assert.deepEqual(u.authorize(user("a"), attrs), {
      allowed: false,
      denied: false,
      reason: "one\ntwo",
    });
    assert.deepEqual(unionAuthorizer([]).authorize(user("a"), attrs), {
      allowed: false,
      denied: false,
      reason: "",
    });
  });

  it("lists every authorizer's rules, incomplete if one is, with their errors", () => {
    const u = unionAuthorizer([
      fixed({ reason: "a" }, "e1"),
      fixed({ reason: "b", denied: true }, "e2"),
    ]);
    const rules = u.rulesFor(user("a"), "ns");
    assert.deepEqual(
      rules.resourceRules.map((r) => r.resources[0]),
      ["a", "b"],
    );
    assert.equal(rules.incomplete, true);
    assert.equal(rules.evaluationError, "[e1, e2]");
    assert.equal(unionAuthorizer([fixed({})]).rulesFor(user("a"), "ns").evaluationError, undefined);
  });
});

describe("privilegedGroups", () => {
  const masters = privilegedGroups([MASTERS_GROUP]);

  it("allows every request of a member of the group, with no reason", () => {
    assert.deepEqual(masters.authorize(user("root", MASTERS_GROUP), attrs), {
      allowed: true,
      denied: false,
      reason: "",
    });
  });

  it("has no opinion on anyone else, and lists no rules", () => {
    assert.deepEqual(masters.authorize(user("bob"), attrs), {
      allowed: false,
      denied: false,
      reason: "",
    });
    assert.deepEqual(masters.rulesFor(user("root", MASTERS_GROUP), "ns"), {
      resourceRules: [],
      nonResourceRules: [],
      incomplete: false,
    });
  });
});
