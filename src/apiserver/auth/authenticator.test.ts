import assert from "node:assert/strict";
import { Socket } from "node:net";
import { describe, it } from "node:test";
import { errors, type KubeObject } from "../../core/index.ts";
import { FakeClock } from "../../testing/index.ts";
import { Authenticator, bearerToken, isLoopback } from "./authenticator.ts";
import type {
  CertificateAuthentication,
  CertificateAuthenticator,
} from "./certificate-authentication.ts";
import { ServiceAccountTokens } from "./service-account-tokens.ts";
import { parseTokenFile } from "./token-file.ts";
import { ANONYMOUS_USER, TOKEN_USER } from "./user.ts";

const clock = new FakeClock();
const robot: KubeObject = { metadata: { name: "robot", namespace: "ns", uid: "sa-uid" } };
const tokens = new ServiceAccountTokens({
  lookup: async (resource, namespace, name) => {
    if (resource === "serviceaccounts" && namespace === "ns" && name === "robot") return robot;
    throw errors.notFound({ group: "", resource }, name);
  },
  clock,
});
const staticTokens = parseTokenFile(
  Buffer.from(
    'alicetoken,alice,alice-uid\nimptoken,imp,imp-uid,"g1,g2"\nanon,x,1,system:unauthenticated\n',
  ),
  "tokens.csv",
).users;

/** A certificate authenticator that answers `result` for every connection. */
function certificates(result: CertificateAuthentication): CertificateAuthenticator {
  return { authenticate: () => result };
}

/** A plain-HTTP connection from `address`. */
function peer(address: string): Socket {
  return Object.defineProperty(new Socket(), "remoteAddress", { value: address });
}

const JANE = { username: "jane", groups: ["dev", "system:authenticated"] };
const local = peer("127.0.0.1");

describe("Authenticator with client certificates", () => {
  it("takes a verified certificate's user first, before the request's token", async () => {
    const auth = new Authenticator({
      token: "t0k",
      serviceAccountTokens: tokens,
      certificates: certificates({ kind: "authenticated", user: JANE }),
    });
    assert.deepEqual(await auth.authenticateRequest("Bearer t0k", local), JANE);
    assert.deepEqual(await auth.authenticateRequest(undefined, local), JANE);
  });

  it("answers 401 for a certificate that does not verify, unless the token authenticates", async () => {
    const auth = new Authenticator({
      serviceAccountTokens: tokens,
      certificates: certificates({ kind: "rejected", error: "x509: expired" }),
    });
    // Open to anonymous requests — but not to a failed credential, as kube answers one.
    assert.equal(await auth.authenticateRequest(undefined, local), undefined);
    const locked = new Authenticator({
      token: "t0k",
      serviceAccountTokens: tokens,
      certificates: certificates({ kind: "rejected", error: "x509: expired" }),
    });
    assert.equal(await locked.authenticateRequest("Bearer t0k", local), TOKEN_USER);
  });

  it("leaves a connection without a certificate to the token and anonymous rules", async () => {
    const auth = new Authenticator({
      serviceAccountTokens: tokens,
      certificates: certificates({ kind: "none" }),
    });
    assert.equal(await auth.authenticateRequest(undefined, local), ANONYMOUS_USER);
    assert.equal(await auth.authenticateRequest(undefined), ANONYMOUS_USER);
  });
});

