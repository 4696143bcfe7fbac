import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { UserInfo } from "../user.ts";
import { resourceRequest } from "./fixtures.test-helper.ts";
import { forbiddenError, forbiddenMessage } from "./forbidden.ts";
import { aggregateMessage, goQuote, goQuoteList } from "./go-format.ts";

const bob: UserInfo = { username: "bob", groups: ["system:authenticated"] };

describe("forbiddenMessage", () => {
  it("words a namespaced request as kube-apiserver does", () => {
    assert.equal(
      forbiddenMessage(bob, resourceRequest("list", "", "pods", { namespace: "y" })),
      'User "bob" cannot list resource "pods" in API group "" in the namespace "y"',
    );
  });

  it("words a cluster-scoped request 'at the cluster scope'", () => {
    assert.equal(
      forbiddenMessage(bob, resourceRequest("list", "", "namespaces")),
      'User "bob" cannot list resource "namespaces" in API group "" at the cluster scope',
    );
  });

  it("joins a subresource to its resource", () => {
    assert.equal(
      forbiddenMessage(
        bob,
        resourceRequest("update", "apps", "deployments", { subresource: "scale", namespace: "n" }),
      ),
      'User "bob" cannot update resource "deployments/scale" in API group "apps" in the namespace "n"',
    );
  });

  it("words a request on another path with the path", () => {
    assert.equal(
      forbiddenMessage(bob, { kind: "non-resource", verb: "get", path: "/metrics" }),
      'User "bob" cannot get path "/metrics"',
    );
  });

  it('names the user "" when there is none', () => {
    assert.match(
      forbiddenMessage(undefined, resourceRequest("get", "", "pods")),
      /^User "" cannot get/,
    );
  });
});

describe("forbiddenError", () => {
  it("is a 403 Forbidden naming the collection, with kube's details", () => {
    const err = forbiddenError(bob, resourceRequest("list", "", "pods", { namespace: "y" }), "");
    assert.equal(err.code, 403);
    assert.equal(err.reason, "Forbidden");
    assert.equal(
      err.status.message,
      'pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "y"',
    );
    assert.deepEqual(err.details, { kind: "pods" });
  });

  it("names a named object and its group in front, and the subresource in the message", () => {
    const err = forbiddenError(
      bob,
      resourceRequest("get", "apps", "deployments", {
        name: "web",
        subresource: "scale",
        namespace: "n",
      }),
      "",
    );
    assert.equal(
      err.status.message,
      'deployments.apps "web" is forbidden: User "bob" cannot get resource "deployments/scale" in API group "apps" in the namespace "n"',
    );
    assert.deepEqual(err.details, { name: "web", group: "apps", kind: "deployments" });
  });

  it("appends the authorizers' reason after a colon", () => {
    const err = forbiddenError(
      bob,
      resourceRequest("get", "", "pods", { namespace: "n" }),
      'RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found',
    );
    assert.equal(
      err.status.message,
      'pods is forbidden: User "bob" cannot get resource "pods" in API group "" in the namespace "n": RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found',
    );
  });

  it("starts a non-resource refusal with 'forbidden:' and empty details", () => {
    const err = forbiddenError(bob, { kind: "non-resource", verb: "get", path: "/logs" }, "");
    assert.equal(err.status.message, 'forbidden: User "bob" cannot get path "/logs"');
    assert.deepEqual(err.details, {});
  });

  it("escapes &, < and > of what the user asked, but not the reason", () => {
    const err = forbiddenError(
      { username: "<script>&", groups: [] },
      { kind: "non-resource", verb: "get", path: "/a<b>" },
      "<reason>",
    );
    assert.equal(
      err.status.message,
      'forbidden: User "&lt;script&gt;&amp;" cannot get path "/a&lt;b&gt;": <reason>',
    );
  });

  it("quotes names as Go's %q does", () => {
    const err = forbiddenError(
      bob,
      resourceRequest("get", "", "pods", { name: 'a"b\n', namespace: "n" }),
      "",
    );
    assert.match(err.status.message ?? "", /^pods "a\\"b\\n" is forbidden/);
  });
});

describe("Go formatting", () => {
  it("quotes control, non-printable and non-BMP characters as strconv.Quote", () => {
    assert.equal(goQuote("a\tb\x07\x00\x7f"), '"a\\tb\\a\\x00\\x7f"');
    assert.equal(goQuote("é\u00a0\u200b"), '"é\\u00a0\\u200b"');
    assert.equal(goQuote("😀\u{e0001}"), '"😀\\U000e0001"');
    assert.equal(goQuote("\ud800"), '"\ufffd"');
  });

  it("prints a []string with %q as space-separated quoted items in brackets", () => {
    assert.equal(goQuoteList(["system:authenticated", "a b"]), '["system:authenticated" "a b"]');
    assert.equal(goQuoteList([]), "[]");
  });

  it("aggregates errors as apimachinery does: one bare, several deduplicated in brackets", () => {
    assert.equal(aggregateMessage(["a"]), "a");
    assert.equal(aggregateMessage(["a", "b", "a"]), "[a, b]");
    assert.equal(aggregateMessage(["a", "a"]), "a");
  });
});
