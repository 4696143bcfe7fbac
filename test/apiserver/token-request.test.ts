/**
 * `serviceaccounts/{name}/token` (TokenRequest) and the TokenReview of what it issues,
 * black-box over HTTP on both backends: a signed JWT with kube's claims, the request checked and
 * defaulted as kube does, bound tokens, and the errors kube answers.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "kontroller/testing";
import { call, type Loose } from "./helpers.ts";

const NS = "/api/v1/namespaces/default";
const TOKEN = `${NS}/serviceaccounts/robot/token`;
const REVIEWS = "/apis/authentication.k8s.io/v1/tokenreviews";
const ISSUER = "https://kubernetes.default.svc.cluster.local";

/** The JSON of a JWT's header and claims. */
function decode(jwt: string): { header: Loose; claims: Loose } {
  const [header, claims] = jwt
    .split(".")
    .slice(0, 2)
    .map((p) => JSON.parse(Buffer.from(p, "base64url").toString()));
  return { header, claims };
}

describe("TokenRequest", () => {
  let s: TestServer;
  let account: Loose;
  before(async () => {
    s = await startTestServer({ controllers: false });
    account = (await call(s.url, "POST", `${NS}/serviceaccounts`, { metadata: { name: "robot" } }))
      .body;
  });
  after(() => s.close());
  const post = (path: string, body: unknown) => call(s.url, "POST", path, body);

  it("issues a signed token with kube's claims, for the server's audience, for an hour", async () => {
    const r = await post(TOKEN, { spec: {} });
    assert.equal(r.status, 201);
    assert.equal(r.body.kind, "TokenRequest");
    assert.equal(r.body.apiVersion, "authentication.k8s.io/v1");
    assert.equal(r.body.metadata.name, "robot");
    assert.equal(r.body.metadata.namespace, "default");
    assert.equal(r.body.metadata.uid, account.metadata.uid);
    assert.equal(r.body.metadata.managedFields[0].subresource, "token");
    assert.deepEqual(r.body.spec, {
      audiences: [ISSUER],
      expirationSeconds: 3600,
      boundObjectRef: null,
    });
    const { header, claims } = decode(r.body.status.token);
    assert.equal(header.alg, "RS256");
    assert.equal(typeof header.kid, "string");
    assert.deepEqual(Object.keys(claims), [
      "aud",
      "exp",
      "iat",
      "iss",
      "jti",
      "kubernetes.io",
      "nbf",
      "sub",
    ]);
    assert.deepEqual(claims.aud, [ISSUER]);
    assert.equal(claims.iss, ISSUER);
    assert.equal(claims.sub, "system:serviceaccount:default:robot");
    assert.equal(claims.exp - claims.iat, 3600);
    assert.equal(claims.nbf, claims.iat);
    assert.deepEqual(claims["kubernetes.io"], {
      namespace: "default",
      serviceaccount: { name: "robot", uid: account.metadata.uid },
    });
    // The creation time and the token's issue time are two reads of the clock, in whole
    // seconds: they may fall either side of a second.
    const life =
      Date.parse(r.body.status.expirationTimestamp) - Date.parse(r.body.metadata.creationTimestamp);
    assert.ok(life === 3_600_000 || life === 3_601_000, `an hour (${life} ms)`);
  });

  it("authenticates what it issued as the service account in a TokenReview", async () => {
    const issued = (await post(TOKEN, { spec: {} })).body.status.token;
    const r = await post(REVIEWS, { spec: { token: issued } });
    assert.equal(r.status, 201);
    assert.equal(r.body.status.authenticated, true);
    assert.deepEqual(r.body.status.audiences, [ISSUER]);
    const user = r.body.status.user;
    assert.equal(user.username, "system:serviceaccount:default:robot");
    assert.equal(user.uid, account.metadata.uid);
    assert.deepEqual(user.groups, [
      "system:serviceaccounts",
      "system:serviceaccounts:default",
      "system:authenticated",
    ]);
    assert.deepEqual(user.extra["authentication.kubernetes.io/credential-id"], [
      `JTI=${decode(issued).claims.jti}`,
    ]);
    const elsewhere = await post(REVIEWS, { spec: { token: issued, audiences: ["x"] } });
    assert.deepEqual(elsewhere.body.status, {
      user: {},
      error: `[invalid bearer token, token audiences ["${ISSUER}"] is invalid for the target audiences ["x"]]`,
    });
    const forged = `${issued.slice(0, -4)}AAAA`;
    const bad = await post(REVIEWS, { spec: { token: forged } });
    assert.equal(bad.body.status.authenticated, undefined);
    assert.match(bad.body.status.error, /^\[invalid bearer token, .+\]$/);
  });

  it("issues a token for the audiences asked, bound to a pod, with the pod in the claims", async () => {
    await post(`${NS}/pods`, {
      metadata: { name: "runner" },
      spec: { serviceAccountName: "robot", containers: [{ name: "c", image: "busybox" }] },
    });
    const r = await post(TOKEN, {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec: {
        audiences: ["vault"],
        expirationSeconds: 600,
        boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "runner" },
      },
    });
    assert.equal(r.status, 201);
    assert.deepEqual(r.body.spec.boundObjectRef, { kind: "Pod", apiVersion: "v1", name: "runner" });
    const { claims } = decode(r.body.status.token);
    assert.deepEqual(claims.aud, ["vault"]);
    assert.equal(claims["kubernetes.io"].pod.name, "runner");
    const review = await post(REVIEWS, {
      spec: { token: r.body.status.token, audiences: ["vault"] },
    });
    assert.equal(review.body.status.authenticated, true);
    assert.deepEqual(review.body.status.user.extra["authentication.kubernetes.io/pod-name"], [
      "runner",
    ]);
  });

  it("refuses a life under 10 minutes or over 2^32 seconds: 422", async () => {
    const short = await post(TOKEN, { spec: { expirationSeconds: 10 } });
    assert.equal(short.status, 422);
    assert.equal(
      short.body.message,
      'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 10: may not specify a duration less than 10 minutes',
    );
    assert.deepEqual(short.body.details, {
      group: "authentication.k8s.io",
      kind: "TokenRequest",
      causes: [
        {
          reason: "FieldValueInvalid",
          message: "Invalid value: 10: may not specify a duration less than 10 minutes",
          field: "spec.expirationSeconds",
        },
      ],
    });
    const long = await post(TOKEN, { spec: { expirationSeconds: 5_000_000_000 } });
    assert.equal(long.status, 422);
    assert.match(long.body.message, /may not specify a duration larger than 2\^32 seconds$/);
  });

  it("answers kube's errors for what does not match or does not exist", async () => {
    const name = await post(TOKEN, { metadata: { name: "other" }, spec: {} });
    assert.equal(name.status, 422);
    assert.equal(
      name.body.message,
      'TokenRequest.authentication.k8s.io "robot" is invalid: metadata.name: Invalid value: "other": must match the service account name if specified',
    );
    const namespace = await post(TOKEN, { metadata: { namespace: "other" }, spec: {} });
    assert.equal(namespace.status, 400);
    const uid = await post(TOKEN, { metadata: { uid: "nope" }, spec: {} });
    assert.equal(uid.status, 409);
    assert.equal(
      uid.body.message,
      `Operation cannot be fulfilled on TokenRequest.authentication.k8s.io "robot": the UID in the token request (nope) does not match the UID of the service account (${account.metadata.uid})`,
    );
    const missing = await post(`${NS}/serviceaccounts/nobody/token`, { spec: {} });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, 'serviceaccounts "nobody" not found');
    const kind = await post(TOKEN, {
      spec: { boundObjectRef: { kind: "ConfigMap", apiVersion: "v1", name: "x" } },
    });
    assert.equal(kind.status, 400);
    assert.equal(kind.body.message, "cannot bind token to object of type /v1, Kind=ConfigMap");
    const pod = await post(TOKEN, {
      spec: { boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "runner", uid: "zz" } },
    });
    assert.equal(pod.status, 409);
    assert.match(
      pod.body.message,
      /^Operation cannot be fulfilled on Pod "runner": the UID in the bound object reference \(zz\) does not match/,
    );
    const noPod = await post(TOKEN, { spec: { boundObjectRef: { kind: "Pod", name: "gone" } } });
    assert.equal(noPod.status, 404);
    assert.equal(noPod.body.message, 'pods "gone" not found');
  });

  it("refuses bodies kube cannot decode: 400", async () => {
    const array = await post(TOKEN, { spec: [] });
    assert.equal(array.status, 400);
    assert.equal(
      array.body.message,
      'TokenRequest in version "v1" cannot be handled as a TokenRequest: json: cannot unmarshal array into Go struct field TokenRequest.spec of type v1.TokenRequestSpec',
    );
    const text = await post(TOKEN, { spec: { expirationSeconds: "x" } });
    assert.equal(text.status, 400);
    assert.equal(
      text.body.message,
      'TokenRequest in version "v1" cannot be handled as a TokenRequest: json: cannot unmarshal string into Go struct field TokenRequestSpec.spec.expirationSeconds of type int64',
    );
    const core = await post(TOKEN, { apiVersion: "v1", kind: "TokenRequest", spec: {} });
    assert.equal(core.status, 400);
  });

  it("is only created: 405 for a GET or a PUT", async () => {
    for (const method of ["GET", "PUT"]) {
      const r = await call(s.url, method, TOKEN, method === "PUT" ? {} : undefined);
      assert.equal(r.status, 405, method);
      assert.equal(
        r.body.message,
        "the server does not allow this method on the requested resource",
      );
    }
  });
});

describe("service account tokens as credentials", () => {
  let s: TestServer;
  const token = "s3cret-token-request";
  before(async () => {
    s = await startTestServer({ controllers: false, token });
  });
  after(() => s.close());

  it("authenticates requests with a token the server issued, as its service account", async () => {
    const auth = { authorization: `Bearer ${token}` };
    await call(s.url, "POST", `${NS}/serviceaccounts`, { metadata: { name: "robot" } }, auth);
    const issued = (await call(s.url, "POST", TOKEN, { spec: {} }, auth)).body.status.token;
    const r = await call(
      s.url,
      "POST",
      "/apis/authentication.k8s.io/v1/selfsubjectreviews",
      {},
      { authorization: `Bearer ${issued}` },
    );
    assert.equal(r.status, 201);
    assert.equal(r.body.status.userInfo.username, "system:serviceaccount:default:robot");
    const bogus = await call(s.url, "GET", "/api/v1/namespaces", undefined, {
      authorization: "Bearer bogus",
    });
    assert.equal(bogus.status, 401);
  });
});