describe("Authenticator with bearer tokens", () => {
  const auth = new Authenticator({ token: "t0k", staticTokens, serviceAccountTokens: tokens });

  it("knows the shared token, the token file's users (authenticated) and service accounts", async () => {
    assert.equal(await auth.authenticateRequest("Bearer t0k"), TOKEN_USER);
    assert.deepEqual(await auth.authenticateRequest("Bearer imptoken"), {
      username: "imp",
      uid: "imp-uid",
      groups: ["g1", "g2", "system:authenticated"],
    });
    // Already unauthenticated: kube's group adder leaves it so.
    assert.deepEqual((await auth.authenticateRequest("Bearer anon"))?.groups, [
      "system:unauthenticated",
    ]);
    const { token } = await tokens.issue(
      { namespace: "ns", serviceAccount: { name: "robot", uid: "sa-uid" } },
      tokens.audiences,
      3600,
    );
    assert.equal(
      (await auth.authenticateRequest(`Bearer ${token}`))?.username,
      "system:serviceaccount:ns:robot",
    );
  });

  it("answers 401 for a token nobody knows, even where anonymous requests are allowed", async () => {
    for (const header of ["Bearer nope", "Bearer t0", "Bearer t0k2", "bearer a.b.c"]) {
      assert.equal(await auth.authenticateRequest(header), undefined, header);
    }
  });

  it("reads the header as kube does: any case, one space, the second word", async () => {
    assert.equal(await auth.authenticateRequest("BEARER t0k"), TOKEN_USER);
    assert.equal(await auth.authenticateRequest("  Bearer t0k  "), TOKEN_USER);
    assert.equal(await auth.authenticateRequest("Bearer t0k and more"), TOKEN_USER);
    assert.equal(bearerToken("Bearer  t0k"), undefined);
    assert.equal(bearerToken("Bearer\tt0k"), undefined);
    assert.equal(bearerToken("Basic YTpi"), undefined);
    assert.equal(bearerToken("Bearer"), undefined);
    assert.equal(bearerToken("Bearer t0k\xc2\xa0"), "t0k");
  });

  it("treats a header that carries no bearer token as no credentials", async () => {
    const open = new Authenticator({ serviceAccountTokens: tokens });
    const closed = new Authenticator({ serviceAccountTokens: tokens, anonymous: false });
    for (const header of [undefined, "", "Basic YTpi", "Bearer", "Bearer  x"]) {
      assert.equal(await open.authenticateRequest(header), ANONYMOUS_USER);
      assert.equal(await closed.authenticateRequest(header), undefined);
    }
  });

  it("refuses a bearer token that came over plain HTTP from a peer that is not loopback", async () => {
    assert.equal(await auth.authenticateRequest("Bearer t0k", peer("127.0.0.1")), TOKEN_USER);
    assert.equal(await auth.authenticateRequest("Bearer t0k", peer("::1")), TOKEN_USER);
    assert.equal(await auth.authenticateRequest("Bearer t0k", peer("192.0.2.7")), undefined);
    assert.equal(await auth.authenticateRequest("Bearer t0k", peer("::ffff:10.0.0.1")), undefined);
    assert.ok(isLoopback("::ffff:127.0.0.1"));
    assert.ok(!isLoopback(undefined));
  });
});

describe("Authenticator reviewing tokens", () => {
  it("reviews a token as a request carrying it would be authenticated", async () => {
    const auth = new Authenticator({ staticTokens, serviceAccountTokens: tokens });
    const alice = await auth.reviewToken("alicetoken");
    assert.deepEqual(alice, {
      authenticated: true,
      user: { username: "alice", uid: "alice-uid", groups: ["system:authenticated"] },
      audiences: ["https://kubernetes.default.svc.cluster.local"],
    });
    // kube's quirks: what follows a space is not the token; no token at all is anonymous.
    assert.equal((await auth.reviewToken("alicetoken junk")).authenticated, true);
    assert.deepEqual(await auth.reviewToken(" x"), {
      authenticated: true,
      user: ANONYMOUS_USER,
      audiences: ["https://kubernetes.default.svc.cluster.local"],
    });
    assert.deepEqual(await auth.reviewToken("alicetoken", ["other"]), {
      authenticated: false,
      error: "invalid bearer token",
    });
    const closed = new Authenticator({ serviceAccountTokens: tokens, anonymous: false });
    assert.deepEqual(await closed.reviewToken(" x"), { authenticated: false, error: "" });
  });
});
