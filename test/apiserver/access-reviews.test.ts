/**
 * The reviews kube-apiserver answers without storing anything, black-box over HTTP:
 * authorization.k8s.io's SelfSubjectAccessReview, SubjectAccessReview, LocalSubjectAccessReview
 * and SelfSubjectRulesReview, authentication.k8s.io's SelfSubjectReview and TokenReview. The
 * answers' shape, codes and messages are kube's; what differs by design (every request is
 * allowed, and who the requester is) is tested on the embedded server only.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { embeddedOnly, startTestServer, type TestServer } from "kontroller/testing";
import { call, type Loose } from "./helpers.ts";

const AUTHZ = "/apis/authorization.k8s.io/v1";
const AUTHN = "/apis/authentication.k8s.io/v1";

describe("access and identity reviews", () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ controllers: false });
  });
  after(() => s.close());
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    call(s.url, "POST", path, body, headers);

  it("answers a SelfSubjectAccessReview with the review, its status and 201", async () => {
    const r = await post(`${AUTHZ}/selfsubjectaccessreviews`, {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      spec: { resourceAttributes: { verb: "create", resource: "pods", namespace: "default" } },
    });
    assert.equal(r.status, 201);
    assert.equal(r.body.kind, "SelfSubjectAccessReview");
    assert.equal(r.body.apiVersion, "authorization.k8s.io/v1");
    assert.deepEqual(r.body.spec, {
      resourceAttributes: { namespace: "default", verb: "create", resource: "pods" },
    });
    assert.deepEqual(r.body.status, { allowed: true });
    // Recorded as kube's create handler records it, under the request's manager.
    const [entry] = r.body.metadata.managedFields as Loose[];
    assert.equal(entry.operation, "Update");
    assert.deepEqual(entry.fieldsV1, {
      "f:spec": {
        "f:resourceAttributes": { ".": {}, "f:namespace": {}, "f:resource": {}, "f:verb": {} },
      },
    });
    const nonResource = await post(`${AUTHZ}/selfsubjectaccessreviews`, {
      spec: { nonResourceAttributes: { verb: "get", path: "/healthz" } },
    });
    assert.equal(nonResource.status, 201);
    assert.deepEqual(nonResource.body.status, { allowed: true });
  });

  it("refuses a review without exactly one of the attributes, or with metadata: 422", async () => {
    const none = await post(`${AUTHZ}/selfsubjectaccessreviews`, { spec: {} });
    assert.equal(none.status, 422);
    assert.equal(none.body.reason, "Invalid");
    assert.equal(
      none.body.message,
      '.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified',
    );
    assert.deepEqual(none.body.details, {
      group: "authorization.k8s.io",
      causes: [
        {
          reason: "FieldValueInvalid",
          message:
            "Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified",
          field: "spec.resourceAttributes",
        },
      ],
    });
    const both = await post(`${AUTHZ}/selfsubjectaccessreviews`, {
      metadata: { name: "x" },
      spec: { resourceAttributes: {}, nonResourceAttributes: {} },
    });
    assert.equal(both.status, 422);
    assert.deepEqual(
      both.body.details.causes.map((c: Loose) => c.field),
      ["spec.nonResourceAttributes", "metadata"],
    );
    assert.match(both.body.message, /Invalid value: \{"Path":"","Verb":""\}: cannot be specified/);
    const selector = await post(`${AUTHZ}/subjectaccessreviews`, {
      spec: {
        user: "bob",
        resourceAttributes: { verb: "get", resource: "pods", labelSelector: {} },
      },
    });
    assert.equal(selector.status, 422);
    assert.equal(
      selector.body.details.causes[0].message,
      "Required value: when spec.resourceAttributes.labelSelector is specified, requirements or rawSelector is required",
    );
  });

  it("refuses a SubjectAccessReview with no user and no group, and bad bodies with 400", async () => {
    const r = await post(`${AUTHZ}/subjectaccessreviews`, { spec: {} });
    assert.equal(r.status, 422);
    assert.deepEqual(
      r.body.details.causes.map((c: Loose) => [c.field, c.message]),
      [
        [
          "spec.resourceAttributes",
          "Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified",
        ],
        ["spec.user", 'Invalid value: "": at least one of user or group must be specified'],
      ],
    );
    const notJson = await post(`${AUTHZ}/subjectaccessreviews`, "not json");
    assert.equal(notJson.status, 400);
    assert.equal(notJson.body.reason, "BadRequest");
    const wrongKind = await post(`${AUTHZ}/selfsubjectaccessreviews`, {
      kind: "SubjectAccessReview",
      spec: {},
    });
    assert.equal(wrongKind.status, 400);
    assert.match(
      wrongKind.body.message,
      /^SubjectAccessReview in version "v1" cannot be handled as a SelfSubjectAccessReview: /,
    );
  });

  it("names a field of the wrong JSON type as kube's decoder does: 400", async () => {
    const r = await post(`${AUTHZ}/subjectaccessreviews`, { spec: { user: "bob", groups: "x" } });
    assert.equal(r.status, 400);
    assert.equal(
      r.body.message,
      'SubjectAccessReview in version "v1" cannot be handled as a SubjectAccessReview: json: cannot unmarshal string into Go struct field SubjectAccessReviewSpec.spec.groups of type []string',
    );
  });

  it("warns of unknown fields, and refuses them with fieldValidation=Strict", async () => {
    const body = { spec: { resourceAttributes: { verb: "get", resource: "pods" } }, extra: 1 };
    const warned = await post(`${AUTHZ}/selfsubjectaccessreviews`, body);
    assert.equal(warned.status, 201);
    assert.equal(warned.headers.get("warning"), '299 - "unknown field \\"extra\\""');
    const strict = await post(`${AUTHZ}/selfsubjectaccessreviews?fieldValidation=Strict`, body);
    assert.equal(strict.status, 400);
    assert.equal(
      strict.body.message,
      'SelfSubjectAccessReview in version "v1" cannot be handled as a SelfSubjectAccessReview: strict decoding error: unknown field "extra"',
    );
  });

  it("routes reviews as kube does: 405 for a GET, 404 for a name or the wrong scope", async () => {
    const get = await call(s.url, "GET", `${AUTHZ}/selfsubjectaccessreviews`);
    assert.equal(get.status, 405);
    assert.deepEqual(get.body, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "the server does not allow this method on the requested resource",
      reason: "MethodNotAllowed",
      details: {},
      code: 405,
    });
    for (const [method, path] of [
      ["POST", `${AUTHZ}/selfsubjectaccessreviews/x`],
      ["GET", `${AUTHZ}/selfsubjectaccessreviews/x`],
      ["POST", `${AUTHZ}/namespaces/default/selfsubjectaccessreviews`],
      ["POST", `${AUTHZ}/localsubjectaccessreviews`],
    ] as const) {
      const r = await call(s.url, method, path, method === "POST" ? {} : undefined);
      assert.equal(r.status, 404, `${method} ${path}`);
    }
  });

  it("checks a LocalSubjectAccessReview's namespace against the path's", async () => {
    const path = `${AUTHZ}/namespaces/default/localsubjectaccessreviews`;
    const ok = await post(path, {
      spec: {
        groups: ["system:masters"],
        resourceAttributes: { namespace: "default", verb: "get", resource: "pods" },
      },
    });
    assert.equal(ok.status, 201);
    assert.equal(ok.body.metadata.namespace, "default");
    assert.equal(ok.body.status.allowed, true);
    const unset = await post(path, {
      spec: { user: "bob", resourceAttributes: { verb: "get", resource: "pods" } },
    });
    assert.equal(unset.status, 422);
    assert.equal(
      unset.body.message,
      '.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "": must match metadata.namespace',
    );
    const other = await post(path, {
      metadata: { namespace: "other" },
      spec: { user: "bob", resourceAttributes: { namespace: "default", verb: "get" } },
    });
    assert.equal(other.status, 400);
    assert.equal(
      other.body.message,
      "the namespace of the provided object does not match the namespace sent on the request",
    );
    const nonResource = await post(path, {
      spec: { user: "bob", nonResourceAttributes: { verb: "get", path: "/x" } },
    });
    assert.equal(nonResource.status, 422);
    assert.match(
      nonResource.body.message,
      /spec\.nonResourceAttributes: Invalid value: \{"Path":"\/x","Verb":"get"\}: disallowed on this kind of request/,
    );
  });

  it("answers a SelfSubjectRulesReview with the rules in the namespace, 400 without one", async () => {
    const none = await post(`${AUTHZ}/selfsubjectrulesreviews`, { spec: {} });
    assert.equal(none.status, 400);
    assert.equal(none.body.message, "no namespace on request");
    const r = await post(`${AUTHZ}/selfsubjectrulesreviews`, { spec: { namespace: "default" } });
    assert.equal(r.status, 201);
    assert.deepEqual(r.body.metadata, {});
    assert.deepEqual(r.body.spec, {});
    assert.equal(r.body.status.incomplete, false);
    assert.ok(
      r.body.status.resourceRules.some(
        (x: Loose) =>
          x.verbs.includes("*") && x.apiGroups.includes("*") && x.resources.includes("*"),
      ),
      "the requester may do everything",
    );
  });

  it("allows everything to everyone until the server authorizes requests", {
    skip: embeddedOnly("kube-apiserver authorizes with RBAC"),
  }, async () => {
    const bob = await post(`${AUTHZ}/subjectaccessreviews`, {
      spec: { user: "bob", resourceAttributes: { verb: "delete", resource: "nodes" } },
    });
    assert.deepEqual(bob.body.status, { allowed: true });
    const rules = await post(`${AUTHZ}/selfsubjectrulesreviews`, { spec: { namespace: "x" } });
    assert.deepEqual(rules.body.status, {
      resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }],
      nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
      incomplete: false,
    });
  });

  it("answers a SelfSubjectReview with the requester, stamped with the time", async () => {
    const r = await post(`${AUTHN}/selfsubjectreviews`, {});
    assert.equal(r.status, 201);
    assert.equal(r.body.kind, "SelfSubjectReview");
    assert.match(r.body.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(typeof r.body.status.userInfo.username, "string");
  });

  it("says a request without a token is kube's anonymous user", {
    skip: embeddedOnly("the kube-apiserver front adds the admin's token"),
  }, async () => {
    const r = await post(`${AUTHN}/selfsubjectreviews`, {});
    assert.deepEqual(r.body.status.userInfo, {
      username: "system:anonymous",
      groups: ["system:unauthenticated"],
    });
  });

  it("reviews tokens: 400 without one, 'invalid bearer token' for one nobody issued", async () => {
    const none = await post(`${AUTHN}/tokenreviews`, { spec: {} });
    assert.equal(none.status, 400);
    assert.equal(none.body.message, "token is required for TokenReview in authentication");
    for (const token of ["garbage", "a.b.c"]) {
      const r = await post(`${AUTHN}/tokenreviews`, { spec: { token } });
      assert.equal(r.status, 201);
      assert.deepEqual(r.body.spec, { token });
      assert.deepEqual(r.body.status, { user: {}, error: "invalid bearer token" });
    }
  });
});

describe("reviews on a server with a token", () => {
  let s: TestServer;
  const token = "s3cret-review-token";
  before(async () => {
    s = await startTestServer({ controllers: false, token });
  });
  after(() => s.close());
  const auth = { authorization: `Bearer ${token}` };

  it("says the token's user is an administrator in system:masters", async () => {
    const r = await call(s.url, "POST", `${AUTHN}/selfsubjectreviews`, {}, auth);
    assert.equal(r.status, 201);
    assert.ok(r.body.status.userInfo.groups.includes("system:masters"));
    assert.ok(r.body.status.userInfo.groups.includes("system:authenticated"));
    const unauthorized = await call(s.url, "POST", `${AUTHN}/selfsubjectreviews`, {});
    assert.equal(unauthorized.status, 401);
  });

  it("authenticates the shared token in a TokenReview for the server's audiences only", async () => {
    const r = await call(s.url, "POST", `${AUTHN}/tokenreviews`, { spec: { token } }, auth);
    assert.equal(r.status, 201);
    assert.equal(r.body.status.authenticated, true);
    assert.deepEqual(r.body.status.audiences, ["https://kubernetes.default.svc.cluster.local"]);
    assert.ok(r.body.status.user.groups.includes("system:masters"));
    const other = await call(
      s.url,
      "POST",
      `${AUTHN}/tokenreviews`,
      { spec: { token, audiences: ["other"] } },
      auth,
    );
    assert.deepEqual(other.body.status, { user: {}, error: "invalid bearer token" });
  });

  it("names the token's user 'admin', uid 'kontroller-admin', on both backends", async () => {
    const r = await call(s.url, "POST", `${AUTHN}/selfsubjectreviews`, {}, auth);
    assert.deepEqual(r.body.status.userInfo, {
      username: "admin",
      uid: "kontroller-admin",
      groups: ["system:masters", "system:authenticated"],
    });
  });
});
